"""The errors the host's middleware gives every API route, written into the OpenAPI schema.

Litestar documents what a handler declares (its ``raises``, its parameters' 400) but cannot see
the middleware in front of it: the token check (401, only when ``web.token`` is set, and 429 after
too many wrong tokens) and the
CSRF check (403, on every state-changing method). This plugin adds both to each API operation
as its route is registered, so a client generated from the schema expects them. Handlers are
copies owned by this app, so plugins' module-level handlers are not changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litestar.openapi.datastructures import ResponseSpec
from litestar.plugins import ReceiveRoutePlugin
from litestar.routes import BaseRoute, HTTPRoute

from claudeops_web.origin import UNSAFE_METHODS  # the methods the CSRF and Origin checks guard


@dataclass(frozen=True)
class ApiError:
    """Every API error's body: ``extra`` lists the field and reason of a validation failure."""

    status_code: int
    detail: str
    extra: list[dict[str, Any]] | dict[str, Any] | None = None


UNAUTHORIZED = ResponseSpec(ApiError, generate_examples=False,
                            description="No valid token: send 'Authorization: Bearer <web.token>'")
THROTTLED = ResponseSpec(ApiError, generate_examples=False,
                         description="Too many wrong tokens from this client (5 a minute): wait the Retry-After "
                                     "seconds")
CSRF_REFUSED = ResponseSpec(ApiError, generate_examples=False,
                            description="Sent by a page of another origin, or the CSRF check failed: send the "
                                        "csrftoken cookie's value as x-csrftoken (requests with the bearer token "
                                        "are exempt from both)")


class MiddlewareErrorResponses(ReceiveRoutePlugin):
    """Adds 401 (with a token configured) and 403 (state-changing methods) to routes under ``prefix``."""

    def __init__(self, prefix: str, token_required: bool) -> None:
        self.prefix = prefix
        self.token_required = token_required

    def receive_route(self, route: BaseRoute) -> None:
        if not isinstance(route, HTTPRoute) or not route.path.startswith(self.prefix):
            return
        for handler in route.route_handlers:
            added: dict[int, ResponseSpec] = {401: UNAUTHORIZED, 429: THROTTLED} if self.token_required else {}
            if handler.http_methods & UNSAFE_METHODS:
                added[403] = CSRF_REFUSED
            if added:
                handler.responses = {**added, **(handler.responses or {})}
