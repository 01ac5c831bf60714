"""DNS-rebinding protection: without a token, the dashboard answers only to loopback names.

Binding to loopback keeps other machines out, but not other web sites: a page on
``attacker.example`` whose DNS answer switches to 127.0.0.1 becomes same-origin with the dashboard
in the operator's own browser. It could then read the ``csrftoken`` cookie and write memories that
go into the next agent prompt. The browser still sends ``Host: attacker.example``, so refusing
every name but a loopback one (``localhost``, ``127.0.0.1``, ``[::1]``) stops it. Without a token
the bind host is itself loopback (``claudeops web`` refuses anything else), so it is covered too.

With a token the token is the protection, and a reverse proxy may use any name: no check then.

Litestar's ``AllowedHostsMiddleware`` is not used: in 2.22+ it compares the Host header *with*
its port (litestar-org/litestar#4869), so ``localhost:8080`` never matches, and it cannot parse
``[::1]:8080``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from litestar.datastructures import Headers
from litestar.enums import ScopeType
from litestar.exceptions import ClientException

from claudeops_web.settings import is_loopback
from claudeops_web.webhooks import is_verified_webhook

if TYPE_CHECKING:
    from litestar.types import ASGIApp, Receive, Scope, Send


def host_name(header: str) -> str:
    """The name in a Host header without its port: ``[::1]:8080`` → ``::1``, ``Localhost:80`` → ``localhost``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    return header.rpartition(":")[0] if ":" in header else header


class LoopbackHostMiddleware:
    """Refuse requests addressed to a name other than a loopback one (installed only without a token)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == ScopeType.HTTP and not is_verified_webhook(scope):
            header = Headers.from_scope(scope).get("host", "")
            if not is_loopback(host_name(header)):
                raise ClientException(
                    f"this dashboard answers only to localhost, 127.0.0.1 or [::1], not to Host {header!r}: "
                    "without web.token another name could be a web site rebinding its DNS to this machine. "
                    "Open it by a loopback address, or set web.token to serve it under another name")
        await self.app(scope, receive, send)
