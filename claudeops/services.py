"""How a marker names a service: one rule for every plugin whose marker carries one.

The dashboard lists and filters events by service, and the cooldowns plugin counts and enforces
restarts per service; a 5,000-character word, ``host:svc`` or a name with spaces is not a
container, compose service or systemd unit a command acted on, so markers accept only a bounded
name: letters, digits, ``_``, ``.`` and ``-`` (the memory marker's service characters, plus
``.`` for ``jellyfin.service``), quoted or not.
"""

from __future__ import annotations

QUOTES = "'\""
MAX_SERVICE_LENGTH = 100
_NAME = f"[A-Za-z0-9_.-]{{1,{MAX_SERVICE_LENGTH}}}"
MARKER_SERVICE = rf"""[ \t]*(?:{_NAME}|'{_NAME}'|"{_NAME}")[ \t]*"""
"""A marker's service field: a name, quoted or not, with blanks around it allowed."""


def unquoted(text: str) -> str:
    """A service field as written, without the blanks and quotes around the name."""
    return text.strip().strip(QUOTES).strip()
