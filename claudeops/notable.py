"""A notable happening that operators should see, independent of who stores it."""

from __future__ import annotations

from dataclasses import dataclass

LEVELS = ("info", "warning", "critical")


@dataclass(frozen=True)
class NotableEvent:
    """What the ``record_event`` hook carries.

    ``created_at`` is stored text (see :mod:`claudeops.clock`); ``session_id`` is ``None`` for
    things an operator did from the command line or dashboard. ``kind`` says what sort of
    happening it is (one of :data:`EVENT_KINDS`, or a plugin's own word), for code that routes
    on it, such as notifications; ``None`` for anything else.
    """

    level: str
    message: str
    created_at: str
    service: str | None = None
    session_id: int | None = None
    kind: str | None = None


FINDING = "finding"
COOLDOWN_REFUSED = "cooldown_refused"
START_REFUSED = "start_refused"
REVIEW_ITEM = "review_item"
SESSION_FAILED = "session_failed"
SESSION_INTERRUPTED = "session_interrupted"

EVENT_KINDS = {
    FINDING: "the agent reported it with an [EVENT] marker: what it found about a service",
    COOLDOWN_REFUSED: "a restart or redeployment was refused because its service is in cooldown",
    START_REFUSED: "a session was not started because a plugin refused it (a spend cap was reached)",
    REVIEW_ITEM: "something joined the memory review queue and waits for an operator",
    SESSION_FAILED: "a session failed (the runner)",
    SESSION_INTERRUPTED: "a session was interrupted (the runner)",
}
"""The kinds of event claudeops itself records and what each means; routing (notifications) keys on them."""


SERVICE_STATUS_OF_LEVEL = {"critical": "down", "warning": "degraded", "info": "up"}
"""A service's status is the level of its latest finding (an event of kind :data:`FINDING`): the one
definition notifications, the overview and metrics share (the events plugin answers
``service_statuses`` with it). Other events naming a service say nothing about its health."""
UNKNOWN_STATUS = "unknown"
"""The status of a service no finding has named yet."""


@dataclass(frozen=True)
class ServiceStatus:
    """Where a service stands: ``up``, ``degraded``, ``down`` (or ``unknown``), and since when.

    ``since`` is when the service entered this status: the oldest finding of the run of findings
    with this level that the latest belongs to (a repeat of "down" does not move it).
    ``message`` and ``event_id`` are those of the latest finding.
    """

    service: str
    status: str
    level: str
    since: str
    last_event_at: str
    message: str
    event_id: int
