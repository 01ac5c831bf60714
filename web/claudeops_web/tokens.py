"""Comparing a token a request carries with the configured one: the one rule of the login form, the
bearer token of the dashboard and API, and the webhooks' alert token.

Constant-time, and on bytes: ``hmac.compare_digest`` raises ``TypeError`` on text that is not
ASCII, and a header is whatever bytes a client sent (``Bearer café``), which must be a wrong
token (401), never a server error.
"""

from __future__ import annotations

import hmac
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from litestar.datastructures import Headers


def same_text(given: str, expected: str) -> bool:
    """Constant-time comparison that also accepts non-ASCII input (``hmac.compare_digest`` raises on it)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), expected.encode("utf-8", "surrogateescape"))


def bearer_matches(headers: Headers, token: str) -> bool:
    """True when the request carries ``Authorization: Bearer <token>`` with the configured token."""
    scheme, _, value = headers.get("authorization", "").partition(" ")
    return bool(token) and scheme.lower() == "bearer" and same_text(value.strip(), token)
