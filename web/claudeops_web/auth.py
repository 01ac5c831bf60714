"""Token authentication: with ``web.token`` set, every request must carry it.

Browsers log in once through a form and then carry a session cookie (never the token itself);
scripts send ``Authorization: Bearer <token>``. The login page and static files stay public so
the form can be shown and styled.

Cookies are not scoped by port: a browser sends the dashboard's cookie to every service on the
same host name. So the session cookie is bound to this dashboard: its name carries the port, and
its value is signed with a secret of the installation (the state directory's), the token, the port
and the time it was issued. Another service that sees the cookie learns nothing about the token
and cannot use it on another port; it expires after :data:`SESSION_DAYS` whatever the browser
does; changing the token ends every session. Failed token checks are limited per client
(:class:`LoginThrottle`) so the token cannot be guessed: the login form, a wrong ``Authorization``
header on any path and a wrong webhook token all count against one limit. A client is its socket
address: ``claudeops web`` does not read ``X-Forwarded-For`` (uvicorn's ``proxy_headers`` is off
unless ``web.trust_proxy_headers`` says a reverse proxy sets it), which a client could otherwise
change with every guess.
"""

from __future__ import annotations

import hashlib
import hmac
import time
from dataclasses import dataclass
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
from claudeops_web.throttle import LoginThrottle, client_address
from claudeops_web.tokens import bearer_matches, same_text
from claudeops_web.webhooks import is_verified_webhook

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Receive, Scope, Send

SESSION_COOKIE = "claudeops_session"
"""The session cookie's name before its port: ``claudeops_session_8080``."""
SESSION_DAYS = 30
CLOCK_SKEW_SECONDS = 60
PUBLIC_PREFIXES = ("/login", "/static/", "/manifest.webmanifest")
LOGIN_PATH = "/login"


@dataclass(frozen=True)
class LoginSessions:
    """Issues and checks the session cookies of one dashboard: its token, secret and port."""

    token: str
    secret: str
    port: int

    @property
    def cookie_name(self) -> str:
        return f"{SESSION_COOKIE}_{self.port}"

    def issue(self, now: float | None = None) -> str:
        """A new cookie value: when it was issued, and the signature binding it to this dashboard."""
        issued = int(time.time() if now is None else now)
        return f"{issued}.{self._signature(issued)}"

    def accepts(self, value: str, now: float | None = None) -> bool:
        """True for a value this dashboard issued less than :data:`SESSION_DAYS` ago."""
        issued_text, _, signature = value.partition(".")
        if not issued_text.isdigit() or not self.token:
            return False
        issued = int(issued_text)
        age = (time.time() if now is None else now) - issued
        if not -CLOCK_SKEW_SECONDS <= age <= SESSION_DAYS * 86400:
            return False
        return same_text(signature, self._signature(issued))

    def cookie_matches(self, headers: Headers) -> bool:
        """True when the request carries a valid session cookie of this dashboard."""
        try:
            morsel = SimpleCookie(headers.get("cookie", "")).get(self.cookie_name)
        except CookieError:
            return False
        return morsel is not None and self.accepts(morsel.value)

    def _signature(self, issued: int) -> str:
        key = f"{self.secret}|{self.token}".encode()
        return hmac.new(key, f"claudeops web session|{self.port}|{issued}".encode(), hashlib.sha256).hexdigest()




class TokenAuthMiddleware:
    """Reject requests without the token; a no-op when no token is configured.

    A request that sends an ``Authorization`` header is a try of the token: a wrong one counts in
    the throttle like a failed login, and a throttled client is answered 429 before its header is
    compared. A request with no credentials (a browser not logged in yet) guesses nothing and is not
    counted.
    """

    def __init__(self, app: ASGIApp, sessions: LoginSessions, throttle: LoginThrottle) -> None:
        self.app = app
        self.sessions = sessions
        self.throttle = throttle

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = self.sessions.token
        if (token and scope["type"] == ScopeType.HTTP and not scope["path"].startswith(PUBLIC_PREFIXES)
                and not is_verified_webhook(scope)):
            headers = Headers.from_scope(scope)
            if "authorization" in headers:
                attempt = self.throttle.reserve_or_refuse(client_address(scope))
                if not bearer_matches(headers, token) and not self.sessions.cookie_matches(headers):
                    raise NotAuthorizedException("this dashboard needs its access token (web.token)")
                self.throttle.release(attempt)
            elif not self.sessions.cookie_matches(headers):
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
    return Template("web/login.html", context={"next_page": safe_next(next_page), "failed": False, "wait": 0})


@post(LOGIN_PATH, sync_to_thread=False, include_in_schema=False, status_code=303)
def login(request: Request[Any, Any, Any], web: NamedDependency[WebContext],
          login_sessions: NamedDependency[LoginSessions], login_throttle: NamedDependency[LoginThrottle],
          data: Annotated[dict[str, str], Body(media_type=RequestEncodingType.URL_ENCODED)]) -> Redirect | Template:
    """Check the submitted token; on success set the session cookie and go where the user wanted."""
    next_page = safe_next(data.get("next"))
    client = client_address(request.scope)
    attempt = login_throttle.reserve(client)
    if attempt is None:
        wait = login_throttle.wait_seconds(client)
        return Template("web/login.html", status_code=429, headers={"Retry-After": str(wait)},
                        context={"next_page": next_page, "failed": False, "wait": wait})
    token = web.settings.token
    if not token or not same_text(data.get("token", ""), token):
        return Template("web/login.html", status_code=401,
                        context={"next_page": next_page, "failed": True, "wait": 0})
    login_throttle.release(attempt)
    cookie = Cookie(key=login_sessions.cookie_name, value=login_sessions.issue(), httponly=True, samesite="lax",
                    secure=request.url.scheme == "https", max_age=SESSION_DAYS * 86400, path="/")
    return Redirect(next_page, cookies=[cookie], status_code=303)


@post("/logout", sync_to_thread=False, include_in_schema=False, status_code=303)
def logout(login_sessions: NamedDependency[LoginSessions]) -> Redirect:
    """Forget the session cookie."""
    return Redirect(LOGIN_PATH, cookies=[Cookie(key=login_sessions.cookie_name, value="", max_age=0, path="/")],
                    status_code=303)
