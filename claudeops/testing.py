"""pytest fixtures for plugin authors (registered under ``pytest11``, so they are just there).

* ``claudeops_plugins`` — override it in your ``conftest.py`` to return your plugin module(s).
* ``claudeops_app`` — an :class:`~claudeops.app.App` with a temporary state dir, the built-in
  plugins plus yours, entry points off (so nothing else installed leaks in), store migrated.
* ``make_session`` — a :class:`~claudeops.session.Session` with a real ``sessions`` row.
* ``register_plugin`` — register a throwaway plugin object for one test.
* ``run_scripted_session`` — run assistant texts and tool results through the real runner.

This module is imported when pytest starts (before coverage), so it imports claudeops lazily
inside the fixtures (datasette's ``_pytest_plugin`` does the same).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from claudeops.app import App
    from claudeops.session import Outcome, Session


@pytest.fixture
def claudeops_plugins() -> list[Any]:
    """Extra plugin objects to register in ``claudeops_app``; override to add yours."""
    return []


@pytest.fixture
def claudeops_state_dir(tmp_path: Path) -> Path:
    """A fresh state directory (database, transcripts, lock) for one test."""
    state = tmp_path / "claudeops-state"
    state.mkdir()
    return state


@pytest.fixture
def claudeops_app(claudeops_state_dir: Path, claudeops_plugins: list[Any]) -> Iterator[App]:
    """A loaded, migrated application isolated in a temporary state dir."""
    from claudeops.app import App
    from claudeops.store import close_store

    environ = {"CLAUDEOPS_STATE_DIR": str(claudeops_state_dir)}
    app = App.load(None, environ, entry_points=False, extra_plugins=claudeops_plugins)
    app.open_store()
    yield app
    close_store()


@pytest.fixture
def make_session(claudeops_app: App) -> Callable[..., Session]:
    """Factory: ``make_session(tier=1, model="haiku", trigger="test")`` with a real row."""
    from claudeops.clock import now_timestamp
    from claudeops.session import Session
    from claudeops.session_rows import start_session_row

    def make(tier: int = 1, model: str = "haiku", trigger: str = "test", **fields: Any) -> Session:
        row = start_session_row(tier, model, trigger, fields.get("parent_id"), now_timestamp())
        return Session(id=row.id, tier=tier, model=model, trigger=trigger, config=claudeops_app.config,
                       hook=claudeops_app.hook, **fields)

    return make


@pytest.fixture
def register_plugin(claudeops_app: App) -> Iterator[Callable[[Any, str], None]]:
    """Register throwaway plugin objects for the duration of one test."""
    names: list[str] = []

    def register(plugin: Any, name: str) -> None:
        claudeops_app.pm.register(plugin, name=name)
        names.append(name)

    yield register
    for name in names:
        claudeops_app.pm.unregister(name=name)


@pytest.fixture
def run_scripted_session(claudeops_app: App) -> Callable[..., Outcome]:
    """Run a scripted session through the real SDK parser and the whole runner pipeline.

    ``run_scripted_session(["text with [MARKER] ...", ToolCall("Bash", {...}, "tool output"), ...],
    tier=1)`` — strings are assistant text blocks, ``ToolCall`` items are a tool use plus its
    result. Returns the first session's :class:`~claudeops.session.Outcome`.
    """
    from claudeops.runner.chain import RunRequest, run_chain
    from claudeops.runner.script import ScriptTransport

    def run(script: Sequence[Any], tier: int = 1, **request_fields: Any) -> Outcome:
        request = RunRequest(tier=tier, transport_factory=lambda _tier: ScriptTransport(script), **request_fields)
        return run_chain(claudeops_app, request)[0]

    return run
