"""Fixtures of the runner's tests, built with the ``claudeops.testing`` kit: an app of the core
plugins and the recording test plugin (``runner_helpers.RecordingPlugin``), so runner tests do
not depend on how the feature plugins store things; ``full_app`` for the few that need them all."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from runner_helpers import CORE_ONLY, RecordingPlugin

from claudeops.app import App
from claudeops.plugins import DEFAULT_PLUGINS


@pytest.fixture
def claudeops_builtins() -> tuple[str, ...]:
    return CORE_ONLY


@pytest.fixture
def plugin() -> RecordingPlugin:
    """The recording plugin of ``runner_app``: what it stored and every hook call it saw."""
    return RecordingPlugin()


@pytest.fixture
def claudeops_plugins(plugin: RecordingPlugin) -> list[RecordingPlugin]:
    return [plugin]


@pytest.fixture
def state_dir(claudeops_state_dir: Path) -> Path:
    """The state dir of the runner's apps (``claudeops_state_dir`` under the name these tests use)."""
    return claudeops_state_dir


@pytest.fixture
def runner_app(claudeops_app: App) -> App:
    """The core plugins and ``plugin``, store migrated, in ``state_dir``."""
    return claudeops_app


@pytest.fixture
def full_app(make_claudeops_app: Callable[..., App]) -> App:
    """Every built-in plugin and no test plugin, in ``state_dir``: what ``claudeops run`` loads."""
    return make_claudeops_app(builtins=DEFAULT_PLUGINS, plugins=())

