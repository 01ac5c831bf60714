"""A fake Anthropic Messages API on 127.0.0.1, for end-to-end tests with the real Claude Code CLI.

The real bundled CLI talks to it through ``ANTHROPIC_BASE_URL``; nothing leaves the machine
(the four "nonessential traffic" switches keep the CLI off every other host). Replies are
scripted: queue them with :meth:`FakeAPI.script`, or set :attr:`FakeAPI.responder` to choose
one from the request. Every request is logged (API key redacted) so tests can assert on what
the CLI really sent, e.g. that our sections end the system prompt.

Use it from any test module: the ``fake_api`` fixture is in ``tests/conftest.py``, the reply
helpers are imported from here::

    from fake_api import bash, text

    def test_restart_is_denied(fake_api, ...):
        fake_api.script(bash("docker restart jellyfin"), text("done"))
        ...  # run a session; fake_api.tool_results() shows what the CLI sent back

The ``fake_api`` fixture also points the process environment at the server (API key "test",
no retries, an isolated HOME), so a runner started in-process or as a subprocess with
``os.environ`` uses it.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FAKE_MODEL_USAGE = {"input_tokens": 42, "output_tokens": 17, "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0}


@dataclass
class Reply:
    """One scripted answer: content blocks, or an HTTP error, optionally after a delay (a hang);
    ``usage`` replaces :data:`FAKE_MODEL_USAGE` in a non-streamed answer (a cost to check)."""

    blocks: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    error_type: str = "api_error"
    delay: float = 0.0
    usage: dict[str, int] | None = None

    @property
    def stop_reason(self) -> str:
        return "tool_use" if any(block["type"] == "tool_use" for block in self.blocks) else "end_turn"


def text(message: str) -> Reply:
    return Reply([{"type": "text", "text": message}])


def tool_use(name: str, tool_input: dict[str, Any], before: str | None = None) -> Reply:
    """A tool call, optionally preceded by text in the same response (two SDK messages, one id)."""
    blocks = [{"type": "text", "text": before}] if before else []
    blocks.append({"type": "tool_use", "id": f"toolu_{uuid.uuid4().hex[:20]}", "name": name, "input": tool_input})
    return Reply(blocks)


def bash(command: str, before: str | None = None) -> Reply:
    return tool_use("Bash", {"command": command, "description": command[:40]}, before)


def error(status: int, error_type: str | None = None) -> Reply:
    default = {401: "authentication_error", 429: "rate_limit_error", 529: "overloaded_error"}
    return Reply(status=status, error_type=error_type or default.get(status, "api_error"))


def hang(seconds: float = 600.0) -> Reply:
    """Accept the request and answer nothing for ``seconds`` (or until the server stops)."""
    return Reply([{"type": "text", "text": "too late"}], delay=seconds)


class FakeAPI:
    """The server plus its script and request log."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.replies: deque[Reply] = deque()
        self.responder: Callable[[dict[str, Any]], Reply | None] | None = None
        self.default = text("Nothing more to do.")
        self.released = threading.Event()
        self.received = threading.Condition()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeAPI:
        self._thread.start()
        return self

    def close(self) -> None:
        self.released.set()
        self._server.shutdown()
        self._server.server_close()

    def script(self, *replies: Reply) -> None:
        """Queue replies, one per ``/v1/messages`` request, in order (then :attr:`default`)."""
        self.replies.extend(replies)

    def env(self, home: Path) -> dict[str, str]:
        """What a process needs to talk to this server and nothing else."""
        return {"ANTHROPIC_BASE_URL": self.base_url, "ANTHROPIC_API_KEY": "test", "CLAUDE_CODE_MAX_RETRIES": "0",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
                "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1", "HOME": str(home)}

    def messages(self) -> list[dict[str, Any]]:
        """Bodies of the ``POST /v1/messages`` requests, in arrival order."""
        return [request["body"] for request in self.requests if request["path"] == "/v1/messages"]

    def system_text(self, index: int = 0) -> str:
        """The last system block of a request: where the appended prompt sections end up."""
        system = self.messages()[index]["system"]
        return system if isinstance(system, str) else system[-1]["text"]

    def tool_results(self) -> list[dict[str, Any]]:
        """Every ``tool_result`` block the CLI sent back, across all requests (first occurrence)."""
        seen: dict[str, dict[str, Any]] = {}
        for body in self.messages():
            for message in body.get("messages", []):
                content = message.get("content")
                for block in content if isinstance(content, list) else []:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        seen.setdefault(block.get("tool_use_id", ""), block)
        return list(seen.values())

    def wait_for_requests(self, count: int, timeout: float = 30.0) -> bool:
        """Block until ``count`` messages requests arrived (True) or ``timeout`` passed (False)."""
        with self.received:
            return self.received.wait_for(lambda: len(self.messages()) >= count, timeout)

    def choose(self, body: dict[str, Any]) -> Reply:
        if self.responder is not None and (chosen := self.responder(body)) is not None:
            return chosen
        return self.replies.popleft() if self.replies else self.default


