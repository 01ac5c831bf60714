"""The ``[EVENT:<level>] message`` and ``[EVENT:<level>:<service>] message`` marker.

The handler does not write to the table itself: it goes through ``session.record_event``, the
same path as every other notable happening, so the runner (which collects a session's events
for the escalation handoff) and any other ``record_event`` implementation see it too.
"""

from __future__ import annotations

import logging
import re

from claudeops import FINDING, MARKER_SERVICE, MAX_SERVICE_LENGTH, Marker, MarkerType, Session, unquoted
from claudeops_events.levels import normalise_level

log = logging.getLogger(__name__)

SERVICE = rf"(?:{MARKER_SERVICE}|[ \t]*)"
"""The service an event may name (see :mod:`claudeops.services`), or nothing (``[EVENT:info:]``)."""

EVENT_PATTERN = re.compile(
    r"\[EVENT:(?=[ \t]*[^:\]\s])(?P<level>[^:\]]+)(?::(?P<service>" + SERVICE + r"))?\][ \t]*(?P<message>\S.*)")
"""A level with no word in it (``[EVENT: ]``) or a service that is not a name does not match, so it takes
the core's malformed path: warned about, stored nowhere and not counted as a recorded marker."""

PROMPT_SECTION = """\
## Events

Report what an operator should see as events, each on a line of its own in your reply (never
inside a tool call):

    [EVENT:<level>] <message>
    [EVENT:<level>:<service>] <message>

`<level>` is `info`, `warning` or `critical`; `<service>` is the service the event is about, as
one word of letters, digits, `.`, `_` or `-` (its container or unit name, such as `nextcloud-app`).
Examples:

    [EVENT:info] All 14 services healthy
    [EVENT:warning:jellyfin] Responses take 4.2 s (usually under 1 s); container up 3 days
    [EVENT:critical:nextcloud] Down: HTTP 502 on 3 checks in a row, database container exited

Write one event per finding, keep each to one line, and say what you saw, not what you guess."""


def event_marker_type() -> MarkerType:
    return MarkerType("EVENT", EVENT_PATTERN, PROMPT_SECTION, handle_event, on_malformed=warn_malformed)


def handle_event(session: Session, marker: Marker) -> None:
    """Record the event at the time the marker was seen (``session.now()``), its service without quotes,
    as a ``finding``: what the agent found, which notifications route on."""
    level, service, message = marker.groups
    session.record_event(normalise_level(level or ""), message or "", unquoted(service or "") or None, kind=FINDING)


def warn_malformed(session: Session, text: str) -> None:
    """A line that starts like an event but is not one: say so, store nothing."""
    log.warning("session #%s: ignored malformed event marker (expected [EVENT:<level>] message or "
                "[EVENT:<level>:<service>] message, the service up to %d letters, digits, '_', '.' or '-'): %.200s",
                session.id, MAX_SERVICE_LENGTH, text.strip())
