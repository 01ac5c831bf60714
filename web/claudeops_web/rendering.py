"""One URL, two shapes: the full page for browsers, a fragment for HTMX swaps; errors likewise.

A request gets the fragment only when HTMX asked for it and is not a boosted navigation or a
history restore (both want the whole page). Responses say ``Vary: HX-Request`` so a cache never
serves one shape for the other.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from jinja2 import Environment
from litestar import Request, Response
from litestar.exceptions import (
    HTTPException,
    NotAuthorizedException,
    NotFoundException,
    ServiceUnavailableException,
    ValidationException,
)
from litestar.params import ParameterKwarg
from litestar.plugins.htmx import HTMXRequest
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.response import Redirect, Template
from litestar.status_codes import HTTP_409_CONFLICT, HTTP_500_INTERNAL_SERVER_ERROR
from litestar.types import RouteHandlerType
from litestar.utils.scope.state import ScopeState
from markupsafe import Markup

from claudeops import bytes_problem, is_locked, storage_problem
from claudeops_web.auth import login_location

log = logging.getLogger(__name__)

API_PREFIX = "/api/"
VARY = {"Vary": "HX-Request"}
CHANGED_EVENT_HEADER = "HX-Trigger"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
ENCODE_AS_UTF8 = "send it encoded as UTF-8"
"""What a 400 about a body that is not UTF-8 asks of the client."""
RETRY_AFTER_SECONDS = 5
"""What a request refused because the database was locked is told to wait: about one busy timeout."""
BUSY = ("the database is locked by another process (a run recording its session, or an open sqlite3 shell); "
        "nothing was saved: try again in a few seconds")


def wants_fragment(request: Request[Any, Any, Any]) -> bool:
    """True for an HTMX swap (not a boosted link, not a history restore).

    The HTMX plugin makes every request of the dashboard an ``HTMXRequest``; any other is a plain page load.
    """
    if not isinstance(request, HTMXRequest):
        return False
    htmx = request.htmx
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request


def page(request: Request[Any, Any, Any], template: str, fragment: str, context: Mapping[str, Any],
         status_code: int = 200, headers: Mapping[str, str] | None = None) -> Template:
    """Render ``fragment`` for HTMX swaps and ``template`` (which includes it) otherwise."""
    name = fragment if wants_fragment(request) else template
    return Template(template_name=name, context=dict(context), headers={**VARY, **(headers or {})},
                    status_code=status_code)


def rendered(request: Request[Any, Any, Any], template: str, context: Mapping[str, Any]) -> Markup:
    """``template`` rendered with ``context`` (and the environment's globals) as markup: a part of a page
    kept in :mod:`claudeops.data_cache` and put into the page as it is."""
    return Markup(jinja_environment(request).get_template(template).render(context))


def jinja_environment(request: Request[Any, Any, Any]) -> Environment:
    """The dashboard's Jinja environment: its templates, filters and globals (for rendering a macro from Python)."""
    engine = request.app.template_engine
    if not isinstance(engine, JinjaTemplateEngine):
        raise TypeError("the dashboard renders with Jinja")
    return engine.engine


def changed(event: str, status_code: int = 200) -> Response[str]:
    """An empty response that tells the page (via ``HX-Trigger``) to refresh what ``event`` names."""
    return Response("", status_code=status_code, headers={CHANGED_EVENT_HEADER: event}, media_type="text/html")


def error_message(exc: HTTPException, extra: Any) -> str:
    """The detail plus, for validation failures, which parameter was wrong and why (from ``extra``)."""
    detail = str(exc.detail)
    if isinstance(exc, ValidationException) and isinstance(extra, list):
        reasons = [f"{item.get('key', '?')}: {item.get('message', '')}" for item in extra
                   if isinstance(item, Mapping)]
        if reasons:
            return f"{detail} ({'; '.join(reasons)})"
    return detail


def sent_names(request: Request[Any, Any, Any], extra: Any) -> Any:
    """Validation reasons keyed by the name the client sent (``page``), not the Python one (``page_number``).

    Litestar reports the handler's parameter name even when ``QueryParameter(name=...)`` gives the
    URL another; a message naming something the user never typed does not help them fix it.
    """
    handler: RouteHandlerType | None = request.scope.get("route_handler")  # absent when routing failed
    if handler is None or not isinstance(extra, list):
        return extra
    aliases: dict[str, str] = {}
    for name, field in handler.parsed_fn_signature.parameters.items():
        kwarg = field.kwarg_definition
        if isinstance(kwarg, ParameterKwarg):
            aliases[name] = kwarg.name or kwarg.query or kwarg.header or kwarg.cookie or name
    return [{**item, "key": aliases.get(item["key"], item["key"])} if isinstance(item, Mapping) and "key" in item
            else item for item in extra]


def referring_page(request: Request[Any, Any, Any]) -> str | None:
    """The local path and query of the page a request came from, when the Referer is this dashboard.

    An error page after a failed form post links back there (filters and page kept); a Referer
    from another site is never followed.
    """
    referer = urlsplit(request.headers.get("referer", ""))
    if not referer.netloc or referer.netloc != request.headers.get("host") or not referer.path.startswith("/"):
        return None
    return urlunsplit(("", "", referer.path, referer.query, ""))


MACHINE_READABLE = "machine_readable"
"""A route handler's ``opt`` key: set it (``opt={"machine_readable": True}``) on a page outside ``/api/v1``
that programs read (``/metrics``), so its errors are answered like the API's (a 401 rather than a
redirect to the login form)."""


def answers_machines(request: Request[Any, Any, Any]) -> bool:
    handler: Any = request.scope.get("route_handler")  # absent when no route matched
    return bool(handler is not None and handler.opt.get(MACHINE_READABLE))


def handle_http_exception(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    """JSON under ``/api/``; a login redirect for a missing token; an error fragment or page otherwise."""
    status = exc.status_code
    extra = sent_names(request, exc.extra) if isinstance(exc, ValidationException) else exc.extra
    if request.url.path.startswith(API_PREFIX) or answers_machines(request):
        body: dict[str, Any] = {"status_code": status, "detail": str(exc.detail)}
        if extra:
            body["extra"] = extra
        return Response(body, status_code=status, headers=exc.headers)
    if isinstance(exc, NotAuthorizedException):
        location = login_location(request.url.path, request.url.query)
        if wants_fragment(request):
            return Response("", status_code=status, headers={"HX-Redirect": location})
        return Redirect(location, status_code=303)
    unsaved = request.method not in SAFE_METHODS
    context = {"status_code": status, "message": error_message(exc, extra), "unsaved": unsaved,
               "back": referring_page(request) if unsaved else None}
    return page(request, "web/error.html", "web/partials/error.html", context, status_code=status,
                headers=exc.headers)


def handle_internal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[Any]:
    """Log the traceback; show the operator one line, never the traceback.

    A database that stayed locked through SQLite's busy timeout (a run recording a session, an
    operator's ``sqlite3`` shell) is no internal error: 503 with ``Retry-After``, nothing saved.
    """
    if is_locked(exc):
        log.warning("dashboard request %s %s: %s", request.method, request.url.path, BUSY)
        return handle_http_exception(request, ServiceUnavailableException(
            detail=BUSY, headers={"Retry-After": str(RETRY_AFTER_SECONDS)}))
    log.exception("dashboard request %s %s failed", request.method, request.url.path)
    detail = storage_problem(exc) or f"internal error ({type(exc).__name__}); see the server log"
    return handle_http_exception(request, HTTPException(status_code=HTTP_500_INTERNAL_SERVER_ERROR, detail=detail))


def handle_undecodable_body(request: Request[Any, Any, Any], exc: UnicodeDecodeError) -> Response[Any]:
    """A request body that is not UTF-8 is the client's mistake: a 400 naming the first bad byte.

    Litestar decodes a JSON body only when the handler asks for it, and lets the decoder's
    ``UnicodeDecodeError`` escape; any other ``UnicodeDecodeError`` is still a bug of ours (500).
    The wording is :func:`claudeops.bytes_problem`'s, as for every other path (forms:
    :mod:`claudeops_web.forms`).
    """
    body = ScopeState.from_scope(request.scope).body
    problem = bytes_problem(body) if isinstance(body, bytes) else None
    if problem is None:
        return handle_internal_error(request, exc)
    return handle_http_exception(request, ValidationException(f"the request body is {problem}; {ENCODE_AS_UTF8}"))


@contextmanager
def operator_errors() -> Iterator[None]:
    """A plugin's repository errors as HTTP errors: a bad value (``ValueError``) is a 400, an unknown
    id (``KeyError``) a 404, each with the repository's one-line message."""
    try:
        yield
    except KeyError as exc:
        raise NotFoundException(str(exc.args[0]) if exc.args else "not found") from None
    except ValueError as exc:
        raise ValidationException(str(exc)) from None


class StateConflict(HTTPException):
    """409: the request is well formed but cannot be done as things stand (undo a change that a later
    one built on, review an item already decided); the detail says what would have to change first."""

    status_code = HTTP_409_CONFLICT


@contextmanager
def state_conflicts() -> Iterator[None]:
    """Like :func:`operator_errors` for operations that depend on what is stored now: an unknown id is
    a 404, a refusal (``ValueError``) a 409 with its one-line reason rather than a 400, since no
    change to the request alone would make it succeed."""
    try:
        yield
    except KeyError as exc:
        raise NotFoundException(str(exc.args[0]) if exc.args else "not found") from None
    except ValueError as exc:
        raise StateConflict(detail=str(exc)) from None
