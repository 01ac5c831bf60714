"""``/notifications``: every notification claudeops decided on, newest first, filterable by outcome
and kind; the table polls like the other feeds. No URL is ever shown: targets are ``#n scheme``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from claudeops_web import OverviewCard
from claudeops_web.context import WebContext
from claudeops_web.pagination import Page
from claudeops_web.rendering import page
from litestar import get
from litestar.di import NamedDependency
from litestar.exceptions import ValidationException
from litestar.params import QueryParameter
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Template

from claudeops import db
from claudeops_notify import repository
from claudeops_notify.targets import KINDS
from claudeops_notify.web import NAV_ORDER

CARD_ROWS = 5


@get("/notifications", name="notifications", sync_to_thread=True)
def notifications_page(request: HTMXRequest, web: NamedDependency[WebContext],
                       outcome: Annotated[str | None, QueryParameter()] = None,
                       kind: Annotated[str | None, QueryParameter()] = None,
                       page_number: Annotated[int, QueryParameter(name="page", ge=1)] = 1) -> Template:
    """Notifications, newest first; ``outcome`` and ``kind`` combine."""
    outcome, kind = outcome or None, kind or None
    check_filters(outcome, kind)
    with db.connection_context():
        total = repository.count_notifications(outcome=outcome, kind=kind)
        current = Page.of(page_number, web.settings.page_size, total, {"outcome": outcome, "kind": kind})
        rows = repository.list_notifications(outcome=outcome, kind=kind, limit=current.size, offset=current.offset)
    context: dict[str, Any] = {"rows": rows, "page": current, "outcome": outcome, "kind": kind,
                               "outcomes": repository.OUTCOMES, "kinds": KINDS}
    return page(request, "notifications/page.html", "notifications/partials/table.html", context)


def check_filters(outcome: str | None, kind: str | None) -> None:
    if outcome is not None and outcome not in repository.OUTCOMES:
        raise ValidationException(f"unknown outcome {outcome!r}; use one of {', '.join(repository.OUTCOMES)}")
    if kind is not None and kind not in KINDS:
        raise ValidationException(f"unknown kind {kind!r}; use one of {', '.join(KINDS)}")


def overview_card() -> OverviewCard:
    return OverviewCard("notifications/partials/card.html", _card_context, order=NAV_ORDER)


def _card_context(web: WebContext) -> Mapping[str, Any]:
    return {"latest": repository.latest(CARD_ROWS), "failed": repository.count_notifications(outcome="failed")}
