"""A notable happening that operators should see, independent of who stores it."""

from __future__ import annotations

from dataclasses import dataclass

LEVELS = ("info", "warning", "critical")


@dataclass(frozen=True)
class NotableEvent:
    """What the ``record_event`` hook carries.

    ``created_at`` is stored text (see :mod:`claudeops.clock`); ``session_id`` is ``None`` for
    things an operator did from the command line or dashboard.
    """

    level: str
    message: str
    created_at: str
    service: str | None = None
    session_id: int | None = None
