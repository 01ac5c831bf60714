"""``claudeops run``: flags, exit codes, cron silence, JSON, live progress, the shipped examples."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console
from runner_helpers import CORE_ONLY, events

from claudeops.app import App
from claudeops.cli.group import build_cli
from claudeops.cli.progress import LiveProgress
from claudeops.clock import FakeClock
from claudeops.runner.chain import EXIT_LOCKED, RunRequest, run_chain
from claudeops.runner.lock import RunLock
from claudeops.runner.replay import ReplayTransport
from claudeops.runner.script import script_to_stream
from claudeops.session_rows import SessionRow
from claudeops.store import db

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sessions"


def invoke(app, *args: str):
    return CliRunner().invoke(build_cli(app), ["run", *args], catch_exceptions=False)


def recording(tmp_path: Path, frames: list[dict], name: str = "session.jsonl") -> str:
    path = tmp_path / name
    path.write_text("".join(json.dumps(frame) + "\n" for frame in frames))
    return str(path)


def test_a_healthy_run_from_cron_prints_nothing_and_exits_0(runner_app):
    result = invoke(runner_app, "--replay", str(EXAMPLES / "healthy-tier1.jsonl"))
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert SessionRow.get().status == "completed"


def test_json_prints_a_machine_readable_summary(runner_app):
    result = invoke(runner_app, "--replay", str(EXAMPLES / "healthy-tier1.jsonl"), "--json")
    summary = json.loads(result.stdout)
    assert summary["exit_code"] == 0
    [session] = summary["sessions"]
    assert session["status"] == "completed" and session["tier"] == 1 and session["trigger"] == "replay"
    assert session["cost_usd"] == 0.0187 and session["tool_calls"] == 6 and session["model"] == "claude-haiku-4-5"


def test_a_replayed_file_reaches_the_transcript_line_for_line(runner_app, state_dir):
    example = EXAMPLES / "healthy-tier1.jsonl"
    assert invoke(runner_app, "--replay", str(example)).exit_code == 0
    written = Path(SessionRow.get().transcript_path).read_text().splitlines()
    recorded = [line.strip() for line in example.read_text().splitlines() if line.strip()]
    assert [line for line in written if '"control_' not in line] == [
        line for line in recorded if '"control_' not in line]


def test_a_failed_session_prints_one_line_on_stderr_and_exits_1(runner_app, tmp_path):
    frames = script_to_stream(["API Error: 401 invalid x-api-key"], is_error=True, api_error_status=401)
    result = invoke(runner_app, "--replay", recording(tmp_path, frames))
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("claudeops: session #1 (tier 1) failed: authentication failed (API status 401): ")
    assert result.stderr.count("\n") == 1


def test_a_second_run_exits_at_once_with_the_lock_code(runner_app, state_dir):
    with RunLock(state_dir):
        result = invoke(runner_app, "--replay", str(EXAMPLES / "healthy-tier1.jsonl"))
    assert result.exit_code == EXIT_LOCKED == 75
    assert "another claudeops run" in result.stderr and "holds" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_an_unusable_recording_is_a_usage_error(runner_app, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "system", "subtype": "init"}\nnot json\n')
    result = invoke(runner_app, "--replay", str(bad))
    assert result.exit_code == 2 and f"{bad}:2: not a JSON line" in result.stderr


def without_model(frame: dict) -> None:
    del frame["message"]["model"]


def with_string_content(frame: dict) -> None:
    frame["message"]["content"] = "all good"


def with_a_string_message(frame: dict) -> None:
    frame["message"] = "all good"


def without_duration(frame: dict) -> None:
    del frame["duration_ms"]


@pytest.mark.parametrize(("spoil", "index", "problem"), [
    (without_model, 1, "Missing required field in assistant message: 'model'"),
    (with_string_content, 1, "Invalid assistant content (expected list, got str)"),
    (with_a_string_message, 1, "string indices must be integers, not 'str'"),
    (without_duration, 2, "Missing required field in result message: 'duration_ms'"),
])
def test_a_frame_the_sdk_cannot_parse_is_refused_before_any_session(runner_app, tmp_path, spoil, index, problem):
    frames = script_to_stream(["all good"])
    spoil(frames[index])
    control = {"type": "control_response", "response": {"subtype": "success", "request_id": "req_1"}}
    bad = recording(tmp_path, [frames[0], control, *frames[1:]])  # line numbers count the skipped control frame
    result = invoke(runner_app, "--replay", str(bad))
    assert result.exit_code == 2
    assert result.stderr == f"claudeops: error: {bad}:{index + 2}: the SDK cannot parse this frame: {problem}\n"
    assert SessionRow.select().count() == 0 and events() == []


def test_a_missing_recording_is_a_one_line_usage_error(runner_app, tmp_path):
    missing = tmp_path / "missing.jsonl"
    result = invoke(runner_app, "--replay", str(missing))
    assert result.exit_code == 2
    assert result.stderr == f"claudeops: error: {missing}: cannot read recording: No such file or directory\n"


@pytest.mark.parametrize(("text", "problem"), [
    ("", "recording is empty"),
    ("\n  \n", "recording is empty"),
    ('{"type": "system", "subtype": "init"}\n', "recording has no result frame; was the session cut short?"),
])
def test_an_empty_recording_is_told_apart_from_a_cut_short_one(runner_app, tmp_path, text, problem):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text)
    result = invoke(runner_app, "--replay", str(bad))
    assert (result.exit_code, result.stderr) == (2, f"claudeops: error: {bad}: {problem}\n")


def test_a_missing_prompt_file_is_a_config_error_before_any_session(runner_app, tmp_path):
    runner_app.config.override("tier1.prompt", str(tmp_path / "nope.md"))
    result = invoke(runner_app, "--replay", str(EXAMPLES / "healthy-tier1.jsonl"))
    assert result.exit_code == 2 and "tier1.prompt" in result.stderr
    assert SessionRow.select().count() == 0


@pytest.mark.parametrize("kind", ["missing", "a file"])
def test_a_mistyped_prompts_dir_is_a_config_error_before_any_session(make_claudeops_app, tmp_path, kind):
    prompts_dir = tmp_path / "promtps"
    if kind == "a file":
        prompts_dir.write_text("")
    app = make_claudeops_app({"CLAUDEOPS_PROMPTS_DIR": str(prompts_dir)})
    result = invoke(app, "--replay", str(EXAMPLES / "healthy-tier1.jsonl"))
    stored = SessionRow.select().count()
    problem = "does not exist" if kind == "missing" else "is not a directory"
    assert (result.exit_code, stored) == (2, 0)
    assert result.stderr == (f"claudeops: error: prompts_dir: {prompts_dir} {problem} (set by env "
                             "CLAUDEOPS_PROMPTS_DIR; unset it to use the shipped prompts)\n")


def test_flags_override_the_starting_tiers_config(runner_app):
    invoke(runner_app, "--tier", "2", "--replay", str(EXAMPLES / "healthy-tier1.jsonl"), "--model", "opus",
           "--max-turns", "5", "--max-budget-usd", "1.5", "--timeout", "60", "--trigger", "webhook")
    settings = runner_app.config.tier(2)
    assert (settings.model, settings.max_turns, settings.max_budget_usd, settings.timeout_seconds) == (
        "opus", 5, 1.5, 60.0)
    assert runner_app.config.sources["tier2.model"] == "flag"
    stored = SessionRow.get()
    assert (stored.tier, stored.trigger) == (2, "webhook")


@pytest.mark.parametrize("model", ["", "  ", "claude opus"])
def test_a_model_flag_with_no_name_is_a_one_line_usage_error_before_any_session(runner_app, model):
    result = invoke(runner_app, "--replay", str(EXAMPLES / "healthy-tier1.jsonl"), "--model", model)
    message = f"flag: 'tier1.model' must be a model alias or name without blanks, not {model!r}"
    assert (result.exit_code, result.stderr) == (2, f"claudeops: error: {message}\n")
    assert SessionRow.select().count() == 0


def test_help_explains_replay_escalation_and_exit_codes(runner_app):
    text = CliRunner().invoke(build_cli(runner_app), ["run", "--help"]).output
    for phrase in ("--replay FILE", "--no-escalate", "--dry-run", "75 another run holds the lock",
                   "130 interrupted", "[ESCALATE] reason"):
        assert phrase in text


def test_the_prompt_flag_replaces_the_tier_prompt_but_keeps_marker_sections(runner_app):
    transport = ReplayTransport(script_to_stream(["ok"]))
    run_chain(runner_app, RunRequest(prompt="Only check the NAS.", transport_factory=lambda tier: transport))
    [user] = [frame for frame in transport.written if frame["type"] == "user"]
    prompt = user["message"]["content"]
    assert prompt.startswith("Only check the NAS.") and "## Notes" in prompt and "## Escalation" in prompt


def test_a_terminal_gets_a_live_progress_line_and_a_summary(runner_app):
    output = io.StringIO()
    progress = LiveProgress(Console(file=output, force_terminal=True, width=200))
    run_chain(runner_app, RunRequest.replaying([EXAMPLES / "healthy-tier1.jsonl"], observer=progress))
    text = output.getvalue()
    assert "session #1 · tier 1 · claude-haiku-4-5 · 7 turns · 6 tool calls · 0 markers" in text  # live
    assert "session #1 · tier 1 · claude-haiku-4-5 · completed · 7 turns · 6 tool calls · 0 markers" in text


def count(table: str) -> int:
    return db.execute_sql(f"SELECT COUNT(*) FROM {table}").fetchone()[0]


def test_the_healthy_example_records_memories_and_events(full_app):
    [report] = run_chain(full_app, RunRequest.replaying([EXAMPLES / "healthy-tier1.jsonl"]))
    assert report.status == "completed" and report.markers_recorded == 4
    assert (count("memories"), count("events")) == (2, 2)


def test_the_escalation_example_replays_both_tiers(full_app):
    parent, child = run_chain(full_app, RunRequest.replaying(
        [EXAMPLES / "escalate-tier1.jsonl", EXAMPLES / "escalated-tier2.jsonl"]))
    assert (parent.status, child.status, child.tier, child.parent_session_id) == (
        "escalated", "completed", 2, parent.session_id)
    assert count("cooldown_actions") == 1 and count("memories") == 1


def refused_tool_results(report) -> list[str]:
    """The error tool results of a session's transcript: where the replay puts a refusal, as the CLI does."""
    frames = [json.loads(line) for line in Path(report.transcript_path).read_text().splitlines()]
    return [block["content"] for frame in frames if frame["type"] == "user"
            for block in frame["message"]["content"] if block.get("is_error")]


