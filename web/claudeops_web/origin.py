"""Same-origin check of browser writes: a change must come from the dashboard's own pages.

The CSRF token alone is not enough on 127.0.0.1: cookies are not scoped by port, and a browser
treats every port of a host as the *same site*, so ``SameSite=Lax`` does not stop a page served
from another port either. Such a page once read the ``csrftoken`` cookie, posted the memory form
and stored a memory that went into the next agent prompt. Browsers say where a request comes
from in headers a page cannot forge, so an unsafe request is refused unless:

- ``Sec-Fetch-Site`` is ``same-origin`` (or ``none``: the user typed or bookmarked it), or
- without ``Sec-Fetch-Site`` (older browsers), ``Origin`` has the request's own scheme, host and port;
- a request with neither header is not from a browser (curl, a script); the CSRF token still applies.

This is the rule of Go's ``net/http.CrossOriginProtection`` and of the Fetch Metadata proposal;
``Sec-Fetch-Site`` is trusted on its own because it stays right behind a reverse proxy that
rewrites ``Host``. Requests carrying the bearer token are not checked at all: a browser never
adds that header by itself.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from litestar.datastructures import Headers

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
TRUSTED_FETCH_SITES = frozenset({"same-origin", "none"})
DEFAULT_PORTS = {"http": 80, "https": 443}


def cross_origin_problem(method: str, headers: Headers, scheme: str) -> str | None:
    """Why this request may not change anything, or None when it may (or is not a write)."""
    if method.upper() not in UNSAFE_METHODS:
        return None
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site is not None:
        if fetch_site.strip().lower() in TRUSTED_FETCH_SITES:
            return None
        return (f"refused: this change was sent by a page of another site or port (Sec-Fetch-Site: {fetch_site}); "
                "the dashboard accepts changes only from its own pages")
    origin = headers.get("origin")
    if origin is None:
        return None
    host = headers.get("host", "")
    sender = _origin_of(origin)
    if sender is not None and sender == _origin_of(f"{scheme}://{host}"):
        return None
    return (f"refused: this change was sent by a page of {origin}, not by the dashboard ({scheme}://{host}); "
            "the dashboard accepts changes only from its own pages")


def _origin_of(url: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) with the scheme's default port filled in; None when ``url`` has no host."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    scheme = parts.scheme.lower()
    return scheme, parts.hostname.lower(), port if port is not None else DEFAULT_PORTS.get(scheme)
