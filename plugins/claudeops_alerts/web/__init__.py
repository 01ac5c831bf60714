"""The alerts plugin's dashboard: ``POST /api/v1/alerts`` (a webhook, bearer token only), ``/alerts``,
the "alerts that started this session" panel, and the background task that starts queued alerts.

Only the hook lives here; the handlers (and Litestar) are imported when the dashboard is built.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from claudeops import hookimpl

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
NAV_ORDER = 25
ALERTS_WEBHOOK = "/api/v1/alerts"


@hookimpl
def register_web(register: Callable[..., None]) -> None:
    from claudeops_web import NavEntry, SessionPanel

    from claudeops_alerts.web import api, pages

    register(routes=[pages.alerts_page], api_routes=[api.receive_alerts],
             nav=[NavEntry("Alerts", "/alerts", NAV_ORDER)], template_dir=TEMPLATES,
             session_panels=[SessionPanel("alerts/partials/session_panel.html", pages.session_alerts, order=5)],
             tasks=[api.run_alert_queue], webhooks=[ALERTS_WEBHOOK])
