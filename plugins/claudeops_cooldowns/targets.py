"""Which services a Bash command would restart or redeploy, by the configured patterns."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from claudeops import simple_commands, without_global_options
from claudeops_cooldowns.names import service_name

EVERY_SERVICE = "*"
"""The service of ``docker compose up -d`` or ``docker compose restart`` without names."""

_SEPARATORS = re.compile(r"[\s,:]+")
_NUMBER = re.compile(r"[\d.]+")


@dataclass(frozen=True)
class Target:
    """One service one simple command would act on."""

    action: str
    service: str
    command: str


def find_targets(command: str, patterns: Mapping[str, Sequence[re.Pattern[str]]]) -> list[Target]:
    """Every (action, service) ``command`` would perform, in order, without duplicates.

    Each simple command (see :func:`claudeops.simple_commands`) is joined with single spaces and
    searched with every pattern, as written and without the options before its sub-command
    (``docker --log-level debug restart x`` is searched as ``docker restart x`` too, so an
    option cannot hide a restart from patterns anchored on ``docker restart``); each match
    names services through its ``service`` group.
    """
    found: dict[tuple[str, str], Target] = {}
    for words in simple_commands(command):
        text = " ".join(words)
        for searched in dict.fromkeys((text, " ".join(without_global_options(words)))):
            for action, action_patterns in patterns.items():
                for pattern in action_patterns:
                    match = pattern.search(searched)
                    if match is None:
                        continue
                    for service in service_names(match.group("service") or ""):
                        found.setdefault((action, service), Target(action, service, text))
    return list(found.values())


def service_names(captured: str) -> list[str]:
    """The service names in a pattern's ``service`` group.

    Options (``-d``, ``--force-recreate``, ``--time=10``), numbers and versions (``-t 30``,
    ``--version 1.2.3``), paths and chart references (anything with ``/``) are not services; each name is
    spelled by :func:`~claudeops_cooldowns.names.service_name`, as the recorded actions are. A match that
    names no service means every service (``docker compose up -d`` acts on the whole project).
    """
    names = []
    for word in _SEPARATORS.split(captured.strip().strip("'\"")):
        word = service_name(word)
        if not word or word.startswith("-") or "=" in word or "/" in word or _NUMBER.fullmatch(word):
            continue
        if word not in names:
            names.append(word)
    return names or [EVERY_SERVICE]
