"""Fixtures for the runner's tests; load with ``pytest_plugins = ["runner_fixtures"]``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from runner_helpers import RecordingPlugin, load_app

from claudeops.app import App
from claudeops.store import close_store


@pytest.fixture
def plugin() -> RecordingPlugin:
    return RecordingPlugin()


@pytest.fixture
def state_dir(tmp_path: Path) -> Path:
    return tmp_path / "runner-state"


@pytest.fixture
def runner_app(state_dir: Path, plugin: RecordingPlugin) -> Iterator[App]:
    """An App with the core plugins and the recording plugin, store migrated, in a temp state dir."""
    app = load_app(state_dir, plugin)
    yield app
    close_store()
