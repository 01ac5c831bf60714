"""Refusing tiers 2 and 3 any change to a service in maintenance or closed to remediation.

The prompt says such a service is to be left alone; this makes it so, like an exhausted
cooldown: before a tool runs, a call that would change state (the tool gate's own judgement,
:func:`claudeops.command_refusal`, the deny-by-default gate tier 1 and dry runs obey: a command it does
not know to only read counts as a change) and names such a service
(its name, container or unit, anywhere in the command line or the file path) is refused, and
the refusal is a warning event. A Docker Compose command that names no service acts on the whole
project, so it is refused while any service is closed. Tier 1 and dry runs need no check: they
change nothing at all. Reading is never refused: the agent still checks and reports.

A service in maintenance also gets no notifications: the operator who paused it is working on it.
"""

from __future__ import annotations

import re
from typing import Any

from claudeops import (
    WRITING_TOOLS,
    Config,
    Pause,
    Session,
    command_refusal,
    from_timestamp,
    is_paused,
    paused_services,
    simple_commands,
)
from claudeops import without_global_options as past_global_options

_WORD_SPLIT = re.compile(r"""[\s;&|()<>`'"$=,:@/\\]+""")
COMPOSE_PROGRAMS = frozenset({"docker-compose", "podman-compose"})
CONTAINER_PROGRAMS = frozenset({"docker", "podman"})
AFTER_REFUSAL = ("Do not retry it or work around it (another tool, host or spelling). Check and report the "
                 "service instead; the operator decides.")


def check_tool(session: Session, tool_name: str, tool_input: dict[str, Any]) -> str | None:
    """The refusal for a tool call at tier 2 or 3, or ``None`` when it may run."""
    if session.read_only is not None:
        return None  # tier 1 and dry runs are refused every change by the runner's own gate
    closed = _closed_services(session)
    if not closed:
        return None
    if tool_name in WRITING_TOOLS:
        text = str(tool_input.get("file_path") or tool_input.get("notebook_path") or "")
    elif tool_name == "Bash":
        text = str(tool_input.get("command", ""))
        if command_refusal(text) is None:
            return None  # what the gate knows only reads is never refused
    else:
        return None
    hit = _named_service(session, text, closed) or _whole_project(text, closed)
    if hit is None:
        return None
    service, why = hit
    session.record_event("warning", f"maintenance blocked a change to {service} ({why}): {text[:200]}",
                         None if service == "every service" else service)
    return f"Refused by claudeops: `{text[:200]}` would change {service}, which {why}. {AFTER_REFUSAL}"


def maintenance_silence(config: Config, service: str | None, now: str) -> str | None:
    """Why a notification about ``service`` is not sent at ``now``: it is in maintenance (or ``None``).

    Only notifications about a service are held back; a session's outcome, the digest or a spend
    cap concern the fleet and still go out during a global pause.
    """
    if service is None:
        return None
    pause = is_paused(config, service, from_timestamp(now))
    return None if pause is None else f"{service} is {pause.describe()}"


def _closed_services(session: Session) -> dict[str, str]:
    """Every service tiers 2 and 3 may not change now, with why (``*``: every service)."""
    closed = {name: _paused_why(pause) for name, pause in paused_services(session.config, session.clock()).items()}
    for service in session.config.inventory:
        if not service.remediate:
            closed.setdefault(service.name, "the inventory closes to remediation (remediate = false)")
    return closed


def _paused_why(pause: Pause) -> str:
    return f"is {pause.describe()}"


def _named_service(session: Session, text: str, closed: dict[str, str]) -> tuple[str, str] | None:
    if "*" in closed:
        return "every service", closed["*"]
    inventory = session.config.inventory
    for word in _WORD_SPLIT.split(text.lower()):
        if not word:
            continue
        known = inventory.named_by(word)
        name = known.name if known is not None else word.removesuffix(".service")
        if name in closed:
            return name, closed[name]
    return None


def _whole_project(command: str, closed: dict[str, str]) -> tuple[str, str] | None:
    """A compose command that names no service changes the whole project, closed services included."""
    for words in simple_commands(command):
        rest = past_global_options(words)
        if rest and rest[0] in CONTAINER_PROGRAMS and len(rest) > 1 and rest[1] == "compose":
            arguments = rest[2:]
        elif rest and rest[0] in COMPOSE_PROGRAMS:
            arguments = rest[1:]
        else:
            continue
        if arguments and command_refusal(" ".join(words)) is not None and not _names_any(arguments[1:]):
            names = ", ".join(sorted(closed))
            return "every service of the project", f"includes {names} (closed now); name the services to change"
    return None


def _names_any(arguments: list[str]) -> bool:
    """Whether a compose sub-command's arguments name services (options and their numbers do not)."""
    return any(not argument.startswith("-") and not argument.replace(".", "").isdigit() for argument in arguments)
