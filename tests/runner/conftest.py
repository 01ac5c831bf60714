"""Fixtures of the runner's tests, built with the ``claudeops.testing`` kit: an app of the core
plugins and the recording test plugin (``runner_helpers.RecordingPlugin``), so runner tests do
not depend on how the feature plugins store things; ``full_app`` for the few that need them all."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
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


HOLD_THE_WRITE_LOCK = """
import sqlite3, sys, time
other = sqlite3.connect(sys.argv[1], isolation_level=None)
other.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
other.execute("COMMIT")
"""


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> float:
    """SQLite's busy timeout of the databases opened from now on, cut from 5 s to 0.1 s, so a test holds
    the write lock past it (the case a run must wait out) without waiting 5 s."""
    monkeypatch.setattr("claudeops.store.BUSY_TIMEOUT_SECONDS", 0.1)
    return 0.1


@pytest.fixture
def hold_write_lock(state_dir: Path) -> Iterator[Callable[[float], subprocess.Popen[str]]]:
    """Factory: ``hold_write_lock(seconds)`` makes another process (an operator's ``sqlite3`` shell, a
    dashboard edit) hold the write lock of the state dir's database for ``seconds``, from now."""
    holders: list[subprocess.Popen[str]] = []

    def hold(seconds: float) -> subprocess.Popen[str]:
        holder = subprocess.Popen([sys.executable, "-c", HOLD_THE_WRITE_LOCK, str(state_dir / "claudeops.db"),
                                   str(seconds)], stdout=subprocess.PIPE, text=True)
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        holders.append(holder)
        return holder

    yield hold
    for holder in holders:
        holder.kill()
        holder.wait()
