"""What has been spent in the current local day and month, against the caps.

The totals come from ``claudeops.spend_since``, the one cost rule: real sessions' ``cost_usd``
(a Claude judge's cost included, as it is part of its session's cost); replayed sessions spend
nothing. Days and months are the host's local calendar, as an operator reads a bill.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from claudeops import spend_since, to_timestamp
from claudeops_budget.settings import BudgetSettings

PERIODS = ("day", "month")


@dataclass(frozen=True)
class Spend:
    """One period: since when, how much was spent, and its cap (0: none)."""

    period: str
    since: str
    spent: float
    cap: float

    @property
    def reached(self) -> bool:
        return self.cap > 0 and self.spent >= self.cap

    def describe(self) -> str:
        cap = f" of {usd(self.cap)}" if self.cap > 0 else " (no cap)"
        return f"{usd(self.spent)}{cap} {'today' if self.period == 'day' else 'this month'}"


def usd(amount: float) -> str:
    """Dollars to the cent, or to a millionth below a cent (a replay-sized test session costs $0.0001)."""
    return f"${amount:.2f}" if amount >= 0.01 or amount == 0 else f"${amount:.6f}"


def period_start(now: datetime, period: str) -> datetime:
    """Local midnight of today, or of the first of this month, as an aware datetime."""
    local = now.astimezone()
    start = local.replace(hour=0, minute=0, second=0, microsecond=0)
    return start.replace(day=1) if period == "month" else start


def current_spend(now: datetime, settings: BudgetSettings) -> list[Spend]:
    caps = {"day": settings.daily_usd, "month": settings.monthly_usd}
    spends = []
    for period in PERIODS:
        since = to_timestamp(period_start(now, period))
        spends.append(Spend(period, since, spend_since(since), caps[period]))
    return spends


def refusal(now: datetime, settings: BudgetSettings) -> str | None:
    """Why no session may start now (a cap reached), or ``None``; no query at all without a cap."""
    if settings.daily_usd <= 0 and settings.monthly_usd <= 0:
        return None
    for spend in current_spend(now, settings):
        if spend.reached:
            local = datetime.fromisoformat(spend.since.replace("Z", "+00:00")).astimezone()
            key = "daily_usd" if spend.period == "day" else "monthly_usd"
            return (f"{'daily' if spend.period == 'day' else 'monthly'} spend cap reached: {usd(spend.spent)} spent "
                    f"since {local:%Y-%m-%d %H:%M} local time (budget.{key} = {usd(spend.cap)})")
    return None
