"""Lock patience covers every write of a run: another process holding SQLite's write lock past the
busy timeout is waited out at start-up (migrations, the repair of abandoned rows), at session
start (the row, the plugins' ``before_session``), for every marker and for the final row; a lock
held past the patience fails loudly, never weaker in silence.

The busy timeout is cut to 0.1 s (``short_busy_timeout``) and the lock held for about a second by
another process, so each case meets the real mechanism (SQLite refusing as locked, then the
runner's retries) without the 5 s wait.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from runner_helpers import CORE_ONLY, RecordingPlugin, notes, row

from claudeops import hookimpl
from claudeops.app import App
from claudeops.cli.group import main
from claudeops.exit_codes import EXIT_FAILED, EXIT_OK
from claudeops.plugins import DEFAULT_PLUGINS
from claudeops.runner.chain import RunRequest, execute, run_chain
from claudeops.runner.script import script_to_stream
from claudeops.session_rows import ABANDONED_REASON, SessionRow, start_session_row
from claudeops.store import close_store

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sessions"
HEALTHY = EXAMPLES / "healthy-tier1.jsonl"


class SectionsSeen:
    """Remembers the prompt sections each session went into its stream with."""

    def __init__(self) -> None:
        self.sections: dict[int, list[str]] = {}

    @hookimpl
    def after_session(self, session) -> None:
        self.sections[session.id] = [section.name for section in session.ordered_sections()]


class LocksAtSessionStart:
    """Another process takes the write lock just as ``before_session`` begins (before every other plugin)."""

    def __init__(self, hold, seconds: float) -> None:
        self.hold, self.seconds = hold, seconds

    @hookimpl(tryfirst=True)
    def before_session(self) -> None:
        self.hold(self.seconds)


def test_a_lock_held_during_start_up_is_waited_out_and_the_abandoned_row_repaired(
        runner_app, short_busy_timeout, hold_write_lock, caplog):
    abandoned = start_session_row(1, "haiku", "scheduled", None, "2025-06-01T00:00:00Z").id
    close_store()
    hold_write_lock(1.0)  # the 7-8 s against a 5 s busy timeout, scaled down
    result = execute(runner_app, RunRequest.replaying([HEALTHY]))
    assert result.exit_code == EXIT_OK and [report.status for report in result.sessions] == ["completed"]
    assert (row(abandoned).status, row(abandoned).error) == ("interrupted", ABANDONED_REASON)
    assert ("marking sessions a dead run left running as interrupted: the database is locked by another process; "
            "retrying for up to 60 s") in caplog.text


def test_migrations_pending_at_start_up_wait_out_a_lock(runner_app, state_dir, short_busy_timeout, hold_write_lock):
    """A plugin installed since the last run has migrations to apply while the database is locked."""
    close_store()
    upgraded = App.load(None, {"CLAUDEOPS_STATE_DIR": str(state_dir)}, entry_points=False,
                        builtins=(*CORE_ONLY, "claudeops_events"), extra_plugins=[RecordingPlugin()])
    hold_write_lock(1.0)
    result = execute(upgraded, RunRequest.replaying([HEALTHY]))
    assert result.exit_code == EXIT_OK
    assert all(status.applied_at for status in upgraded.migration_status())


def test_a_lock_held_past_the_patience_at_start_up_is_one_line_and_no_session(
        runner_app, state_dir, short_busy_timeout, hold_write_lock, monkeypatch, capsys):
    """The real command line (``main``), as cron starts it."""
    start_session_row(1, "haiku", "scheduled", None, "2025-06-01T00:00:00Z")  # to repair, under the lock
    close_store()
    monkeypatch.setenv("CLAUDEOPS_STATE_DIR", str(state_dir))
    monkeypatch.setenv("CLAUDEOPS_LOCK_PATIENCE_SECONDS", "0.3")
    hold_write_lock(2.0)
    with pytest.raises(SystemExit) as exited:
        main(["run", "--replay", str(HEALTHY)])
    assert exited.value.code == EXIT_FAILED
    [line] = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert line.startswith("claudeops: error: database error: ")
    assert line.endswith(": the database stayed locked by another process for 0.3 s")
    runner_app.open_store(migrate=False)
    assert SessionRow.select().count() == 1  # the abandoned one, and no new session


def test_memory_waits_out_a_lock_at_session_start_and_its_block_goes_into_the_prompt(
        make_claudeops_app, short_busy_timeout, hold_write_lock):
    seen = SectionsSeen()
    app = make_claudeops_app(builtins=DEFAULT_PLUGINS, plugins=[seen, LocksAtSessionStart(hold_write_lock, 1.0)])
    run_chain(app, RunRequest.replaying([HEALTHY]))  # the example session records a memory
    [report] = run_chain(app, RunRequest.replaying([HEALTHY]))
    assert report.status == "completed" and "memory" in seen.sections[report.session_id]


def test_memory_that_cannot_build_its_block_fails_the_session_instead_of_running_without_it(
        make_claudeops_app, short_busy_timeout, hold_write_lock):
    """The issue's case: before, the session completed with exit 0 and no memory block."""
    seen = SectionsSeen()
    app = make_claudeops_app({"CLAUDEOPS_LOCK_PATIENCE_SECONDS": "1"}, builtins=DEFAULT_PLUGINS,
                             plugins=[seen, LocksAtSessionStart(hold_write_lock, 1.8)])
    result = execute(app, RunRequest.replaying([HEALTHY]))
    [report] = result.sessions
    assert result.exit_code == EXIT_FAILED and report.status == "failed"
    assert report.reason == ("plugin 'claudeops_memory' failed in hook before_session: the database stayed locked "
                             "by another process for 1 s")
    assert (report.tool_calls, report.markers_recorded, report.num_turns) == (0, 0, None)  # the model never ran
    assert row(report.session_id).error == report.reason


def test_a_marker_stored_while_the_database_is_locked_is_kept_once(runner_app, short_busy_timeout, hold_write_lock):
    class LocksBeforeTheMarker:
        @hookimpl
        def on_assistant_text(self) -> None:
            hold_write_lock(1.0)

    runner_app.pm.register(LocksBeforeTheMarker())
    [report] = run_chain(runner_app, RunRequest.replaying([script_to_stream(["[NOTE] kept through the lock"])]))
    assert report.status == "completed" and notes() == ["kept through the lock"]


def test_the_final_row_waits_out_a_lock(runner_app, short_busy_timeout, hold_write_lock):
    class LocksAtTheResult:
        @hookimpl
        def on_message(self, message) -> None:
            if type(message).__name__ == "ResultMessage":
                hold_write_lock(1.0)

    runner_app.pm.register(LocksAtTheResult())
    [report] = run_chain(runner_app, RunRequest.replaying([HEALTHY]))
    assert (report.status, row(report.session_id).status) == ("completed", "completed")


@pytest.mark.parametrize("required", [True, False])
def test_a_third_party_plugin_is_optional_unless_it_declares_itself_required(runner_app, required, caplog):
    class Ticketing:
        claudeops_required = required

        @hookimpl
        def before_session(self) -> None:
            raise RuntimeError("ticket server unreachable")

    runner_app.pm.register(Ticketing(), name="ticketing")
    [report] = run_chain(runner_app, RunRequest.replaying([HEALTHY]))
    line = "plugin 'ticketing' failed in hook before_session: RuntimeError: ticket server unreachable"
    assert line in caplog.text
    if required:
        assert (report.status, report.reason) == ("failed", line)
    else:
        assert report.status == "completed" and report.plugin_failures == (line,)