def _handler_for(api: FakeAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the request log is in ``api.requests``."""

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            path = self.path.split("?", 1)[0]
            headers = {key.lower(): ("***" if key.lower() in ("x-api-key", "authorization") else value)
                       for key, value in self.headers.items()}
            with api.received:
                api.requests.append({"method": "POST", "path": path, "headers": headers, "body": body,
                                     "at": time.monotonic(), "client": self.client_address})
                api.received.notify_all()
            if path == "/v1/messages/count_tokens":
                self._json(200, {"input_tokens": 42})
            elif path == "/v1/messages":
                self._answer(api.choose(body), body)
            else:
                self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": path}})

        def do_GET(self) -> None:
            self._json(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})

        def do_HEAD(self) -> None:
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def _answer(self, reply: Reply, body: dict[str, Any]) -> None:
            if reply.delay and api.released.wait(reply.delay):
                return
            if reply.status != 200:
                self._json(reply.status, {"type": "error", "error": {"type": reply.error_type,
                                                                     "message": f"fake error {reply.status}"}})
            elif body.get("stream"):
                self._stream(reply, body.get("model", "claude-fake"))
            else:
                self._json(200, _message(reply, body.get("model", "claude-fake")))

        def _json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, reply: Reply, model: str) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("connection", "close")
            self.end_headers()
            for event, data in _sse_events(reply, model):
                self.wfile.write(f"event: {event}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()
            self.close_connection = True

    return Handler


def _message(reply: Reply, model: str) -> dict[str, Any]:
    """A non-streamed answer (what the ``anthropic`` package's ``messages.create`` reads), or the
    start of a streamed one."""
    return {"id": f"msg_{uuid.uuid4().hex[:24]}", "type": "message", "role": "assistant", "model": model,
            "content": reply.blocks, "stop_reason": reply.stop_reason, "stop_sequence": None,
            "usage": reply.usage or FAKE_MODEL_USAGE}


def _sse_events(reply: Reply, model: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The Messages API streaming events for ``reply``, as the real API orders them."""
    start = {**_message(reply, model), "content": [], "stop_reason": None,
             "usage": {**FAKE_MODEL_USAGE, "output_tokens": 1}}
    yield "message_start", {"type": "message_start", "message": start}
    yield "ping", {"type": "ping"}
    for index, block in enumerate(reply.blocks):
        if block["type"] == "text":
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {"type": "text", "text": ""}}
            yield "content_block_delta", {"type": "content_block_delta", "index": index,
                                          "delta": {"type": "text_delta", "text": block["text"]}}
        else:
            yield "content_block_start", {"type": "content_block_start", "index": index,
                                          "content_block": {**block, "input": {}}}
            yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(block["input"])}}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": reply.stop_reason,
                                                               "stop_sequence": None},
                            "usage": {"output_tokens": FAKE_MODEL_USAGE["output_tokens"]}}
    yield "message_stop", {"type": "message_stop"}
