"""A real HTTP receiver on 127.0.0.1 for what claudeops sends by itself: notifications (through
Apprise's ``json://`` scheme) and dead-man's-switch pings.

It records every request (method, path, body) and can be told to fail the next requests with a
status, or to hang (accept and never answer) on some paths, so delivery failures, retries and
timeouts are tested against a real socket instead of a mock. Use the ``http_receiver`` fixture
(``tests/conftest.py``)::

    def test_first_alert(http_receiver, ...):
        url = http_receiver.apprise_url("/alerts")  # json://127.0.0.1:PORT/alerts
        ...
        [message] = http_receiver.json_bodies("/alerts")
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    body: str
    status: int

    @property
    def json(self) -> Any:
        return json.loads(self.body)


class HTTPReceiver:
    """The server, what it received, and how it should answer."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.failures: dict[str, list[int]] = {}
        self.hanging: set[str] = set()
        self.released = threading.Event()
        self.arrived = threading.Condition()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def apprise_url(self, path: str = "/notify") -> str:
        """The Apprise URL that POSTs JSON (title, message, type) to ``path`` here."""
        host, port = self._server.server_address[:2]
        return f"json://{host}:{port}{path}"

    def start(self) -> HTTPReceiver:
        self._thread.start()
        return self

    def close(self) -> None:
        self.released.set()
        self._server.shutdown()
        self._server.server_close()

    def fail(self, path: str, *statuses: int) -> None:
        """Answer the next requests to ``path`` with these statuses, in order (then 200)."""
        self.failures.setdefault(path, []).extend(statuses)

    def hang(self, path: str) -> None:
        """Accept requests to ``path`` and never answer them (until the receiver closes)."""
        self.hanging.add(path)

    def requests(self, path: str | None = None) -> list[Received]:
        return [item for item in self.received if path is None or item.path.split("?")[0] == path]

    def json_bodies(self, path: str | None = None, *, delivered: bool = True) -> list[Any]:
        """The JSON bodies received on ``path`` (only those answered 200, unless ``delivered`` is false)."""
        return [item.json for item in self.requests(path) if not delivered or item.status == 200]

    def wait_for(self, count: int, path: str | None = None, timeout: float = 10.0) -> bool:
        with self.arrived:
            return self.arrived.wait_for(lambda: len(self.requests(path)) >= count, timeout)


def _handler_for(receiver: HTTPReceiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode() if length else ""
            path = self.path.split("?")[0]
            pending = receiver.failures.get(path)
            status = pending.pop(0) if pending else 200
            with receiver.arrived:
                receiver.received.append(Received(self.command, self.path, body, status))
                receiver.arrived.notify_all()
            if path in receiver.hanging:
                receiver.released.wait()
                return
            payload = b"OK"
            self.send_response(status)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_POST = do_GET = do_HEAD = _answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler
