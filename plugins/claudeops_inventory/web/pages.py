"""``/services`` and ``/services/<name>``: every service, where it stands, and the operator's buttons
(Run now for it, Pause it, end its pause); the overview's status board."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from claudeops_web import OverviewCard
from claudeops_web.context import WebContext
from claudeops_web.forms import FormData
from claudeops_web.rendering import page
from litestar import Response, get, post
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException, ValidationException
from litestar.params import FromPath
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Redirect, Template

from claudeops import db, end_pauses, parse_duration, pause_service, utc_now
from claudeops_inventory.web.board import board, card_context

PAUSE_CHOICES = (("30m", "30 minutes"), ("1h", "1 hour"), ("2h", "2 hours"), ("4h", "4 hours"), ("8h", "8 hours"),
                 ("1d", "1 day"))
"""A longer pause is forgotten maintenance: remove the service from the inventory, or set remediate = false."""


def status_board() -> OverviewCard:
    """The overview's first, full-width card: one row per service with its status colour."""
    return OverviewCard("services/partials/board_card.html", card_context, order=-10, wide=True)


@get("/services", name="services", sync_to_thread=True)
def services_page(request: HTMXRequest, web: NamedDependency[WebContext]) -> Template:
    """Every inventory service (dependency order), then the services events named outside it."""
    with db.connection_context():
        context = card_context(web)
    context["pause_choices"] = PAUSE_CHOICES
    return page(request, "services/page.html", "services/partials/table.html", context)


@get("/services/{name:str}", name="service", sync_to_thread=True)
def service_page(request: HTMXRequest, web: NamedDependency[WebContext], name: FromPath[str]) -> Template:
    """One service: how it runs, its dependencies and dependents, its status, Run now and Pause."""
    with db.connection_context():
        rows = board(web).rows
    row = next((row for row in rows if row.name == name.lower()), None)
    if row is None:
        raise NotFoundException(f"no service {name!r} in the inventory or the events")
    context = {"row": row, "needed_by": web.config.inventory.dependents(row.name), "pause_choices": PAUSE_CHOICES,
               "max_tier": web.config.core.max_tier, "flag_strangers": bool(web.config.inventory)}
    return page(request, "services/detail.html", "services/partials/detail_body.html", context)


def _text(data: Mapping[str, Any], name: str) -> str:
    value = data.get(name)
    if isinstance(value, list):
        value = value[-1] if value else ""
    return "" if value is None else str(value).strip()


def pause_until(duration: str) -> timedelta:
    """The length of a pause the operator asked for (``pause_service`` bounds it); a 400 with the reason otherwise."""
    try:
        return parse_duration(duration)
    except ValueError as exc:
        raise ValidationException(f"for: {exc}") from None


def _back(request: HTMXRequest, target: str) -> Response[Any]:
    if request.htmx:
        return Response("", status_code=200, headers={"HX-Redirect": target}, media_type="text/html")
    return Redirect(target, status_code=303)


@post("/pauses", sync_to_thread=True, status_code=303)
def pause_form(request: HTMXRequest, data: FormData) -> Response[Any]:
    """Pause a service (``service``; empty: every service) for ``for`` (``2h``) with a ``reason``."""
    service = _text(data, "service") or None
    length = pause_until(_text(data, "for") or "1h")
    now = utc_now()
    with db.connection_context():
        try:
            pause_service(service, now + length, _text(data, "reason"), "dashboard", now=now)
        except ValueError as exc:
            raise ValidationException(str(exc)) from None
    return _back(request, f"/services/{service}" if service else "/services")


@post("/pauses/end", sync_to_thread=True, status_code=303)
def end_pause_form(request: HTMXRequest, data: FormData) -> Response[Any]:
    """End the operator's pause of ``service`` (empty: the global one) now."""
    service = _text(data, "service") or None
    with db.connection_context():
        end_pauses(service)
    return _back(request, f"/services/{service}" if service else "/services")
