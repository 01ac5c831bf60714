"""Fixtures of the events plugin's tests, built with the ``claudeops.testing`` kit.

The app loads the core built-ins with the events plugin alone (no other plugin is needed for events
to be recorded, listed and turned into statuses), and its sessions share one fake clock standing
at 2025-06-01 12:00 UTC until a test moves it. Markers go through the runner's own stream dispatcher (``feed_text``).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from claudeops.app import App
from claudeops.clock import FakeClock

EVENTS_ONLY = ("claudeops.environment", "claudeops.escalation", "claudeops_events")


@pytest.fixture
def claudeops_builtins() -> tuple[str, ...]:
    return EVENTS_ONLY


@pytest.fixture
def claudeops_clock() -> FakeClock:
    return FakeClock(moment=datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC))


@pytest.fixture
def clock(claudeops_clock: FakeClock) -> FakeClock:
    """The clock of the suite's sessions (``claudeops_clock``), for tests that move it."""
    return claudeops_clock


@pytest.fixture
def app(claudeops_app: App) -> App:
    """The core and the events plugin, store migrated, in a temporary state dir."""
    return claudeops_app
