"""``--since 24h`` and friends: a relative age or an ISO time, as a stored timestamp.

Shared by the command line and the dashboard so both accept exactly the same spellings.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from claudeops import to_timestamp, utc_now

UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
RELATIVE = re.compile(r"^(\d+)\s*([smhdw])$")
MAX_AGE_DIGITS = 15
"""10**15 seconds is 31 million years, past anything ``datetime`` holds; longer numbers are refused before
``int()``, which fails on 4,300 digits with a message of its own."""


def parse_since(text: str, now: datetime | None = None) -> str:
    """The stored timestamp ``text`` stands for: ``30m``, ``24h``, ``7d``, ``2w`` or an ISO time.

    An ISO time without a zone is taken as UTC. Raises ``ValueError`` with a one-line message
    the command line can show as it is, also for a moment ``datetime`` cannot hold (``800000d``
    ago, ``0001-01-01T00:00:00+01:00``): those overflow, and a filter typed by an operator is a
    usage error, never a traceback.
    """
    try:
        return _timestamp(text, now)
    except OverflowError:
        raise _out_of_range(text) from None


def _timestamp(text: str, now: datetime | None) -> str:
    spec = text.strip().lower()
    relative = RELATIVE.match(spec)
    if relative:
        digits, unit = relative.groups()
        if len(digits.lstrip("0")) > MAX_AGE_DIGITS:
            raise _out_of_range(text)
        return to_timestamp((now or utc_now()) - timedelta(**{UNITS[unit]: int(digits)}))
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"invalid time {text!r}: use an age such as 30m, 24h or 7d, "
                         "or an ISO time such as 2025-06-01T12:00:00Z") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return to_timestamp(moment)


def _out_of_range(text: str) -> ValueError:
    return ValueError(f"time {text!r} is out of range: use an age or a time between the years 1 and 9999 in UTC")
