"""The inventory's part of the JSON API: services with their status, and maintenance pauses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from claudeops_web.context import WebContext
from litestar import delete, get, post
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException, ValidationException
from litestar.params import FromPath, JSONBody, Parameter, QueryParameter

from claudeops import MAX_SERVICE_LENGTH, db, end_pauses, pause_service, utc_now
from claudeops_inventory.web.board import board
from claudeops_inventory.web.pages import pause_until

ServiceName = Annotated[str | None, Parameter(pattern=f"^[A-Za-z0-9_.-]{{1,{MAX_SERVICE_LENGTH}}}$",
                                              description="a service of the inventory; omitted: every service")]
"""What the OpenAPI document says ``service`` accepts (``claudeops.service_name`` with dots); the
handler still checks it with its own one-line message."""


@dataclass(frozen=True)
class PauseIn:
    """``POST /api/v1/pauses``: ``service`` (omit it for every service), ``for`` as ``2h``, a ``reason``."""

    duration: str
    service: ServiceName = None
    reason: str = ""


@dataclass(frozen=True)
class PauseOut:
    service: str
    until: str
    reason: str


@dataclass(frozen=True)
class Ended:
    ended: int


@get("/services", sync_to_thread=True, tags=["services"])
def list_services(web: NamedDependency[WebContext]) -> list[dict[str, Any]]:
    """Every inventory service (dependency order) with its status (up, degraded, down, unknown), since when,
    its maintenance; then the services events named that the inventory does not declare (``in_inventory``
    false)."""
    with db.connection_context():
        return [row.as_dict() for row in board(web).rows]


@get("/services/{name:str}", sync_to_thread=True, tags=["services"], raises=[NotFoundException])
def get_service(web: NamedDependency[WebContext], name: FromPath[str]) -> dict[str, Any]:
    """One service, with ``needed_by`` (the services that run after it)."""
    with db.connection_context():
        row = next((row for row in board(web).rows if row.name == name.lower()), None)
    if row is None:
        raise NotFoundException(f"no service {name!r} in the inventory or the events")
    return row.as_dict() | {"needed_by": web.config.inventory.dependents(row.name)}


@post("/pauses", sync_to_thread=True, status_code=201, tags=["services"])
def create_pause(data: JSONBody[PauseIn]) -> PauseOut:
    """Put a service (or every service) in maintenance for ``duration`` (``30m``, ``2h``, ``1d``; at most 30 days)."""
    now = utc_now()
    with db.connection_context():
        try:
            pause = pause_service(data.service, now + pause_until(data.duration), data.reason, "api", now=now)
        except ValueError as exc:
            raise ValidationException(str(exc)) from None
    return PauseOut(pause.service, pause.until, pause.reason)


@delete("/pauses", sync_to_thread=True, status_code=200, tags=["services"])
def end_pause(service: Annotated[str | None, QueryParameter()] = None) -> Ended:
    """End the operator's pauses of ``service`` (omitted: the global one) now."""
    with db.connection_context():
        return Ended(end_pauses(service))
