"""The events plugin's dashboard: ``/events`` (filterable, polling), its JSON API, an overview
card and the "events of this session" panel.

Only the hook lives here; the handlers (and Litestar) are imported when the dashboard is built.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from claudeops import hookimpl

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
NAV_ORDER = 20


@hookimpl
def register_web(register: Callable[..., None]) -> None:
    from claudeops_web import NavEntry

    from claudeops_events.web import api, pages

    register(routes=[pages.events_page], api_routes=[api.list_events],
             nav=[NavEntry("Events", "/events", NAV_ORDER)], template_dir=TEMPLATES,
             overview_cards=[pages.overview_card()], session_panels=[pages.session_panel()])
