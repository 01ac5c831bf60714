"""End to end: the real SDK and the real bundled Claude Code CLI against the fake Messages API.

Nothing leaves 127.0.0.1 and no API key is needed (see ``fake_api``). Each session costs the
CLI's start-up, about a second.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_api import bash, error, hang, text
from runner_helpers import notes, row

from claudeops.runner.chain import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_LOCKED,
    RunRequest,
    execute,
    run_chain,
    run_session_chain,
)
from claudeops.runner.replay import load_recording

pytestmark = pytest.mark.e2e

TESTS = Path(__file__).resolve().parent
EXAMPLES = TESTS.parents[1] / "examples" / "sessions"


def test_our_sections_end_the_system_prompt_the_api_receives(runner_app, plugin, fake_api):
    fake_api.script(text("All healthy."))
    [report] = run_chain(runner_app, RunRequest())
    assert report.status == "completed"
    appended = plugin.appended[report.session_id]
    assert appended.startswith("## Environment") and "TEST-CONTEXT-SECTION-42" in appended
    assert fake_api.system_text().endswith(appended)
    first_user_text = str(fake_api.messages()[0]["messages"])
    assert "# Tier 1: observe and report" in first_user_text and "## Notes" in first_user_text


def test_a_live_session_records_the_model_by_the_full_name_that_answered_as_a_replay_does(runner_app, fake_api):
    """The tier's setting is an alias (haiku); the row names the model that answered (the CLI resolves
    the alias and its assistant messages say which model spoke, e.g. a fallback model)."""
    fake_api.script(text("All healthy."))
    [report] = run_chain(runner_app, RunRequest())
    answered = fake_api.messages()[0]["model"]
    assert answered.startswith("claude-") and answered != "haiku"
    assert (report.model, row(report.session_id).model) == (answered, answered)


def test_markers_in_the_models_text_are_stored_and_markers_in_tool_results_are_not(runner_app, fake_api):
    fake_api.script(bash("echo '[NOTE] planted by a tool'", before="Checking. [NOTE] written before the tool"),
                    text("[NOTE] written after the tool\nDone."))
    [report] = run_chain(runner_app, RunRequest())
    assert notes() == ["written before the tool", "written after the tool"]
    [result] = fake_api.tool_results()
    assert result["content"] == "[NOTE] planted by a tool" and result["is_error"] is False
    stored = row(report.session_id)
    assert (stored.status, stored.num_turns, stored.result) == ("completed", 2, "[NOTE] written after the tool\nDone.")
    assert stored.cost_usd > 0 and stored.sdk_session_id
    assert {frame["type"] for frame in load_recording(Path(stored.transcript_path))} >= {"assistant", "user"}


def test_a_command_the_tier_forbids_is_denied_and_the_model_is_told(runner_app, fake_api):
    fake_api.script(bash("docker compose up -d jellyfin"), text("Could not redeploy."))
    [report] = run_chain(runner_app, RunRequest(tier=2, escalate=False))
    [result] = fake_api.tool_results()
    assert result["is_error"] is True and "denied" in result["content"]
    assert report.status == "completed"


def test_tier_1_is_read_only_even_for_commands_no_rule_names(runner_app, fake_api, tmp_path):
    target = tmp_path / "created-by-tier-1"
    fake_api.script(bash(f"touch {target}"), text("Could not touch."))
    [report] = run_chain(runner_app, RunRequest())
    [result] = fake_api.tool_results()
    assert not target.exists() and report.tools_denied == 1
    assert result["is_error"] is True and "tier 1 is read-only" in result["content"]


def test_a_plugins_tool_check_denies_with_its_reason(runner_app, plugin, fake_api):
    plugin.deny["Bash"] = "jellyfin is in cooldown until 14:00 (2 restarts in 4 h)"
    fake_api.script(bash("systemctl status jellyfin --no-pager"), text("ok"))
    [report] = run_chain(runner_app, RunRequest())
    [result] = fake_api.tool_results()
    assert result["is_error"] is True and "in cooldown until 14:00" in result["content"]
    assert report.tools_denied == 1


def test_dry_run_denies_a_mutating_command_the_tier_would_allow(runner_app, fake_api, tmp_path):
    target = tmp_path / "created-by-the-agent"
    fake_api.script(bash(f"touch {target}"), text("ok"))
    [report] = run_chain(runner_app, RunRequest(dry_run=True))
    assert not target.exists() and report.tools_denied == 1
    assert "dry run" in fake_api.tool_results()[0]["content"]


@pytest.mark.parametrize(("reply", "reason"), [(error(401), "authentication failed (API status 401)"),
                                               (error(500), "API error status 500")])
def test_an_api_error_fails_the_session_with_the_reason(runner_app, fake_api, reply, reason):
    fake_api.script(reply)
    result = execute(runner_app, RunRequest())
    [report] = result.sessions
    assert (report.status, result.exit_code) == ("failed", EXIT_FAILED)
    assert report.reason.startswith(reason)


def test_a_cli_that_exits_with_an_error_is_logged_and_its_last_stderr_line_is_the_reason(runner_app, fake_api,
                                                                                       caplog):
    # A value `claudeops run` refuses up front, forced past that check (run_session_chain skips it) so that the
    # CLI itself refuses the flag on stderr and exits 1.
    runner_app.config.override("setting_sources", ["bogus"])
    caplog.set_level(logging.INFO, logger="claudeops.cli_stderr")
    result = asyncio.run(run_session_chain(runner_app, RunRequest()))
    [report] = result.sessions
    assert (report.status, result.exit_code) == ("failed", EXIT_FAILED)
    assert report.reason.startswith("Claude Code exited with exit code 1: ") and "bogus" in report.reason
    line = report.reason.removeprefix("Claude Code exited with exit code 1: ")
    assert ("claudeops.cli_stderr", logging.INFO, f"claude: {line}") in caplog.record_tuples
    assert row(report.session_id).error == report.reason and fake_api.messages() == []


def test_an_api_that_hangs_past_the_timeout_fails_the_session_promptly(runner_app, fake_api):
    runner_app.config.override("tier1.timeout_seconds", 2)
    fake_api.script(hang())
    started = time.monotonic()
    [report] = run_chain(runner_app, RunRequest())
    assert (report.status, report.reason) == ("failed", "timeout after 2 s")
    assert time.monotonic() - started < 6  # the CLI is stopped, not waited for


def start_run(state_dir: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "CLAUDEOPS_STATE_DIR": str(state_dir), "PYTHONPATH": str(TESTS)}
    return subprocess.Popen([sys.executable, str(TESTS / "runner_driver.py"), "run", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_sigterm_interrupts_a_cli_session_and_a_concurrent_run_is_refused(runner_app, state_dir, fake_api):
    fake_api.script(bash("echo checking", before="[NOTE] seen before the signal"), hang())
    first = start_run(state_dir)
    try:
        assert fake_api.wait_for_requests(2, timeout=60), "the CLI never reached the hanging request"
        second = start_run(state_dir, "--replay", str(EXAMPLES / "healthy-tier1.jsonl"))
        _, refused = second.communicate(timeout=60)
        assert second.returncode == EXIT_LOCKED and "another claudeops run" in refused
        first.send_signal(signal.SIGTERM)
        _, problems = first.communicate(timeout=30)
    finally:
        first.kill()
    assert first.returncode == EXIT_INTERRUPTED
    assert problems.strip().endswith("interrupted: interrupted by SIGTERM")
    stored = row(1)
    assert (stored.status, stored.error) == ("interrupted", "interrupted by SIGTERM")
    assert notes() == ["seen before the signal"]


def test_the_memory_context_reaches_the_system_prompt_with_all_plugins(full_app, fake_api):
    run_chain(full_app, RunRequest.replaying([EXAMPLES / "healthy-tier1.jsonl"]))
    fake_api.script(text("[EVENT:info] all good"))
    [report] = run_chain(full_app, RunRequest(trigger="scheduled"))
    system = fake_api.system_text()
    assert report.status == "completed" and report.markers_recorded == 1
    assert "After a restart jellyfin answers 503 on /health" in system
    assert system.index("## Environment") < system.index("After a restart jellyfin")
