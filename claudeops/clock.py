"""Time as claudeops stores it: UTC, to the second, as ``YYYY-MM-DDTHH:MM:SSZ`` text.

One text format everywhere means SQLite's date functions, string ordering and the dashboard
all agree, and nothing depends on the host's time zone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The current time in UTC, truncated to whole seconds (what we store)."""
    return datetime.now(UTC).replace(microsecond=0)


def to_timestamp(moment: datetime) -> str:
    """Format an aware or naive-UTC datetime as stored text."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.strftime(TIMESTAMP_FORMAT)


def from_timestamp(text: str) -> datetime:
    """Parse stored text back into an aware UTC datetime."""
    return datetime.strptime(text, TIMESTAMP_FORMAT).replace(tzinfo=UTC)


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
