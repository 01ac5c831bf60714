"""Helpers for the dashboard tests (their fixtures are in ``conftest.py``): request headers, the
token, arming a client against CSRF, reading row ids out of a page, and ``claudeops web`` in its
own process for the browser tests."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from claudeops_memory import repository
from litestar.testing import TestClient

from claudeops.store import db

TOKEN = "s3cret-token-for-tests-0123456789"
HX = {"HX-Request": "true"}
BASE_URL = "http://127.0.0.1:8080"
"""Where the test client sends requests: without a token the dashboard answers only to loopback names."""


def arm_csrf(client: TestClient, headers: dict[str, str] | None = None) -> None:
    """Fetch the login page (always public) to get the CSRF cookie, then send it as the header."""
    client.get("/login", headers=headers or {})
    client.headers["x-csrftoken"] = client.cookies["csrftoken"]


def row_ids(html: str) -> list[int]:
    """Memory ids of the table rows in a page or fragment, in display order."""
    return [int(found) for found in re.findall(r'data-memory-id="(\d+)"', html)]


def add_memory(observation: str, **fields: Any) -> repository.MemoryRecord:
    """Insert a memory directly (as a session would) and return it; category ``timing`` unless given."""
    fields.setdefault("category", "timing")
    with db.connection_context():
        return repository.create_memory(observation=observation, **fields)


def stored(memory_id: int) -> repository.MemoryRecord | None:
    """The memory as the database holds it now (``None`` once deleted)."""
    with db.connection_context():
        return repository.get_memory(memory_id)


# --------------------------------------------------------------------------- a real server and a real browser

CHROMIUM = Path("/usr/bin/chromium")
"""Debian's Chromium: the browser tests never download one."""
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def child_environment(state_dir: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without claudeops or Anthropic settings, pointed at ``state_dir``."""
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("CLAUDEOPS_", "ANTHROPIC_"))}
    return {**env, "CLAUDEOPS_STATE_DIR": str(state_dir), **(extra or {})}


def wait_until_serving(url: str, server: subprocess.Popen[bytes], seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if server.poll() is not None:
            stderr = server.stderr.read().decode() if server.stderr else ""
            raise RuntimeError(f"claudeops web exited with {server.returncode}: {stderr}")
        try:
            with urllib.request.urlopen(url, timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"claudeops web did not answer on {url} within {seconds} s")


@contextmanager
def running_dashboard(state_dir: Path, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """``claudeops web`` in its own process on a free loopback port; yields its base URL."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "claudeops", "web", "--port", str(port)],
                              env=child_environment(state_dir, env), cwd=state_dir, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(url + "/login", server)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)


def open_memories(page: Any, query: str = "") -> None:
    """The memories page in a browser, once htmx is loaded (so its controls work)."""
    page.goto("/memories" + query)
    page.wait_for_function("() => window.htmx !== undefined")
