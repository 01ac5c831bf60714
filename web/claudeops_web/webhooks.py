"""Webhook paths: requests from machines (Alertmanager, Uptime Kuma…) that prove themselves with a
bearer token instead of a browser's login.

A monitoring server cannot log in, keep a CSRF cookie or use a loopback name, and a forged
browser request cannot carry an ``Authorization`` header; so on a path a plugin registered as a
webhook the bearer token is the whole check: ``web.alert_token`` (a token for senders only, which
opens nothing else) or ``web.token``. With neither set, every request there is refused. A request
that passes is marked in its scope, and the login, CSRF and Host checks let it through.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from litestar.datastructures import Headers
from litestar.enums import ScopeType
from litestar.exceptions import NotAuthorizedException

from claudeops_web.throttle import LoginThrottle, client_address
from claudeops_web.tokens import bearer_matches

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Receive, Scope, Send

VERIFIED = "claudeops.webhook"
"""Scope key set on a webhook request whose bearer token matched."""


def is_verified_webhook(scope: Scope) -> bool:
    return bool(scope.get(VERIFIED))


class WebhookAuthMiddleware:
    """Outermost: on webhook paths, require the bearer token (or refuse all) and mark the request."""

    def __init__(self, app: ASGIApp, paths: Iterable[str], tokens: Iterable[str], throttle: LoginThrottle) -> None:
        self.app = app
        self.paths = frozenset(paths)
        self.tokens = [token for token in tokens if token]
        self.throttle = throttle

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP and scope["path"] in self.paths:
            if not self.tokens:
                raise NotAuthorizedException("alerts are refused: no token is configured (set web.alert_token, and "
                                             "send it as 'Authorization: Bearer <token>')")
            # a wrong token counts as a failed login does
            attempt = self.throttle.reserve_or_refuse(client_address(scope))
            headers = Headers.from_scope(scope)  # compared as bytes: a token that is not ASCII is only wrong
            if not any(bearer_matches(headers, token) for token in self.tokens):
                raise NotAuthorizedException("this endpoint needs 'Authorization: Bearer <web.alert_token>'")
            self.throttle.release(attempt)
            scope[VERIFIED] = True  # type: ignore[literal-required]
        await self.app(scope, receive, send)
