"""The ``[budget]`` section: what the agent may spend across runs, per local day and per month."""

from __future__ import annotations

from dataclasses import dataclass

from claudeops import Config, setting

SECTION = "budget"


@dataclass
class BudgetSettings:
    """The ``[budget]`` section. Per-session limits stay in ``[tierN] max_budget_usd``."""

    daily_usd: float = setting(0.0, "Most USD all sessions may spend in a local day; a run or tier that would start "
                                    "past it is refused (exit 77). 0: no cap")
    monthly_usd: float = setting(0.0, "Most USD all sessions may spend in a calendar month (local time); 0: no cap")


def validate(config: Config) -> None:
    settings: BudgetSettings = config.section(SECTION)
    for name in ("daily_usd", "monthly_usd"):
        config.require(getattr(settings, name) >= 0, f"{SECTION}.{name}", "0 (no cap) or more")
