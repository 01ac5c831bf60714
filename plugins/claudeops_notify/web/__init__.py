"""The notify plugin's dashboard: ``/notifications`` (what was sent, failed or held back, and why),
its JSON API and an overview card.

Only the hook lives here; the handlers (and Litestar) are imported when the dashboard is built.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from claudeops import hookimpl

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
NAV_ORDER = 50


@hookimpl
def register_web(register: Callable[..., None]) -> None:
    from claudeops_web import NavEntry

    from claudeops_notify.web import api, pages

    register(routes=[pages.notifications_page], api_routes=[api.list_notifications],
             nav=[NavEntry("Notifications", "/notifications", NAV_ORDER)], template_dir=TEMPLATES,
             overview_cards=[pages.overview_card()])
