"""Limiting failed token checks per client, so the dashboard's token cannot be guessed.

Every place that checks a token — the login form, an ``Authorization`` header on any path, a
webhook's bearer token — counts its attempts here, in one :class:`LoginThrottle` per dashboard.
A client is its socket's peer address (:func:`client_address`), never a header it writes.

The count lives in a small SQLite file of the state dir (``web-throttle.db``), so the worker
processes of one dashboard (``web.workers``) share it: five guesses a minute per client in all,
not five per process. Each attempt is counted *before* its token is checked, in one write
transaction (:meth:`LoginThrottle.reserve`), so concurrent guesses sent to several workers at
once cannot all slip under the limit; a right token takes its attempt back.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from litestar.exceptions import TooManyRequestsException

if TYPE_CHECKING:
    from litestar.types import Scope

LOGIN_ATTEMPTS = 5
"""Failed token checks a client may make per :data:`LOGIN_WINDOW_SECONDS`; the next is answered 429."""
LOGIN_WINDOW_SECONDS = 60
THROTTLE_FILE = "web-throttle.db"
"""The file in the state dir where every worker process of the dashboard counts failed token checks."""
BUSY_TIMEOUT_SECONDS = 5.0


def client_address(scope: Scope) -> str:
    """The client the throttle counts: the socket's peer address (never a header the client writes)."""
    client = scope.get("client")
    return client[0] if client else "unknown"


@dataclass
class LoginThrottle:
    """At most :data:`LOGIN_ATTEMPTS` failed token checks (logins, bearer tokens, webhook tokens) per client in
    any :data:`LOGIN_WINDOW_SECONDS`, counted in the SQLite file ``path`` every worker process shares.

    A sliding window. Litestar's rate limiter is not used: it counts successful logins too, keeps
    a fixed window per process, and cannot answer ``Retry-After``. While a client is throttled
    its token is not even checked, so guessing on learns nothing. Times are ``time.monotonic()``,
    one clock for every process of the machine (setting the wall clock back frees no one); the
    server empties the file when it starts (:meth:`forget_all`), as a restart always forgot.
    """

    path: Path
    attempts: int = LOGIN_ATTEMPTS
    window_seconds: float = LOGIN_WINDOW_SECONDS
    _local: threading.local = field(default_factory=threading.local, repr=False, compare=False)

    def reserve(self, client: str, now: float | None = None) -> int | None:
        """Count one attempt of ``client`` before its token is checked: the attempt's id, or ``None`` when the
        client has used up its attempts (nothing is counted then). :meth:`release` it when the token is right."""
        moment = time.monotonic() if now is None else now
        with self._transaction() as connection:
            connection.execute("DELETE FROM failures WHERE at <= ?", (moment - self.window_seconds,))
            (recent,) = connection.execute("SELECT count(*) FROM failures WHERE client = ?", (client,)).fetchone()
            if recent >= self.attempts:
                return None
            return connection.execute("INSERT INTO failures (client, at) VALUES (?, ?)", (client, moment)).lastrowid

    def release(self, attempt: int) -> None:
        """The token of ``attempt`` was right: it does not count."""
        with self._transaction() as connection:
            connection.execute("DELETE FROM failures WHERE id = ?", (attempt,))

    def reserve_or_refuse(self, client: str) -> int:
        """:meth:`reserve`, or answer 429 with ``Retry-After`` while ``client`` may not try a token."""
        attempt = self.reserve(client)
        if attempt is None:
            wait = self.wait_seconds(client)
            raise TooManyRequestsException(f"Too many failed attempts with a wrong token; try again in {wait} s",
                                           headers={"Retry-After": str(wait)})
        return attempt

    def wait_seconds(self, client: str, now: float | None = None) -> int:
        """How long ``client`` must wait before its next attempt (0: it may try now)."""
        moment = time.monotonic() if now is None else now
        rows = self._connection().execute(
            "SELECT at FROM failures WHERE client = ? AND at > ? ORDER BY at DESC LIMIT ?",
            (client, moment - self.window_seconds, self.attempts)).fetchall()
        if len(rows) < self.attempts:
            return 0
        oldest_counted = rows[-1][0]
        return max(1, int(oldest_counted + self.window_seconds - moment + 0.999))

    def forget_all(self) -> None:
        """Start counting afresh (the dashboard starts)."""
        with self._transaction() as connection:
            connection.execute("DELETE FROM failures")

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
            _write_ahead_log(connection)
            # no fsync per commit: the counts are forgotten at every start anyway, and in WAL mode NORMAL keeps
            # the file consistent through a power loss (two commits per checked token: 0.03 ms, not 0.4)
            connection.execute("PRAGMA synchronous = NORMAL")
            connection.execute("CREATE TABLE IF NOT EXISTS failures (id INTEGER PRIMARY KEY, client TEXT NOT NULL, "
                               "at REAL NOT NULL)")
            connection.execute("CREATE INDEX IF NOT EXISTS failures_by_client ON failures (client, at)")
            self._local.connection = connection
        return connection

    def _transaction(self) -> _Immediate:
        return _Immediate(self._connection())


def _write_ahead_log(connection: sqlite3.Connection) -> None:
    """Put the file in WAL mode (a worker reads while another writes: 0.3 ms a checked token, not 1.1).
    Switching a new file while another worker switches it is refused at once, busy timeout or not; the
    file then ends up in WAL mode all the same, and a rollback journal would be correct anyway."""
    try:
        connection.execute("PRAGMA journal_mode = wal")
    except sqlite3.OperationalError as exc:
        if "locked" not in str(exc):
            raise


class _Immediate:
    """``BEGIN IMMEDIATE`` … ``COMMIT`` (rolled back on an error): the count and the insert as one step."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    def __enter__(self) -> sqlite3.Connection:
        self.connection.execute("BEGIN IMMEDIATE")
        return self.connection

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self.connection.execute("COMMIT" if kind is None else "ROLLBACK")
