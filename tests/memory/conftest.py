"""Fixtures of the memory plugin's tests, built with the ``claudeops.testing`` kit.

The app loads only the core built-ins and the memory plugin, so these tests do not depend on
the other plugins; each test gets its own SQLite database in its temporary state dir, and its
sessions share one fake clock standing at 2026-03-01 12:00 UTC until a test moves it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from memory_helpers import LoadedApp

from claudeops.app import App
from claudeops.clock import FakeClock
from claudeops.session import Session

MEMORY_BUILTINS = ("claudeops.environment", "claudeops.escalation", "claudeops_memory")


@pytest.fixture
def claudeops_builtins() -> tuple[str, ...]:
    return MEMORY_BUILTINS


@pytest.fixture
def claudeops_clock() -> FakeClock:
    return FakeClock(moment=datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC))


@pytest.fixture
def load_memory_app(make_claudeops_app: Callable[..., App], claudeops_clock: FakeClock,
                    make_session: Callable[..., Session], feed_text: Callable[..., None]) -> Callable[..., LoadedApp]:
    """Factory for tests that need their own environment: ``load_memory_app(CLAUDEOPS_X="1")``."""
    return lambda **environ: LoadedApp(make_claudeops_app(environ), claudeops_clock, make_session, feed_text)


@pytest.fixture
def memory_app(load_memory_app: Callable[..., LoadedApp]) -> LoadedApp:
    """The memory plugin loaded over a fresh, migrated SQLite database."""
    return load_memory_app()
