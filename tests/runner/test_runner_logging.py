"""What ``claudeops run`` logs: JSON lines only with ``--log-format json``, the sessions' lifecycle at INFO,
log records above the live progress line, and the log flags accepted after ``run``."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import click.testing
import pytest
from click.testing import CliRunner
from rich.console import Console

from claudeops import hookimpl
from claudeops.cli.group import build_cli
from claudeops.cli.progress import LiveProgress, summary_line
from claudeops.exit_codes import EXIT_MEANINGS
from claudeops.logs import SDK_LOGGER, configure_logging
from claudeops.runner.chain import RunRequest, run_chain
from claudeops.runner.lock import RunLock
from claudeops.runner.replay import ReplayTransport
from claudeops.runner.script import script_to_stream
from claudeops.runner.session_run import SessionReport

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "sessions"
ESCALATE, ESCALATED = str(EXAMPLES / "escalate-tier1.jsonl"), str(EXAMPLES / "escalated-tier2.jsonl")
LOGGED_PACKAGES = ("claudeops", "claudeops_events", "claudeops_cooldowns", "claudeops_memory", "claudeops_web")


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """Each CLI invocation installs a handler and sets levels on the root logger; put them back afterwards."""
    root = logging.getLogger()
    handlers = list(root.handlers)
    levels = {name: logging.getLogger(name).level for name in (*LOGGED_PACKAGES, SDK_LOGGER)}
    yield
    root.handlers[:] = handlers
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


def invoke(app, *args: str):
    return CliRunner().invoke(build_cli(app), list(args), catch_exceptions=False)


def failing_recording(tmp_path: Path) -> str:
    path = tmp_path / "failing.jsonl"
    frames = script_to_stream(["API Error: 401 invalid x-api-key"], is_error=True, api_error_status=401)
    path.write_text("".join(json.dumps(frame) + "\n" for frame in frames))
    return str(path)


def json_records(stderr: str) -> list[dict]:
    return [json.loads(line) for line in stderr.splitlines()]  # fails on any line that is not JSON


def messages(stderr: str) -> list[str]:
    return [record["message"] for record in json_records(stderr)]


def test_with_json_logs_a_failed_session_is_one_json_error_record(runner_app, tmp_path):
    result = invoke(runner_app, "--log-format", "json", "run", "--replay", failing_recording(tmp_path))
    assert result.exit_code == 1 and result.stdout == ""
    [record] = json_records(result.stderr)
    assert record["level"] == "error"
    assert record["message"].startswith("session #1 (tier 1) failed: authentication failed (API status 401): ")
    assert (record["session_id"], record["tier"], record["status"]) == (1, 1, "failed")  # to filter on


def test_json_records_about_a_session_carry_its_id_tier_and_status(runner_app):
    result = invoke(runner_app, "--log-format", "json", "--log-level", "info", "run", "--replay", ESCALATE,
                    "--replay", ESCALATED)
    about_sessions = [(record["session_id"], record["tier"], record.get("status"))
                      for record in json_records(result.stderr) if "session_id" in record]
    assert about_sessions == [(1, 1, "running"), (1, 1, "escalated"), (1, 1, None),
                              (2, 2, "running"), (2, 2, "completed")]


def test_with_json_logs_an_error_before_any_session_is_a_json_record_too(runner_app, state_dir):
    with RunLock(state_dir):
        result = invoke(runner_app, "--log-format", "json", "run", "--replay", ESCALATE)
    assert result.exit_code == 75
    [record] = json_records(result.stderr)
    assert record["level"] == "error" and "another claudeops run" in record["message"]


def test_with_json_logs_every_stderr_line_is_json_even_on_info_and_on_a_terminal(runner_app, monkeypatch):
    # the stderr CliRunner puts in place during the command is one of these: make it a terminal
    monkeypatch.setattr(click.testing._NamedTextIOWrapper, "isatty", lambda self: True)
    result = invoke(runner_app, "--log-level", "info", "--log-format", "json", "run", "--replay", ESCALATE,
                    "--replay", ESCALATED)
    assert result.exit_code == 0
    assert any(message.startswith("session #2 ended: completed") for message in messages(result.stderr))


def test_info_logs_tell_each_sessions_start_end_and_the_escalation_between_them(runner_app):
    result = invoke(runner_app, "--log-level", "info", "run", "--replay", ESCALATE, "--replay", ESCALATED)
    lines = [line for line in result.stderr.splitlines() if "migration" not in line]
    assert lines == [
        "claudeops: INFO: session #1 started: tier 1, model haiku, trigger replay",
        "claudeops: INFO: session #1 ended: escalated; 5 turns, 4 tool calls, 0 tools denied, 1 marker recorded, "
        "7.5 s",
        "claudeops: INFO: session #1 escalates: starting tier 2: nextcloud returns 502 twice; container "
        "nextcloud-app OOM-killed (exit 137) at 02:47 and not restarted; database and proxy are healthy, so a "
        "restart of nextcloud-app should bring it back",
        "claudeops: INFO: session #2 started: tier 2, model sonnet, trigger escalation, escalated from session #1",
        "claudeops: INFO: session #2 ended: completed; 6 turns, 5 tool calls, 0 tools denied, 0 markers recorded, "
        "9.0 s",
    ]


def test_info_logs_give_a_failed_sessions_reason_and_leave_out_counts_it_never_had(runner_app, caplog):
    frames = [frame for frame in script_to_stream(["checking"]) if frame["type"] != "result"]
    caplog.set_level(logging.INFO, logger="claudeops.runner.session_run")
    run_chain(runner_app, RunRequest(transport_factory=lambda tier: ReplayTransport(frames)))
    assert "session #1 ended: failed (the stream ended without a result (Claude Code stopped early)); " \
           "0 tool calls, 0 tools denied, 0 markers recorded, " in caplog.messages[-1]


def test_info_logs_say_why_an_escalation_was_suppressed(runner_app):
    result = invoke(runner_app, "--log-level", "info", "run", "--replay", ESCALATE, "--no-escalate")
    assert "claudeops: INFO: escalation of session #1 to tier 2 suppressed (escalation is off (--no-escalate)): " \
           "nextcloud returns 502 twice;" in result.stderr


def test_at_the_default_log_level_a_run_with_an_escalation_prints_nothing(runner_app):
    result = invoke(runner_app, "run", "--replay", ESCALATE, "--replay", ESCALATED)
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")


def test_log_flags_are_accepted_after_run_and_win_over_the_groups(runner_app, tmp_path):
    result = invoke(runner_app, "run", "--replay", failing_recording(tmp_path), "--log-format", "json")
    assert json_records(result.stderr)[0]["level"] == "error"
    result = invoke(runner_app, "--log-format", "json", "--log-level", "info", "run", "--replay", ESCALATE,
                    "--no-escalate", "--log-format", "text", "--log-level", "warning")
    assert (result.exit_code, result.stderr) == (0, "")


class BrokenNotifier:
    @hookimpl
    def on_marker(self) -> None:
        raise RuntimeError("cannot notify")


def test_a_record_logged_while_the_live_line_shows_is_printed_above_it(runner_app, capsys):
    configure_logging("warning", "text")
    runner_app.pm.register(BrokenNotifier(), name="broken-notifier")
    output = io.StringIO()
    progress = LiveProgress(Console(file=output, force_terminal=True, color_system=None, width=200))
    run_chain(runner_app, RunRequest.replaying([Path(ESCALATE)], escalate=False, observer=progress))
    text = output.getvalue()
    record = "claudeops: ERROR: plugin 'broken-notifier' failed in hook on_marker: RuntimeError: cannot notify"
    assert record in text and capsys.readouterr().err == ""  # through the live display's console, not around it
    assert "● session #1 · tier 1" in text.split(record, 1)[1]  # and the live line is drawn again below it


def report(**counts: int) -> SessionReport:
    return SessionReport("completed", None, None, None, counts["turns"], 1000, None, session_id=4, tier=1,
                         model="haiku", tool_calls=counts["tool_calls"], markers_recorded=counts["markers"])


def test_the_summary_line_counts_in_the_singular_and_the_plural():
    assert "· 1 turn · 1 tool call · 1 marker ·" in summary_line(report(turns=1, tool_calls=1, markers=1))
    assert "· 2 turns · 0 tool calls · 3 markers ·" in summary_line(report(turns=2, tool_calls=0, markers=3))


def test_run_help_and_the_docs_give_the_same_meaning_for_every_exit_code(runner_app):
    help_text = CliRunner().invoke(build_cli(runner_app), ["run", "--help"]).output
    docs = (ROOT / "docs" / "runner.md").read_text()
    for code, meaning in EXIT_MEANINGS.items():
        assert f"{code} {meaning}" in help_text
        assert re.search(rf"^\| {code} \| {re.escape(meaning)}( \(.*\))? \|$", docs, re.MULTILINE), code


@pytest.mark.parametrize(("level", "shown"), [("warning", False), ("error", False), ("info", True), ("debug", True)])
def test_the_sdks_own_error_records_reach_stderr_only_at_info_and_debug(level, shown, capsys):
    """The SDK logs a CLI crash the runner already reports as the session's one line: cron must not get it thrice."""
    configure_logging(level)
    logging.getLogger("claude_agent_sdk._internal.query").error(
        "Fatal error in message reader: Command failed with exit code 1\nError output: Check stderr output for details")
    assert ("Fatal error in message reader" in capsys.readouterr().err) is shown
