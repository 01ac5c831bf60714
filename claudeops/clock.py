"""Time as claudeops stores it: UTC, to the second, as ``YYYY-MM-DDTHH:MM:SSZ`` text.

One text format everywhere means SQLite's date functions, string ordering and the dashboard
all agree, and nothing depends on the host's time zone. The ISO functions of ``datetime``
write and read that text (about 3× and 50× faster than ``strftime``/``strptime``: a dashboard
page reads a timestamp per row, a session writes several).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The current time in UTC, truncated to whole seconds (what we store)."""
    return datetime.now(UTC).replace(microsecond=0)


def to_timestamp(moment: datetime) -> str:
    """Format an aware or naive-UTC datetime as stored text (to the second)."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="seconds") + "Z"


def from_timestamp(text: str) -> datetime:
    """Parse stored text back into an aware UTC datetime; ``ValueError`` when it is not a timestamp.

    Any ISO 8601 form is read (a naive one as UTC, an offset converted to UTC), so a row written
    by hand or by an older tool still reads.
    """
    moment = datetime.fromisoformat(text)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def now_timestamp(clock: Clock = utc_now) -> str:
    """The current time as stored text."""
    return to_timestamp(clock())


@dataclass
class FakeClock:
    """A clock that stands still until a test moves it: pass it as ``Session.clock`` or
    ``RunRequest.clock`` to make decay, windows and timestamps deterministic."""

    moment: datetime = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.moment

    def advance(self, **delta: float) -> None:
        """Move forward by ``timedelta(**delta)`` (``advance(hours=4)``)."""
        self.moment += timedelta(**delta)

    def stamp(self, **ago: float) -> str:
        """The stored timestamp of ``now - timedelta(**ago)``."""
        return to_timestamp(self.moment - timedelta(**ago))
