"""pytest fixtures for plugin authors (registered under ``pytest11``, so they are just there).

claudeops's own test suite builds its apps with these same fixtures, so a plugin author gets
the kit the project trusts.

What the app is made of (override any of them in your ``conftest.py``):

* ``claudeops_plugins`` — your plugin module(s) or objects, registered in every app built here.
* ``claudeops_builtins`` — the built-in plugins to load (default: all of them).
* ``claudeops_environ`` — settings as ``CLAUDEOPS_*`` variables (default: none, the built-in defaults).
* ``claudeops_state_dir`` — a fresh state directory (database, transcripts, lock).
* ``claudeops_clock`` — the :class:`~claudeops.clock.FakeClock` the kit's sessions run on.

What to build with it:

* ``claudeops_app`` — an :class:`~claudeops.app.App` of those fixtures, entry points off (so
  nothing else installed leaks in), store migrated.
* ``make_claudeops_app(environ, builtins=..., plugins=...)`` — another app, for a test that needs
  other settings or plugins than the fixtures say.
* ``make_session`` — a :class:`~claudeops.session.Session` with a real ``sessions`` row.
* ``feed_text`` — one assistant text block through the runner's own stream dispatcher.
* ``invoke_cli`` — ``claudeops ARGS`` (core and plugin commands) against the test's app.
* ``run_claudeops`` — the console script's ``main`` itself, configured by the environment: a
  :class:`CommandRun` (exit status, stdout, stderr).
* ``register_plugin`` — register a throwaway plugin object for one test.
* ``run_scripted_session`` — run assistant texts and tool results through the real runner.

*The test's app* is the app ``make_claudeops_app`` built last (one store is open per process,
and it is that app's), or ``claudeops_app`` when the test built none; ``make_session``,
``feed_text``, ``invoke_cli``, ``register_plugin`` and ``run_scripted_session`` work on it.

This module is imported when pytest starts (before coverage), so it imports claudeops lazily
inside the fixtures (datasette's ``_pytest_plugin`` does the same).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import pytest

if TYPE_CHECKING:
    from click.testing import Result

    from claudeops.app import App
    from claudeops.clock import Clock, FakeClock
    from claudeops.session import Outcome, Session


@pytest.fixture
def claudeops_plugins() -> Sequence[Any]:
    """Extra plugin objects to register in the kit's apps; override to add yours."""
    return []


@pytest.fixture
def claudeops_builtins() -> Sequence[str]:
    """Dotted names of the built-in plugins to load: all of them unless overridden, e.g. with
    ``("claudeops.environment", "claudeops.escalation")`` for the core alone."""
    from claudeops.plugins import DEFAULT_PLUGINS

    return DEFAULT_PLUGINS


@pytest.fixture
def claudeops_environ() -> Mapping[str, str]:
    """Settings for the kit's apps as ``CLAUDEOPS_*`` variables (the process's own are never read)."""
    return {}


@pytest.fixture
def claudeops_state_dir(tmp_path: Path) -> Path:
    """A fresh state directory (database, transcripts, lock) for one test."""
    state = tmp_path / "claudeops-state"
    state.mkdir()
    return state


@pytest.fixture
def claudeops_clock() -> FakeClock:
    """The clock ``make_session`` and ``run_scripted_session`` use unless given another: it stands
    still until the test moves it (``claudeops_clock.advance(hours=4)``). Override the fixture to
    start at another moment (``FakeClock(moment=datetime(2025, 6, 1, 12, tzinfo=UTC))``)."""
    from claudeops.clock import FakeClock

    return FakeClock()


class AppFactory:
    """Builds the apps of one test and remembers them; the last one built is the test's app."""

    def __init__(self, state_dir: Path, environ: Mapping[str, str], builtins: Sequence[str],
                 plugins: Sequence[Any]) -> None:
        self.defaults = (state_dir, environ, builtins, plugins)
        self.built: list[App] = []

    def __call__(self, environ: Mapping[str, str] | None = None, *, builtins: Sequence[str] | None = None,
                 plugins: Sequence[Any] | None = None) -> App:
        """A loaded app with its store migrated: ``environ`` adds to ``claudeops_environ``;
        ``builtins`` and ``plugins`` replace ``claudeops_builtins`` and ``claudeops_plugins``."""
        from claudeops.app import App
        from claudeops.store import close_store

        state_dir, default_environ, default_builtins, default_plugins = self.defaults
        settings = {"CLAUDEOPS_STATE_DIR": str(state_dir), **default_environ, **(environ or {})}
        close_store()  # the previous app's: the process has one store
        app = App.load(None, settings, entry_points=False,
                       builtins=default_builtins if builtins is None else builtins,
                       extra_plugins=default_plugins if plugins is None else plugins)
        app.open_store()
        self.built.append(app)
        return app


@pytest.fixture
def make_claudeops_app(claudeops_state_dir: Path, claudeops_environ: Mapping[str, str],
                       claudeops_builtins: Sequence[str], claudeops_plugins: Sequence[Any]) -> Iterator[AppFactory]:
    """Factory: ``make_claudeops_app({"CLAUDEOPS_X": "1"}, builtins=(...), plugins=[...])``, an app in
    ``claudeops_state_dir`` with the store migrated; a configuration error raises ``ConfigError``."""
    from claudeops.store import close_store

    yield AppFactory(claudeops_state_dir, claudeops_environ, claudeops_builtins, claudeops_plugins)
    close_store()


@pytest.fixture
def claudeops_app(make_claudeops_app: AppFactory) -> App:
    """A loaded, migrated application of the ``claudeops_*`` fixtures, isolated in a temporary state dir."""
    return make_claudeops_app()


