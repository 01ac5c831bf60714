"""The cooldowns plugin's dashboard: ``/cooldowns`` (each service's remediation actions in the
window, the limits and when a cooldown ends), its JSON API and an overview card.

Only the hook lives here; the handlers (and Litestar) are imported when the dashboard is built.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from claudeops import hookimpl

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
NAV_ORDER = 40


@hookimpl
def register_web(register: Callable[..., None]) -> None:
    from claudeops_web import NavEntry

    from claudeops_cooldowns.web import api, pages

    register(routes=[pages.cooldowns_page], api_routes=[api.list_cooldowns],
             nav=[NavEntry("Cooldowns", "/cooldowns", NAV_ORDER)], template_dir=TEMPLATES,
             overview_cards=[pages.overview_card()])
