"""Fixtures of the dashboard tests (see web_helpers for what they build)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient
from web_helpers import dashboard

from claudeops.app import App


@pytest.fixture
def web(tmp_path: Path) -> Iterator[tuple[App, TestClient]]:
    with dashboard(tmp_path / "state") as pair:
        yield pair


@pytest.fixture
def client(web: tuple[App, TestClient]) -> TestClient:
    return web[1]


@pytest.fixture
def make_dashboard(tmp_path: Path) -> Iterator[Callable[..., tuple[App, TestClient]]]:
    """Factory for a dashboard with extra environment variables (one per test)."""
    stack: list[Any] = []

    def make(env: dict[str, str] | None = None, **kwargs: Any) -> tuple[App, TestClient]:
        manager = dashboard(tmp_path / "state", env, **kwargs)
        stack.append(manager)
        return manager.__enter__()

    yield make
    for manager in reversed(stack):
        manager.__exit__(None, None, None)
