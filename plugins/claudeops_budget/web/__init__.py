"""The budget plugin's overview card: what was spent today and this month, against the caps.

Only the hook lives here; the card's context runs when the dashboard renders it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from claudeops import hookimpl, utc_now

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
CARD_ORDER = 5
"""Near the top: after the sessions card (0), before the feature pages' cards."""


@hookimpl
def register_web(register: Callable[..., None]) -> None:
    from claudeops_web import OverviewCard

    register(template_dir=TEMPLATES, overview_cards=[OverviewCard("budget/partials/card.html", _card, CARD_ORDER)])


def _card(web: Any) -> Mapping[str, Any]:
    from claudeops_budget.settings import SECTION
    from claudeops_budget.spend import current_spend

    return {"spends": current_spend(utc_now(), web.section(SECTION))}