@pytest.fixture
def _claudeops_test_app(request: pytest.FixtureRequest, make_claudeops_app: AppFactory) -> Callable[[], App]:
    """The test's app when it is first needed, so a test that builds its own app builds no other."""

    def current() -> App:
        if not make_claudeops_app.built:
            request.getfixturevalue("claudeops_app")
        return make_claudeops_app.built[-1]

    return current


@pytest.fixture
def make_session(_claudeops_test_app: Callable[[], App], claudeops_clock: FakeClock) -> Callable[..., Session]:
    """Factory: ``make_session(tier=1, model="haiku", trigger="test")``, a session of the test's app
    with a real ``sessions`` row started at its clock's now. Keywords: ``clock`` (default
    ``claudeops_clock``), ``session_id`` (default: the database's choice), ``app`` (default the
    test's app), and any other ``Session`` field (``dry_run=True``, ``parent_id=...``)."""
    from claudeops.clock import now_timestamp
    from claudeops.session import Session
    from claudeops.session_rows import SessionRow, start_session_row

    def make(tier: int = 1, model: str = "haiku", trigger: str = "test", *, clock: Clock | None = None,
             session_id: int | None = None, app: App | None = None, **fields: Any) -> Session:
        app = _claudeops_test_app() if app is None else app
        clock = claudeops_clock if clock is None else clock
        started, parent_id = now_timestamp(clock), fields.get("parent_id")
        if session_id is None:
            session_id = start_session_row(tier, model, trigger, parent_id, started).id
        else:
            SessionRow.create(id=session_id, tier=tier, model=model, trigger=trigger, status="running",
                              started_at=started, parent_session_id=parent_id)
        return Session(id=session_id, tier=tier, model=model, trigger=trigger, config=app.config, hook=app.hook,
                       clock=clock, **fields)

    return make


@pytest.fixture
def feed_text(_claudeops_test_app: Callable[[], App]) -> Callable[..., None]:
    """``feed_text(session, text)``: one assistant text block through the runner's own stream
    dispatcher — ``on_assistant_text``, then each marker to its handler and ``on_marker`` — so
    ``session.markers_recorded`` counts what a session would. Strict: a failing handler or hook
    fails the test instead of being logged. ``app=`` picks another app than the test's."""
    from claudeops.runner.hookcalls import PluginCalls
    from claudeops.runner.stream import StreamDispatcher

    def feed(session: Session, text: str, *, app: App | None = None) -> None:
        app = _claudeops_test_app() if app is None else app
        asyncio.run(StreamDispatcher(session, app.markers, PluginCalls(app.pm, strict=True)).handle_text(text))

    return feed


class CommandRun(NamedTuple):
    """What the real ``claudeops`` command line did: its exit status, standard output and error."""

    code: int
    out: str
    err: str

    @property
    def output(self) -> str:
        """Both streams, as a terminal shows them."""
        return self.out + self.err


@pytest.fixture
def run_claudeops(capsys: pytest.CaptureFixture[str]) -> Callable[..., CommandRun]:
    """``run_claudeops("db", "status")``: the console script's own ``main`` (configuration from the
    environment, as a user's shell gives it, not the test's app) run in-process; the store it opened
    is closed after it. For what ``main`` does before any command: loading, refusing, exit codes."""
    from claudeops.cli.group import main
    from claudeops.store import close_store

    def run(*args: str) -> CommandRun:
        try:
            main(list(args))
            code = 0
        except SystemExit as exited:
            code = int(exited.code or 0)
        finally:
            close_store()
        captured = capsys.readouterr()
        return CommandRun(code, captured.out, captured.err)

    return run


@pytest.fixture
def invoke_cli(_claudeops_test_app: Callable[[], App]) -> Callable[..., Result]:
    """``invoke_cli("tickets", "list", "--json")``: the ``claudeops`` command line — core commands and
    those plugins register — run in-process against the test's app, as click's ``CliRunner`` runs
    it (keywords such as ``input=`` go to ``CliRunner.invoke``). Returns click's ``Result``."""
    from click.testing import CliRunner

    from claudeops.cli.group import build_cli

    def invoke(*args: str, app: App | None = None, **options: Any) -> Result:
        return CliRunner().invoke(build_cli(_claudeops_test_app() if app is None else app), list(args), **options)

    return invoke


@pytest.fixture
def register_plugin(_claudeops_test_app: Callable[[], App]) -> Iterator[Callable[[Any, str], None]]:
    """Register throwaway plugin objects in the test's app for the duration of one test."""
    registered: list[tuple[App, str]] = []

    def register(plugin: Any, name: str) -> None:
        app = _claudeops_test_app()
        app.pm.register(plugin, name=name)
        registered.append((app, name))

    yield register
    for app, name in registered:
        app.pm.unregister(name=name)


@pytest.fixture
def run_scripted_session(_claudeops_test_app: Callable[[], App], claudeops_clock: FakeClock) -> Callable[..., Outcome]:
    """Run a scripted session through the real SDK parser and the whole runner pipeline.

    ``run_scripted_session(["text with [MARKER] ...", ToolCall("Bash", {...}, "tool output"), ...],
    tier=1)`` — strings are assistant text blocks, ``ToolCall`` items are a tool use plus its
    result; other keywords are ``RunRequest`` fields (``clock`` defaults to ``claudeops_clock``).
    Runs in the test's app and returns the first session's :class:`~claudeops.session.Outcome`.
    """
    from claudeops.runner.chain import RunRequest, run_chain
    from claudeops.runner.script import ScriptTransport

    def run(script: Sequence[Any], tier: int = 1, **request_fields: Any) -> Outcome:
        request_fields.setdefault("clock", claudeops_clock)
        request = RunRequest(tier=tier, transport_factory=lambda _tier: ScriptTransport(script), **request_fields)
        return run_chain(_claudeops_test_app(), request)[0]

    return run
