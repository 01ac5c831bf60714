"""Session row lifecycle: running → completed | failed (with a reason) | interrupted (issue 3, item 3)."""

from __future__ import annotations

import gc
import os
import signal
import socket
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from claude_agent_sdk import ProcessError, ResultMessage
from runner_helpers import events, notes, row

from claudeops import hookimpl
from claudeops.runner.chain import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, RunRequest, execute, run_chain
from claudeops.runner.failures import exception_failure, result_failure
from claudeops.runner.lock import LockHeld, RunLock, run_domain
from claudeops.runner.replay import ReplayTransport
from claudeops.runner.script import ScriptTransport, bash, script_to_stream
from claudeops.session_rows import SessionRow, start_session_row
from claudeops.store import db


class HangingTransport(ReplayTransport):
    """Plays its frames, then hangs like a CLI waiting for an API that never answers."""

    async def read_messages(self):  # type: ignore[override]
        async for frame in super().read_messages():
            yield frame
        await anyio.sleep_forever()


def run_with(app: Any, transport: Any, **fields: Any):
    return run_chain(app, RunRequest(transport_factory=lambda tier: transport, **fields))


@pytest.mark.parametrize(("script", "reason"), [
    ({"is_error": True, "api_error_status": 401}, "authentication failed (API status 401)"),
    ({"is_error": True, "api_error_status": 500}, "API error status 500"),
    ({"is_error": True, "subtype": "error_max_turns", "errors": ["Reached maximum number of turns (3)"]},
     "max turns reached (max_turns is 30)"),
    ({"is_error": True, "subtype": "error_max_budget_usd", "cost_usd": 0.51}, "budget exceeded ($0.51 spent)"),
    ({"is_error": True}, "API error: something"),
])
def test_an_error_result_fails_the_session_with_a_one_line_reason(runner_app, script, reason):
    [report] = run_with(runner_app, ScriptTransport(["API Error: something"], exit_code=1, **script))
    stored = row(report.session_id)
    assert stored.status == "failed" and reason in stored.error and "\n" not in stored.error
    assert ("critical", f"session failed: {stored.error}") in events(report.session_id)


def test_an_authentication_failure_without_a_status_says_what_to_check():
    result = ResultMessage(subtype="success", duration_ms=1, duration_api_ms=0, is_error=True, num_turns=1,
                           session_id="s", result="Not logged in · Please run /login")
    assert result_failure(result, "authentication_failed") == (
        "authentication failed (Not logged in · Please run /login): check ANTHROPIC_API_KEY or "
        "CLAUDE_CODE_OAUTH_TOKEN in the runner's environment")


def test_a_stream_that_ends_without_a_result_is_a_failure(runner_app):
    frames = script_to_stream(["[NOTE] partial"])[:-1]
    [report] = run_with(runner_app, ReplayTransport(frames))
    assert report.status == "failed" and "without a result" in report.reason
    assert notes() == ["partial"]


def test_a_cli_crash_without_a_result_reports_the_exit_code(runner_app):
    frames = script_to_stream(["working"])[:-1]
    [report] = run_with(runner_app, ReplayTransport(frames, exit_code=3))
    assert report.status == "failed" and "exit code 3" in report.reason


def test_a_cli_crash_quotes_its_last_stderr_line_in_the_reason():
    """The SDK's ProcessError only says "Check stderr output for details"; the line the CLI last wrote says why."""
    crash = ProcessError("Command failed with exit code 2", exit_code=2, stderr="Check stderr output for details")
    tail = ["starting up", "error: unknown option '--bogus'", "  ", ""]
    assert exception_failure(crash, tail) == "Claude Code exited with exit code 2: error: unknown option '--bogus'"
    assert exception_failure(crash, []) == "Claude Code exited with exit code 2"


def test_a_session_past_its_timeout_fails_and_keeps_its_markers(runner_app):
    runner_app.config.override("tier1.timeout_seconds", 0.3)
    frames = script_to_stream(["[NOTE] seen before the hang", bash("sleep 999", "")])[:-1]
    [report] = run_with(runner_app, HangingTransport(frames))
    assert (report.status, report.reason) == ("failed", "timeout after 0.3 s")
    assert notes() == ["seen before the hang"]
    assert row(report.session_id).ended_at is not None


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_sigterm_or_ctrl_c_interrupts_the_session_records_it_and_keeps_earlier_markers(runner_app, signum):
    class SendSignal:
        sent = False

        @hookimpl
        def on_marker(self):
            if not self.sent:  # once: a stray SIGTERM or SIGINT after the run would kill or stop pytest itself
                self.sent = True
                threading.Timer(0.2, os.kill, (os.getpid(), signum)).start()

    runner_app.pm.register(SendSignal(), name="send-signal")
    for tier in (1, 2, 3):  # bounded: a signal the runner ignores ends in timeouts and a failed test, never a hang
        runner_app.config.override(f"tier{tier}.timeout_seconds", 10)
    frames = script_to_stream(["[NOTE] before the signal\n[ESCALATE] would escalate"])[:-1]
    previous = signal.signal(signum, lambda *_: None)  # a signal the runner misses must not kill or stop pytest
    try:
        result = execute(runner_app, RunRequest(transport_factory=lambda tier: HangingTransport(frames)))
    finally:
        signal.signal(signum, previous)
    [report] = result.sessions
    assert (report.status, report.reason) == ("interrupted", f"interrupted by {signum.name}")
    assert result.exit_code == EXIT_INTERRUPTED
    assert notes() == ["before the signal"]
    assert row(report.session_id).status == "interrupted"
    assert SessionRow.select().count() == 1  # no escalation after an interrupt


