"""Helpers for the dashboard tests (their fixtures are in ``conftest.py``): request headers, the
token, arming a client against CSRF, reading row ids out of a page."""

from __future__ import annotations

import re

from litestar.testing import TestClient

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
