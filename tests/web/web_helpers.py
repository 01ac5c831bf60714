"""Helpers for the dashboard tests: an App in a temporary state dir and a Litestar test client.

The client has fetched a page first, so it holds the ``csrftoken`` cookie, and sends the
``x-csrftoken`` header on every request, as the dashboard's own pages do.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from litestar.testing import TestClient

from claudeops.app import App
from claudeops.store import close_store

TOKEN = "s3cret-token-for-tests-0123456789"
HX = {"HX-Request": "true"}
BASE_URL = "http://127.0.0.1:8080"
"""Where the test client sends requests: without a token the dashboard answers only to loopback names."""


@contextmanager
def dashboard(state_dir: Path, env: dict[str, str] | None = None, extra_plugins: tuple[Any, ...] = (),
              csrf: bool = True) -> Iterator[tuple[App, TestClient]]:
    """A migrated App with every built-in plugin, and a test client of its dashboard."""
    from claudeops_web import create_app

    environ = {"CLAUDEOPS_STATE_DIR": str(state_dir), **(env or {})}
    app = App.load(None, environ, entry_points=False, extra_plugins=extra_plugins)
    app.open_store()
    try:
        with TestClient(app=create_app(app), base_url=BASE_URL, raise_server_exceptions=True) as client:
            if csrf:
                arm_csrf(client)
            yield app, client
    finally:
        close_store()


def arm_csrf(client: TestClient, headers: dict[str, str] | None = None) -> None:
    """Fetch the login page (always public) to get the CSRF cookie, then send it as the header."""
    client.get("/login", headers=headers or {})
    client.headers["x-csrftoken"] = client.cookies["csrftoken"]


def row_ids(html: str) -> list[int]:
    """Memory ids of the table rows in a page or fragment, in display order."""
    return [int(found) for found in re.findall(r'data-memory-id="(\d+)"', html)]