def test_the_escalation_example_replayed_past_the_restart_limit_has_its_restart_refused(full_app):
    """§ Replay: replayed against today's cooldowns, a recording shows what would be refused. The
    restart is counted under the name the command restarts, so the third replay's restart is refused."""
    clock = FakeClock()
    pair = [EXAMPLES / "escalate-tier1.jsonl", EXAMPLES / "escalated-tier2.jsonl"]
    for _ in range(2):  # the default limit: 2 restarts in any 4 h
        _, child = run_chain(full_app, RunRequest.replaying(pair, clock=clock))
        assert (child.tools_denied, refused_tool_results(child)) == (0, [])
        clock.advance(hours=1)
    _, child = run_chain(full_app, RunRequest.replaying(pair, clock=clock))
    assert child.tools_denied == 1
    [refusal] = refused_tool_results(child)
    assert refusal.startswith(
        "Refused by claudeops cooldowns: `docker restart nextcloud-app` would restart nextcloud-app, which already "
        "had 2 restarts in the last 4 h (limit 2 per 4 h); the next restart of nextcloud-app is allowed from "
        "2026-01-01T16:00:00Z.")


def test_marker_text_in_tool_output_is_not_recorded(full_app):
    [report] = run_chain(full_app, RunRequest.replaying([EXAMPLES / "marker-in-tool-output-tier1.jsonl"]))
    assert report.markers_recorded == 1 and report.escalation_requested is None
    assert (count("memories"), count("events")) == (0, 1)


def test_a_plugin_failure_from_cron_is_one_logged_line_and_the_run_succeeds(runner_app):
    from claudeops import hookimpl

    class Broken:
        @hookimpl
        def on_marker(self):
            raise RuntimeError("cannot notify")

    runner_app.pm.register(Broken(), name="broken-notifier")
    result = invoke(runner_app, "--replay", str(EXAMPLES / "escalate-tier1.jsonl"), "--no-escalate")
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr.splitlines() == [
        "claudeops: ERROR: plugin 'broken-notifier' failed in hook on_marker: RuntimeError: cannot notify"]


def test_a_state_dir_that_cannot_be_created_is_a_one_line_error(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(blocker / "state")}, entry_points=False, builtins=CORE_ONLY)
    for command in (["run", "--replay", str(EXAMPLES / "healthy-tier1.jsonl")], ["db", "status"]):
        result = CliRunner().invoke(build_cli(app), command, catch_exceptions=False)
        assert (result.exit_code, result.stderr) == (2, "claudeops: error: env CLAUDEOPS_STATE_DIR: 'state_dir' "
                                                        f"{blocker / 'state'} cannot be created: Not a directory\n")
