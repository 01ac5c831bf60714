"""The memory plugin's dashboard: the ``/memories`` page, each memory's timeline, the recent
changes, the review queue, their JSON API, two overview cards (memories, review) and the memory
panel of a session's page (SPEC-0015 "Dashboard Memories Page", issue 14).

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
REVIEW_ORDER = 31
"""The review queue, right after the memories it is about."""


@hookimpl
def register_web(register: Callable[..., None]) -> None:
    from claudeops_web import NavEntry

    from claudeops_memory.web import api, history_pages, pages, review_pages, trust_api

    register(routes=[*pages.ROUTES, *history_pages.ROUTES, *review_pages.ROUTES],
             api_routes=[*api.ROUTES, *trust_api.ROUTES],
             nav=[NavEntry("Memories", "/memories", NAV_ORDER),
                  NavEntry("Review", review_pages.REVIEW_PATH, REVIEW_ORDER)],
             template_dir=TEMPLATES, overview_cards=[pages.overview_card(), review_pages.review_card()],
             session_panels=[pages.session_panel()])
