"""CSRF protection for every state-changing request, except API calls carrying the bearer token.

Two checks, both needed: the request must come from the dashboard's own origin
(:mod:`claudeops_web.origin`), and it must carry the CSRF token (Litestar's ``CSRFMiddleware``,
double submit: cookie ``csrftoken`` + header ``x-csrftoken`` or form field ``_csrf_token``).
The cookie is ``HttpOnly``: the token reaches the page inside it (``csrf_token()`` in
``base.html`` and every form), so a script of another port on the same host, which shares the
cookie jar, cannot read it. Litestar's middleware only knows path and per-handler exclusions; a
script that proves itself with the bearer token cannot be a forged browser request (browsers
never add that header on their own), so this wrapper lets such requests through and hands the
rest to the checks.

The signing secret is kept in the state directory: a secret that changed on every restart would
leave browsers holding a cookie no form could ever match again.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from litestar.config.csrf import CSRFConfig
from litestar.datastructures import Headers
from litestar.enums import ScopeType
from litestar.exceptions import PermissionDeniedException
from litestar.middleware.csrf import CSRFMiddleware

from claudeops_web.origin import cross_origin_problem
from claudeops_web.tokens import bearer_matches
from claudeops_web.webhooks import is_verified_webhook

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Receive, Scope, Send

SECRET_FILE = "web-csrf-secret"


def load_or_create_secret(state_dir: Path) -> str:
    """The CSRF signing secret of this installation, created (mode 0600) on first use."""
    path = state_dir / SECRET_FILE
    try:
        existing = path.read_text().strip()
    except FileNotFoundError:
        existing = ""
    if len(existing) >= 32:
        return existing
    state_dir.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_hex(32)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(secret + "\n")
    return secret


def csrf_config(secret: str) -> CSRFConfig:
    return CSRFConfig(secret=secret, cookie_name="csrftoken", header_name="x-csrftoken", cookie_samesite="lax",
                      cookie_httponly=True)


class CSRFUnlessBearerMiddleware:
    """The same-origin and CSRF checks, skipped for requests authenticated by the bearer token."""

    def __init__(self, app: ASGIApp, config: CSRFConfig, token: str) -> None:
        self.app = app
        self.token = token
        self.csrf = CSRFMiddleware(app, config)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP:
            headers = Headers.from_scope(scope)
            if is_verified_webhook(scope) or (self.token and bearer_matches(headers, self.token)):
                await self.app(scope, receive, send)
                return
            problem = cross_origin_problem(scope["method"], headers, scope["scheme"])
            if problem:
                raise PermissionDeniedException(problem)
        await self.csrf(scope, receive, send)
