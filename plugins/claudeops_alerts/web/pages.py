"""``/alerts``: what the monitoring sent and what became of it; the session page's alerts panel."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from claudeops_web.context import WebContext
from claudeops_web.rendering import page
from litestar import get
from litestar.di import NamedDependency
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Template

from claudeops import db
from claudeops_alerts import queue

PAGE_ROWS = 100


@get("/alerts", name="alerts", sync_to_thread=True)
def alerts_page(request: HTMXRequest, web: NamedDependency[WebContext]) -> Template:
    """The newest alerts: source, state (queued, started, repeat…), the run they started."""
    with db.connection_context():
        alerts = queue.recent_alerts(PAGE_ROWS)
    context = {"alerts": alerts, "token_set": bool(web.settings.alert_token or web.settings.token)}
    return page(request, "alerts/page.html", "alerts/partials/table.html", context)


def session_alerts(web: WebContext, session_id: int) -> Mapping[str, Any]:
    return {"alerts": queue.alerts_of_session(session_id)}
