"""Limiting failed token checks per client, so the dashboard's token cannot be guessed.

Every place that checks a token — the login form, an ``Authorization`` header on any path, a
webhook's bearer token — counts its failures here, in one :class:`LoginThrottle` per dashboard.
A client is its socket's peer address (:func:`client_address`), never a header it writes.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from litestar.exceptions import TooManyRequestsException

if TYPE_CHECKING:
    from litestar.types import Scope

LOGIN_ATTEMPTS = 5
"""Failed token checks a client may make per :data:`LOGIN_WINDOW_SECONDS`; the next is answered 429."""
LOGIN_WINDOW_SECONDS = 60


def client_address(scope: Scope) -> str:
    """The client the throttle counts: the socket's peer address (never a header the client writes)."""
    client = scope.get("client")
    return client[0] if client else "unknown"


@dataclass
class LoginThrottle:
    """At most :data:`LOGIN_ATTEMPTS` failed token checks (logins, bearer tokens, webhook tokens) per client in
    any :data:`LOGIN_WINDOW_SECONDS`.

    A sliding window kept in memory (one dashboard process). Litestar's rate limiter is not used:
    it counts successful logins too, keeps a fixed window, and cannot answer ``Retry-After``.
    While a client is throttled its token is not even checked, so guessing on learns nothing.
    """

    attempts: int = LOGIN_ATTEMPTS
    window_seconds: float = LOGIN_WINDOW_SECONDS
    failures: dict[str, deque[float]] = field(default_factory=dict)

    def wait_seconds(self, client: str, now: float | None = None) -> int:
        """How long ``client`` must wait before its next attempt (0: it may try now)."""
        moment = time.monotonic() if now is None else now
        self._forget_before(moment - self.window_seconds)
        recent = self.failures.get(client)
        if recent is None or len(recent) < self.attempts:
            return 0
        return max(1, int(recent[0] + self.window_seconds - moment + 0.999))

    def failed(self, client: str, now: float | None = None) -> None:
        self.failures.setdefault(client, deque()).append(time.monotonic() if now is None else now)

    def refuse_if_throttled(self, client: str) -> None:
        """Answer 429 with ``Retry-After`` while ``client`` may not try a token; before any check of one."""
        if wait := self.wait_seconds(client):
            raise TooManyRequestsException(f"Too many failed attempts with a wrong token; try again in {wait} s",
                                           headers={"Retry-After": str(wait)})

    def _forget_before(self, cutoff: float) -> None:
        for client in list(self.failures):
            recent = self.failures[client]
            while recent and recent[0] <= cutoff:
                recent.popleft()
            if not recent:
                del self.failures[client]
