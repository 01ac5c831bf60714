"""The memory plugin's dashboard: the ``/memories`` page, its JSON API, an overview card and the
"memories this session recorded" panel of a session's page (SPEC-0015 "Dashboard Memories Page").

Only the hook lives here; the handlers (and Litestar) are imported when the dashboard is built,
so ``claudeops run`` does not pay for the web stack.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from claudeops import hookimpl

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
NAV_ORDER = 30
"""Between Events (20) and Cooldowns (40), where SPEC-0015 puts the page."""


@hookimpl
def register_web(register: Callable[..., None]) -> None:
    from claudeops_web import NavEntry

    from claudeops_memory.web import api, pages

    register(routes=pages.ROUTES, api_routes=api.ROUTES, nav=[NavEntry("Memories", "/memories", NAV_ORDER)],
             template_dir=TEMPLATES, overview_cards=[pages.overview_card()],
             session_panels=[pages.session_panel()])
