"""Fixtures of the dashboard tests: an app of every built-in plugin, built with the
``claudeops.testing`` kit, a Litestar test client of its dashboard (see ``web_helpers``), and
Debian's Chromium for the browser tests."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient
from web_helpers import BASE_URL, CHROMIUM, CHROMIUM_ARGS, arm_csrf, running_dashboard

from claudeops.app import App
from claudeops.store import close_store


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


@pytest.fixture(scope="module")
def state_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The state dir of a browser module's dashboard."""
    return tmp_path_factory.mktemp("browser-state")


@pytest.fixture(scope="module")
def base_url(state_dir: Path, chromium: Any) -> Iterator[str]:
    """``claudeops web`` on a free loopback port in its own process, for the whole module."""
    from claudeops_web.assets import CHECKOUT_HTMX

    assert CHECKOUT_HTMX.is_file(), "htmx is not installed: run `npm ci --prefix web`"
    with running_dashboard(state_dir) as url:
        yield url


@pytest.fixture(scope="module")
def store(base_url: str, state_dir: Path) -> Iterator[None]:
    """This process's connection to the server's database, for arranging and checking data."""
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(state_dir)}, entry_points=False)
    app.open_store(migrate=False)
    yield
    close_store()
