"""``/events``: what an operator should see, newest first, filterable by level, service and age.

The table polls every ``web.poll_seconds`` (5 s by default) with its filters, so new events
appear while the page is open.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from claudeops_web import OverviewCard, SessionPanel
from claudeops_web.context import WebContext
from claudeops_web.pagination import Page
from claudeops_web.rendering import operator_errors, page, wants_fragment
from litestar import get
from litestar.di import NamedDependency
from litestar.params import QueryParameter
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Template

from claudeops import EVENT_LEVELS as LEVELS
from claudeops import db
from claudeops_events import repository
from claudeops_events.web import NAV_ORDER

SINCE_CHOICES = (("", "any time"), ("1h", "last hour"), ("24h", "last 24 h"), ("7d", "last 7 days"),
                 ("30d", "last 30 days"))
SESSION_PANEL_LIMIT = 200


def _blank_as_none(value: str | None) -> str | None:
    return value.strip() if value and value.strip() else None


@get("/events", name="events", sync_to_thread=True)
def events_page(request: HTMXRequest, web: NamedDependency[WebContext],
                level: Annotated[str | None, QueryParameter()] = None,
                service: Annotated[str | None, QueryParameter()] = None,
                since: Annotated[str | None, QueryParameter()] = None,
                session_id: Annotated[int | None, QueryParameter()] = None,
                page_number: Annotated[int, QueryParameter(name="page", ge=1)] = 1) -> Template:
    """Events, newest first; ``level``, ``service``, ``since`` (``24h``, ``7d``, an ISO time) and
    ``session_id`` combine."""
    filters: dict[str, Any] = {"level": _blank_as_none(level), "service": _blank_as_none(service),
                               "since": _blank_as_none(since), "session_id": session_id}
    with db.connection_context():
        with operator_errors():
            total = repository.count_events(**filters)
            current = Page.of(page_number, web.settings.page_size, total,
                              {key: None if value is None else str(value) for key, value in filters.items()})
            events = repository.list_events(limit=current.size, offset=current.offset, **filters)
        services = [] if wants_fragment(request) else repository.list_event_services()
    context: dict[str, Any] = {"events": events, "page": current, "levels": LEVELS, "services": services,
                               "since_choices": SINCE_CHOICES, **filters}
    return page(request, "events/page.html", "events/partials/table.html", context)


def overview_card() -> OverviewCard:
    return OverviewCard("events/partials/card.html", _card_context, order=NAV_ORDER)  # where its page is


def _card_context(web: WebContext) -> Mapping[str, Any]:
    return {"by_level": repository.count_events_by_level("24h")}


def session_panel() -> SessionPanel:
    return SessionPanel("events/partials/session_panel.html", _session_events, order=10)


def _session_events(web: WebContext, session_id: int) -> Mapping[str, Any]:
    events = repository.list_events(session_id=session_id, limit=SESSION_PANEL_LIMIT)
    return {"events": list(reversed(events)), "total": repository.count_events(session_id=session_id)}
