"""Run now and Stop: the operator starts a session from the dashboard (or the API) and can end it.

A run started here is ``claudeops run`` as a child process under the same run lock as cron's
(:func:`claudeops.start_run`); the handler answers as soon as the session row exists, with the
session's id, and the page goes to its live view. A busy lock is a 409 that links the running
session. The operator's instruction is passed to the run as their request: the prompt quotes it
under its own heading, redacted, after everything the system says.

Stop sends SIGTERM to the run holding the lock (:func:`claudeops.stop_session`), as ``kill`` would:
the session ends ``interrupted`` and the Claude Code CLI is stopped with it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from litestar import Response, post
from litestar.di import NamedDependency
from litestar.exceptions import HTTPException, NotFoundException, ServiceUnavailableException, ValidationException
from litestar.params import FromPath, JSONBody, Parameter
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Redirect, Template
from litestar.status_codes import HTTP_409_CONFLICT

from claudeops import LaunchError, RunBusy, RunOrder, StopRefused, db, service_name, start_run, stop_session
from claudeops_web.context import WebContext
from claudeops_web.forms import FormData
from claudeops_web.rendering import page

MAX_INSTRUCTION = 2000
"""An instruction is a request, not a document: longer text is refused rather than cut."""



@dataclass(frozen=True)
class RunIn:
    """``POST /api/v1/runs``: the tier (1 by default), an optional instruction and service to focus on."""

    # What the OpenAPI document says each field accepts; run_order still checks each with its own
    # one-line message (max_tier may be set below 3; a blank instruction or service means none).
    tier: Annotated[int, Parameter(ge=1, le=3, description="1 to max_tier")] = 1
    instruction: Annotated[str | None, Parameter(max_length=MAX_INSTRUCTION)] = None
    service: Annotated[str | None, Parameter(pattern=r"^\s*([A-Za-z0-9_.-]{1,100}\s*)?$",
                                             description="a service to check first; blank: none")] = None


@dataclass(frozen=True)
class RunStarted:
    session_id: int
    url: str


@dataclass(frozen=True)
class StopSent:
    session_id: int
    signalled_pid: int


def session_url(session_id: int) -> str:
    return f"/sessions/{session_id}"


def run_order(web: WebContext, tier: Any, instruction: str | None, service: str | None, source: str) -> RunOrder:
    """The order for ``claudeops run``, checked: a tier up to ``max_tier``, a bounded instruction, a service name."""
    top = web.config.core.max_tier
    try:
        tier_number = int(str(tier).strip() or "1")
    except ValueError:
        tier_number = 0
    if not 1 <= tier_number <= top:
        raise ValidationException(f"tier must be 1 to {top} (max_tier), not {tier!r}")
    words = (instruction or "").strip()
    if len(words) > MAX_INSTRUCTION:
        raise ValidationException(f"the instruction is {len(words)} characters long; keep it under "
                                  f"{MAX_INSTRUCTION}")
    focus = ""
    if service and service.strip():
        try:
            focus = f"Check {service_name(service, dots=True)} first."
        except ValueError as exc:
            raise ValidationException(str(exc)) from None
    request = "\n".join(part for part in (focus, words) if part) or None
    return RunOrder(tier=tier_number, trigger="manual", trigger_source=source, operator_request=request)


def launch(web: WebContext, order: RunOrder) -> RunStarted:
    """Start the run; a busy lock is a 409 carrying the running session, a failed start a 503."""
    try:
        with db.connection_context():
            started = start_run(web.config, order, web.settings.run_command)
    except RunBusy as exc:
        raise BusyException(str(exc), exc.session_id) from None
    except LaunchError as exc:
        raise ServiceUnavailableException(detail=str(exc)) from None
    return RunStarted(started.session_id, session_url(started.session_id))


class NotStoppableException(HTTPException):
    """409: the session is not running here (it ended, or another runner sharing the database runs it)."""

    status_code = HTTP_409_CONFLICT


class BusyException(HTTPException):
    """409: another run holds the lock; ``extra`` names its session and where to watch it."""

    status_code = HTTP_409_CONFLICT

    def __init__(self, detail: str, session_id: int | None) -> None:
        extra: dict[str, Any] = {"running_session_id": session_id,
                                 "url": session_url(session_id) if session_id is not None else "/sessions"}
        super().__init__(detail=detail, extra=extra)


def _text(data: Mapping[str, Any], name: str) -> str | None:
    value = data.get(name)
    if isinstance(value, list):
        value = value[-1] if value else None
    return None if value is None else str(value)


@post("/runs", sync_to_thread=True, status_code=303)
def run_now(request: HTMXRequest, web: NamedDependency[WebContext], data: FormData) -> Response[Any]:
    """The Run now form: start the run, then go to its live view (a 409 page when a run is busy)."""
    order = run_order(web, _text(data, "tier") or "1", _text(data, "instruction"), _text(data, "service"),
                      "dashboard")
    try:
        started = launch(web, order)
    except BusyException as exc:
        return busy_page(request, exc)
    if request.htmx:
        return Response("", status_code=200, headers={"HX-Redirect": started.url}, media_type="text/html")
    return Redirect(started.url, status_code=303)


def busy_page(request: HTMXRequest, exc: BusyException) -> Template:
    context = {"message": exc.detail, **(exc.extra if isinstance(exc.extra, dict) else {})}
    return page(request, "runs/busy.html", "runs/partials/busy.html", context, status_code=HTTP_409_CONFLICT)


@post("/runs", sync_to_thread=True, status_code=201, tags=["runs"],
      raises=[BusyException, ServiceUnavailableException])
def create_run(web: NamedDependency[WebContext], data: JSONBody[RunIn]) -> RunStarted:
    """Start ``claudeops run`` now (tier, optional instruction and service); answers once its session exists.

    409 when another run holds the lock (``extra.running_session_id`` and ``extra.url`` name it),
    503 when the run could not start (its own one-line reason).
    """
    return launch(web, run_order(web, data.tier, data.instruction, data.service, "api"))


@post("/sessions/{session_id:int}/stop", sync_to_thread=True, status_code=303)
def stop_form(request: HTMXRequest, web: NamedDependency[WebContext], session_id: FromPath[int]) -> Response[Any]:
    """The Stop button (confirmed on the page): SIGTERM to the run, then back to the session's page."""
    stop(web, session_id)
    target = session_url(session_id)
    if request.htmx:
        return Response("", status_code=200, headers={"HX-Redirect": target}, media_type="text/html")
    return Redirect(target, status_code=303)


@post("/sessions/{session_id:int}/stop", sync_to_thread=True, status_code=202, tags=["sessions"],
      raises=[NotFoundException, NotStoppableException])
def stop_api(web: NamedDependency[WebContext], session_id: FromPath[int]) -> StopSent:
    """Interrupt a running session as SIGTERM does (409 when it is not running here)."""
    return StopSent(session_id, stop(web, session_id))


def stop(web: WebContext, session_id: int) -> int:
    try:
        with db.connection_context():
            return stop_session(web.config, session_id)
    except KeyError as exc:
        raise NotFoundException(str(exc.args[0])) from None
    except StopRefused as exc:
        raise NotStoppableException(detail=str(exc)) from None