def test_a_row_left_running_by_a_dead_process_is_marked_interrupted_at_the_next_start(runner_app):
    abandoned = start_session_row(1, "haiku", "scheduled", None, "2026-01-01T00:00:00Z")
    result = execute(runner_app, RunRequest.replaying([script_to_stream(["fine"])]))
    assert result.exit_code == EXIT_OK
    stored = row(abandoned.id)
    assert stored.status == "interrupted" and "died" in stored.error


def test_only_this_runners_abandoned_rows_are_settled_when_hosts_share_a_database(runner_app, state_dir):
    ours = start_session_row(1, "haiku", "scheduled", None, "2026-01-01T00:00:00Z", run_domain(state_dir))
    other_host = start_session_row(1, "haiku", "scheduled", None, "2026-01-01T00:00:00Z", "nas:/var/lib/claudeops")
    other_dir = start_session_row(1, "haiku", "scheduled", None, "2026-01-01T00:00:00Z",
                                  run_domain(state_dir.parent / "elsewhere"))
    [report] = execute(runner_app, RunRequest.replaying([script_to_stream(["fine"])])).sessions
    assert row(ours.id).status == "interrupted"
    assert (row(other_host.id).status, row(other_dir.id).status) == ("running", "running")  # live elsewhere
    assert row(report.session_id).runner == run_domain(state_dir) == f"{socket.gethostname()}:{state_dir}"


def test_a_second_run_while_one_holds_the_lock_does_not_start(runner_app, state_dir):
    with RunLock(state_dir), pytest.raises(LockHeld, match=f"pid {os.getpid()}"):
        execute(runner_app, RunRequest.replaying([script_to_stream(["fine"])]))
    assert SessionRow.select().count() == 0


def test_exit_codes_add_up_over_the_chain(runner_app):
    ok = execute(runner_app, RunRequest.replaying([script_to_stream(["fine"])]))
    failed = execute(runner_app, RunRequest.replaying([script_to_stream(["x"], is_error=True,
                                                                        api_error_status=529)]))
    assert (ok.exit_code, failed.exit_code) == (EXIT_OK, EXIT_FAILED)


def test_a_finished_session_leaves_nothing_for_the_cycle_collector(runner_app):
    """Freed by reference counting as it ends: a cycle through the transport once kept the recording,
    the transcript writer and the closed event loop alive until the cyclic collector ran (ms each time)."""
    recording = script_to_stream(["checking", bash("docker ps", "jellyfin Up 3 days"), "all fine"])
    run_with(runner_app, ReplayTransport(recording), tier=1)  # first run: lazy imports and caches
    gc.collect()
    gc.disable()
    try:
        [report] = run_with(runner_app, ReplayTransport(recording), tier=1)
        assert report.status == "completed"
        assert gc.collect() == 0
    finally:
        gc.enable()


class LockingTransport(ScriptTransport):
    """A script during which another process (an operator's ``sqlite3`` shell) holds the write lock.

    The lock is taken just before the frame of type ``lock_before`` and released ``seconds`` later.
    """

    def __init__(self, steps: list[Any], database: Path, lock_before: str, seconds: float) -> None:
        super().__init__(steps)
        self.database, self.lock_before, self.seconds = database, lock_before, seconds
        self.holder: threading.Thread | None = None

    async def read_messages(self):  # type: ignore[override]
        async for frame in super().read_messages():
            if frame["type"] == self.lock_before and self.holder is None:
                self.holder = hold_the_write_lock(self.database, self.seconds)
            yield frame


def hold_the_write_lock(database: Path, seconds: float) -> threading.Thread:
    taken = threading.Event()

    def hold() -> None:
        other = sqlite3.connect(database, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        taken.set()
        time.sleep(seconds)
        other.execute("COMMIT")
        other.close()

    holder = threading.Thread(target=hold)
    holder.start()
    taken.wait()
    return holder


@pytest.mark.parametrize("lock_before", ["assistant", "result"])
def test_a_database_locked_past_the_busy_timeout_is_waited_out_and_nothing_is_lost(runner_app, state_dir,
                                                                                  lock_before, caplog):
    db.execute_sql("PRAGMA busy_timeout = 50")  # each attempt gives up after 50 ms instead of 5 s
    transport = LockingTransport(["[NOTE] seen while another process held the lock"], state_dir / "claudeops.db",
                                 lock_before, seconds=0.6)
    [report] = run_with(runner_app, transport)
    transport.holder.join()
    assert notes() == ["seen while another process held the lock"]
    assert row(report.session_id).status == "completed" and report.markers_recorded == 1
    assert "the database is locked by another process; retrying for up to 60 s" in caplog.text


def test_the_row_keeps_the_results_wall_and_model_api_durations(runner_app):
    [report] = run_with(runner_app, ScriptTransport(["all healthy"]))
    stored = row(report.session_id)
    assert (stored.duration_ms, stored.duration_api_ms) == (1500, 1200)  # what the result frame reported
    assert report.as_dict()["duration_api_ms"] == 1200
