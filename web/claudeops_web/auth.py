"""Token authentication: with ``web.token`` set, every request must carry it.

Browsers log in once through a form and then carry a cookie derived from the token (never the
token itself); scripts send ``Authorization: Bearer <token>``. The login page and static files
stay public so the form can be shown and styled.
"""

from __future__ import annotations

import hashlib
import hmac
from http.cookies import CookieError, SimpleCookie
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import quote

from litestar import Request, get, post
from litestar.datastructures import Cookie, Headers
from litestar.di import NamedDependency
from litestar.enums import RequestEncodingType, ScopeType
from litestar.exceptions import NotAuthorizedException
from litestar.params import Body, QueryParameter
from litestar.response import Redirect, Template

from claudeops_web.context import WebContext
from claudeops_web.webhooks import is_verified_webhook

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Receive, Scope, Send

SESSION_COOKIE = "claudeops_session"
SESSION_DAYS = 30
PUBLIC_PREFIXES = ("/login", "/static/", "/manifest.webmanifest")
LOGIN_PATH = "/login"


def session_value(token: str) -> str:
    """The cookie value for a logged-in browser: a keyed hash, so the token never sits in a cookie."""
    return hmac.new(token.encode(), b"claudeops web session", hashlib.sha256).hexdigest()


def bearer_matches(headers: Headers, token: str) -> bool:
    """True when the request carries ``Authorization: Bearer <token>`` with the configured token."""
    scheme, _, value = headers.get("authorization", "").partition(" ")
    return bool(token) and scheme.lower() == "bearer" and hmac.compare_digest(value.strip(), token)


def cookie_matches(headers: Headers, token: str) -> bool:
    """True when the request carries the session cookie of the configured token."""
    try:
        morsel = SimpleCookie(headers.get("cookie", "")).get(SESSION_COOKIE)
    except CookieError:
        return False
    return bool(token) and morsel is not None and hmac.compare_digest(morsel.value, session_value(token))


class TokenAuthMiddleware:
    """Reject requests without the token; a no-op when no token is configured."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (self.token and scope["type"] == ScopeType.HTTP and not scope["path"].startswith(PUBLIC_PREFIXES)
                and not is_verified_webhook(scope)):
            headers = Headers.from_scope(scope)
            if not (bearer_matches(headers, self.token) or cookie_matches(headers, self.token)):
                raise NotAuthorizedException("this dashboard needs its access token (web.token)")
        await self.app(scope, receive, send)


def login_location(path: str, query: str) -> str:
    """Where an unauthenticated browser is sent: the login form, remembering the page it wanted."""
    wanted = path + (f"?{query}" if query else "")
    return f"{LOGIN_PATH}?next={quote(wanted, safe='')}"


def safe_next(target: str | None) -> str:
    """Only follow a local absolute path after login (never ``//host`` or a full URL)."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/"


@get(LOGIN_PATH, name="login", sync_to_thread=False, include_in_schema=False)
def login_form(next_page: Annotated[str | None, QueryParameter(name="next")] = None) -> Template:
    """The login form (public)."""
    return Template("web/login.html", context={"next_page": safe_next(next_page), "failed": False})


@post(LOGIN_PATH, sync_to_thread=False, include_in_schema=False, status_code=303)
def login(request: Request[Any, Any, Any], web: NamedDependency[WebContext],
          data: Annotated[dict[str, str], Body(media_type=RequestEncodingType.URL_ENCODED)]) -> Redirect | Template:
    """Check the submitted token; on success set the session cookie and go where the user wanted."""
    token = web.settings.token
    submitted = data.get("token", "")
    if not token or not hmac.compare_digest(submitted, token):
        return Template("web/login.html", status_code=401,
                        context={"next_page": safe_next(data.get("next")), "failed": True})
    cookie = Cookie(key=SESSION_COOKIE, value=session_value(token), httponly=True, samesite="lax",
                    secure=request.url.scheme == "https", max_age=SESSION_DAYS * 86400, path="/")
    return Redirect(safe_next(data.get("next")), cookies=[cookie], status_code=303)


@post("/logout", sync_to_thread=False, include_in_schema=False, status_code=303)
def logout() -> Redirect:
    """Forget the session cookie."""
    return Redirect(LOGIN_PATH, cookies=[Cookie(key=SESSION_COOKIE, value="", max_age=0, path="/")],
                    status_code=303)
