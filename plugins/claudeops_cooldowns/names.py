"""The one spelling of a service name that actions are stored, counted, cleared and enforced under.

The agent's marker, the operator's ``cooldowns reset`` and the command the enforcement judges
name the same service in different ways (``Jellyfin``, ``"jellyfin"``, ``jellyfin.service``);
if any of them spelled it differently from the others, a restart would be counted under one
name and checked under another, and the limit would never bite.
"""

from __future__ import annotations

QUOTES = "'\""
SYSTEMD_SUFFIX = ".service"
MAX_NAME_LENGTH = 100
_NAME = f"[A-Za-z0-9_.-]{{1,{MAX_NAME_LENGTH}}}"
MARKER_SERVICE = rf"""[ \t]*(?:{_NAME}|'{_NAME}'|"{_NAME}")[ \t]*"""
"""The service a ``[COOLDOWN]`` marker may name: letters, digits, ``_``, ``.`` and ``-`` (the memory
marker's service characters, plus ``.`` for ``jellyfin.service``), up to 100 of them, quoted or not.
Containers, compose services and systemd units are named so; anything else (a 5,000-character
word, ``host:svc``, spaces) is not a name a command acted on, and would flood ``claudeops cooldowns``."""


def service_name(text: str) -> str:
    """``text`` without surrounding blanks and quotes, lower-cased, without a systemd ``.service``.

    Empty when nothing of a name is left (``''``, ``.service``).
    """
    return text.strip().strip(QUOTES).strip().lower().removesuffix(SYSTEMD_SUFFIX)
