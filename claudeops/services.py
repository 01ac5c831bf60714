"""How claudeops names a service: one rule for memories, events, cooldowns and every plugin.

The dashboard lists and filters by service, memories reinforce per service, and the cooldowns
plugin counts and enforces restarts per service; so a service is one bounded, lower-case word,
compared case-insensitively everywhere (``Jellyfin`` is ``jellyfin``). A 5,000-character word,
``host:svc`` or a name with spaces is not something a command acted on.

Two character sets, one length cap:

* memory names keep SPEC-0015's marker grammar, ``[a-zA-Z0-9_-]+``;
* events and cooldowns also allow ``.``: their markers name what a command acted on, and a
  systemd unit (``jellyfin.service``), a compose replica (``web.1``) or a host-qualified
  container is written with a dot. (Cooldowns then drop a ``.service`` suffix, so the unit
  and the service are counted as one.)
"""

from __future__ import annotations

import re

QUOTES = "'\""
MAX_SERVICE_LENGTH = 100
NAME_CHARS = "A-Za-z0-9_-"
"""SPEC-0015's service characters (the memory marker's ``[a-zA-Z0-9_-]+``)."""
UNIT_NAME_CHARS = "A-Za-z0-9_.-"
"""Events' and cooldowns' service characters: a dot more, for unit and replica names."""

_NAME = f"[{UNIT_NAME_CHARS}]{{1,{MAX_SERVICE_LENGTH}}}"
MARKER_SERVICE = rf"""[ \t]*(?:{_NAME}|'{_NAME}'|"{_NAME}")[ \t]*"""
"""An event or cooldown marker's service field: a name, quoted or not, with blanks around it allowed."""

_VALID = {False: re.compile(f"[{NAME_CHARS}]{{1,{MAX_SERVICE_LENGTH}}}"),
          True: re.compile(f"[{UNIT_NAME_CHARS}]{{1,{MAX_SERVICE_LENGTH}}}")}


def unquoted(text: str) -> str:
    """A service field as written, without the blanks and quotes around the name."""
    return text.strip().strip(QUOTES).strip()


def canonical_service(text: str) -> str:
    """The one spelling a service is stored and compared under: unquoted and lower-cased.

    No validation: for matching words found in a command line, where a bad word simply names
    nothing. Names an operator or a marker gives go through :func:`service_name`.
    """
    return unquoted(text).lower()


def service_name(text: str, *, dots: bool = False) -> str:
    """``text`` as a canonical service name; ``ValueError`` with a one-line reason when it is not one.

    ``dots`` admits ``.`` (events, cooldowns); without it the name follows SPEC-0015's grammar.
    """
    name = canonical_service(text)
    if not _VALID[dots].fullmatch(name):
        allowed = "letters, digits, '_', '-' and '.'" if dots else "letters, digits, '_' and '-'"
        shown = name if len(name) <= 40 else name[:40] + "…"
        raise ValueError(f"invalid service name {shown!r} (use {allowed}, at most {MAX_SERVICE_LENGTH} characters)")
    return name
