"""Shared set-up for the events and cooldowns plugin tests: an app with only the plugins they
need, sessions with a controllable clock, markers fed the way the runner feeds them."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import click
from click.testing import CliRunner, Result

import claudeops.clock
from claudeops.app import App
from claudeops.cli.group import AppState
from claudeops.clock import to_timestamp
from claudeops.runner.hookcalls import PluginCalls
from claudeops.runner.stream import StreamDispatcher
from claudeops.session import Session
from claudeops.session_rows import start_session_row

BUILTINS = ("claudeops.environment", "claudeops.escalation", "claudeops_events", "claudeops_cooldowns")
START = datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC)


@dataclass
class FakeClock(claudeops.clock.FakeClock):
    """The shared fake clock, starting at this suite's ``START``."""

    moment: datetime = START


def load_app(state_dir: Path, environ: Mapping[str, str] | None = None) -> App:
    """A migrated app in ``state_dir`` with the core, events and cooldowns plugins only."""
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(state_dir), **(environ or {})}, entry_points=False,
                   builtins=BUILTINS)
    app.open_store()
    return app


def new_session(app: App, tier: int = 2, clock: FakeClock | None = None) -> Session:
    """A session with a real ``sessions`` row, on ``clock`` (a fresh fake clock by default)."""
    clock = clock or FakeClock()
    row = start_session_row(tier, "sonnet", "test", None, to_timestamp(clock()))
    return Session(id=row.id, tier=tier, model="sonnet", trigger="test", config=app.config, hook=app.hook,
                   clock=clock)


def feed(app: App, session: Session, text: str) -> None:
    """Dispatch the markers of one assistant text block through the runner's own stream dispatcher,
    so ``session.markers_recorded`` counts what a session would; strict, so a failing handler fails the test."""
    asyncio.run(StreamDispatcher(session, app.markers, PluginCalls(app.pm, strict=True)).handle_text(text))


def invoke(app: App, *args: str) -> Result:
    """Run a plugin command as ``claudeops`` would, with the commands plugins registered."""
    group = click.Group("claudeops")
    app.hook.register_commands(cli=group)
    return CliRunner().invoke(group, list(args), obj=AppState(app, None))
