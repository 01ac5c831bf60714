"""Maintenance windows: a cron expression and a duration, such as ``0 3 * * sun 2h``.

An operator knows when a service is routinely down (a weekly backup stops the database, the
NAS updates on the first Sunday): during such a window the agent must not "fix" it and the
operator must not be paged. The window starts at every time the cron expression names and lasts
the duration; times are UTC unless an IANA zone follows (``0 3 * * sun 2h Europe/Berlin``), so
a window written in local time keeps its hour across daylight-saving changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cronsim import CronSim, CronSimError

_DURATION = re.compile(r"(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?")
MAX_DURATION = timedelta(days=7)
"""A window longer than a week would cover the next start of a weekly cron: that is a pause, not a window."""
LONGEST_DURATION = timedelta(days=3650)
"""No duration claudeops reads is longer than ten years: the end of one must stay a date (``now +
99999999999h`` is past the year 9999 and overflows), and none means more than "until I say so"."""


def parse_duration(text: str) -> timedelta:
    """``2h``, ``30m``, ``1h30m``, ``1d``: a positive duration of at most :data:`LONGEST_DURATION`;
    ``ValueError`` with a one-line reason."""
    found = _DURATION.fullmatch(text.strip().lower())
    if not text.strip() or found is None or not any(found.groups()):
        raise ValueError(f"{text!r} is not a duration (write it like 30m, 2h, 1h30m or 1d)")
    if any(part and len(part.lstrip("0")) > 7 for part in found.groups()):  # before int(): 10**7 days still fit
        raise ValueError(f"{text!r} is longer than the longest duration, {LONGEST_DURATION.days}d")
    days, hours, minutes = (int(part or 0) for part in found.groups())
    duration = timedelta(days=days, hours=hours, minutes=minutes)
    if duration > LONGEST_DURATION:
        raise ValueError(f"{text!r} is longer than the longest duration, {LONGEST_DURATION.days}d")
    if duration <= timedelta(0):
        raise ValueError(f"{text!r} is not a duration longer than zero")
    return duration


@dataclass(frozen=True)
class MaintenanceWindow:
    """A recurring window: starts at each time of ``cron`` (in ``zone``), lasts ``duration``."""

    spec: str
    cron: str
    duration: timedelta
    zone: str = "UTC"

    @property
    def _tz(self) -> tzinfo:
        return UTC if self.zone == "UTC" else ZoneInfo(self.zone)

    def end_if_open(self, at: datetime) -> datetime | None:
        """When the window that covers ``at`` ends (UTC), or ``None`` when ``at`` is outside every window."""
        local = at.astimezone(self._tz)
        # cronsim walks backwards strictly before its start; a second later includes a start at ``at`` itself
        started = next(iter(CronSim(self.cron, local + timedelta(seconds=1), reverse=True)), None)
        if started is None:
            return None
        end = started + self.duration
        return end.astimezone(UTC) if end > local else None


def parse_window(text: str) -> MaintenanceWindow:
    """``"<minute> <hour> <day> <month> <weekday> <duration> [zone]"``; ``ValueError`` with a one-line reason."""
    words = text.split()
    if len(words) not in (6, 7):
        raise ValueError(f"{text!r} is not a maintenance window: write five cron fields, a duration and "
                         "optionally a time zone, like '0 3 * * sun 2h' or '30 1 1 * * 4h Europe/Berlin'")
    cron, duration_text = " ".join(words[:5]), words[5]
    zone = words[6] if len(words) == 7 else "UTC"
    duration = parse_duration(duration_text)
    if duration > MAX_DURATION:
        raise ValueError(f"{text!r}: a window lasts at most 7 days (pause the service for longer ones)")
    try:
        CronSim(cron, datetime(2000, 1, 1, tzinfo=UTC))
    except CronSimError as exc:
        raise ValueError(f"{text!r}: {cron!r} is not a cron expression ({exc})") from None
    if zone != "UTC":
        try:
            ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"{text!r}: unknown time zone {zone!r} (use an IANA name such as Europe/Berlin)") from None
    return MaintenanceWindow(text.strip(), cron, duration, zone)
