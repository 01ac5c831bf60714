"""Fixtures of the dashboard tests: an app of every built-in plugin, built with the
``claudeops.testing`` kit, a Litestar test client of its dashboard (see ``web_helpers``), and
Debian's Chromium for the browser tests."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from typing import Any

import pytest
from litestar.testing import TestClient
from web_helpers import BASE_URL, CHROMIUM, CHROMIUM_ARGS, arm_csrf

from claudeops.app import App


@pytest.fixture
def make_dashboard(make_claudeops_app: Callable[..., App]) -> Iterator[Callable[..., tuple[App, TestClient]]]:
    """Factory: ``make_dashboard(env, extra_plugins=(...), csrf=True)``, a migrated app with extra
    environment variables and plugins, and a test client of its dashboard. With ``csrf`` the client
    holds the ``csrftoken`` cookie and sends the ``x-csrftoken`` header, as the dashboard's pages do."""
    from claudeops_web import create_app

    with ExitStack() as clients:

        def make(env: Mapping[str, str] | None = None, extra_plugins: Sequence[Any] = (),
                 csrf: bool = True) -> tuple[App, TestClient]:
            app = make_claudeops_app(env, plugins=extra_plugins)
            client = clients.enter_context(TestClient(app=create_app(app), base_url=BASE_URL,
                                                      raise_server_exceptions=True))
            if csrf:
                arm_csrf(client)
            return app, client

        yield make


@pytest.fixture
def web(make_dashboard: Callable[..., tuple[App, TestClient]]) -> tuple[App, TestClient]:
    return make_dashboard()


@pytest.fixture
def client(web: tuple[App, TestClient]) -> TestClient:
    return web[1]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Debian's headless Chromium through Playwright, one per test module; skipped (failed in CI) without it."""
    if not CHROMIUM.is_file():
        message = "Debian's chromium is not installed (apt-get install chromium; .ci/setup does it)"
        if os.environ.get("CI"):
            pytest.fail(message)  # CI must never pass by skipping the browser
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()
