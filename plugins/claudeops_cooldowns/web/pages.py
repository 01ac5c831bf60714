"""``/cooldowns``: per service and action, how many remediations are in the sliding window, the
limit, and until when the service is in cooldown; below it the history of recorded actions.

Limits come from the ``[cooldowns]`` section the dashboard was started with, the same rules the
runner enforces.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from claudeops_web import OverviewCard
from claudeops_web.context import WebContext
from claudeops_web.pagination import Page
from claudeops_web.rendering import page
from litestar import get
from litestar.di import NamedDependency
from litestar.params import QueryParameter
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Template

from claudeops import db
from claudeops_cooldowns import repository
from claudeops_cooldowns.settings import Rules, rules_from
from claudeops_cooldowns.web import NAV_ORDER


def configured_rules(web: WebContext) -> Rules:
    return rules_from(web.section("cooldowns"))


@get("/cooldowns", name="cooldowns", sync_to_thread=True)
def cooldowns_page(request: HTMXRequest, web: NamedDependency[WebContext],
                   page_number: Annotated[int, QueryParameter(name="page", ge=1)] = 1) -> Template:
    """Every service with a recorded action, services in cooldown first; the page polls."""
    rules = configured_rules(web)
    with db.connection_context():
        states = sorted(repository.cooldown_state(rules=rules), key=lambda state: not state.in_cooldown)
        current = Page.of(page_number, web.settings.page_size, repository.count_actions())
        actions = repository.list_actions(limit=current.size, offset=current.offset)
    context = {"states": states, "rules": rules, "actions": actions, "page": current}
    return page(request, "cooldowns/page.html", "cooldowns/partials/state.html", context)


def overview_card() -> OverviewCard:
    return OverviewCard("cooldowns/partials/card.html", _card_context, order=NAV_ORDER)  # where its page is


def _card_context(web: WebContext) -> Mapping[str, Any]:
    states = repository.cooldown_state(rules=configured_rules(web))
    return {"cooling": [state for state in states if state.in_cooldown], "tracked": len({s.service for s in states})}
