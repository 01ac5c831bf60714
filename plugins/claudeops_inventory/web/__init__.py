"""The inventory plugin's dashboard: the status board of the overview, ``/services`` and each service's
page (Run now, Pause), and their JSON API.

Only the hook lives here; the handlers (and Litestar) are imported when the dashboard is built.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from claudeops import hookimpl

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
NAV_ORDER = 5
"""Right after the Overview (0), before Sessions (10): the fleet is what an operator looks at first."""


@hookimpl
def register_web(register: Callable[..., None]) -> None:
    from claudeops_web import NavEntry

    from claudeops_inventory.web import api, pages

    register(routes=[pages.services_page, pages.service_page, pages.pause_form, pages.end_pause_form],
             api_routes=[api.list_services, api.get_service, api.create_pause, api.end_pause],
             nav=[NavEntry("Services", "/services", NAV_ORDER)], template_dir=TEMPLATES,
             overview_cards=[pages.status_board()])
