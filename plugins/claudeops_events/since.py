"""``--since 24h`` and friends: a relative age or an ISO time, as a stored timestamp.

Shared by the command line and the dashboard so both accept exactly the same spellings.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from claudeops.clock import to_timestamp, utc_now

UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}
RELATIVE = re.compile(r"^(\d+)\s*([smhdw])$")


def parse_since(text: str, now: datetime | None = None) -> str:
    """The stored timestamp ``text`` stands for: ``30m``, ``24h``, ``7d``, ``2w`` or an ISO time.

    An ISO time without a zone is taken as UTC. Raises ``ValueError`` with a one-line message
    the command line can show as it is.
    """
    spec = text.strip().lower()
    relative = RELATIVE.match(spec)
    if relative:
        amount, unit = int(relative.group(1)), relative.group(2)
        return to_timestamp((now or utc_now()) - timedelta(**{UNITS[unit]: amount}))
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"invalid time {text!r}: use an age such as 30m, 24h or 7d, "
                         "or an ISO time such as 2025-06-01T12:00:00Z") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return to_timestamp(moment)
