"""Which Claude Code CLI a run starts (``cli_path``), and the one line a missing one leaves behind."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fake_api import text
from runner_helpers import row

from claudeops.runner.chain import RunRequest, run_chain
from claudeops.runner.sdk import CLITransport, bundled_cli_path

NOT_THERE = "/nowhere/claude"


def test_a_cli_path_that_names_no_file_fails_the_session_naming_the_setting_and_its_source(make_claudeops_app):
    app = make_claudeops_app({"CLAUDEOPS_CLI_PATH": NOT_THERE})
    [report] = run_chain(app, RunRequest())
    assert (report.status, report.reason) == (
        "failed", f"the Claude Code CLI was not found at {NOT_THERE} (cli_path, from env CLAUDEOPS_CLI_PATH); "
                  "set cli_path (CLAUDEOPS_CLI_PATH) to the claude executable, or empty for the one bundled with "
                  "claude-agent-sdk")
    assert row(report.session_id).error == report.reason


def test_a_cli_path_that_is_not_executable_is_not_started(make_claudeops_app, tmp_path):
    script = tmp_path / "claude"
    script.write_text("#!/bin/sh\necho started > started\n")  # no execute bit
    app = make_claudeops_app({"CLAUDEOPS_CLI_PATH": str(script)})
    [report] = run_chain(app, RunRequest())
    assert report.reason.startswith(f"the Claude Code CLI was not found at {script} (cli_path")
    assert not (app.state_dir / "work" / "started").exists()


def test_no_bundled_cli_and_none_on_path_says_both_in_one_line(runner_app, tmp_path, monkeypatch):
    """The SDK's own search (bundled CLI, then PATH, then its fallback folders) comes up empty."""
    monkeypatch.setattr(CLITransport, "_find_bundled_cli", lambda self: None)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-path"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # the SDK's fallback folders are under HOME
    if Path("/usr/local/bin/claude").exists():
        pytest.skip("a claude in /usr/local/bin, one of the SDK's fallback folders, would be found")
    [report] = run_chain(runner_app, RunRequest())
    assert report.status == "failed" and "\n" not in report.reason
    assert report.reason == (f"the Claude Code CLI was not found: the one bundled with claude-agent-sdk "
                             f"({bundled_cli_path()}) is missing and there is no claude on PATH; reinstall "
                             "claude-agent-sdk, or set cli_path (CLAUDEOPS_CLI_PATH) to a claude executable")


@pytest.mark.e2e
def test_a_cli_path_given_as_a_command_name_is_found_on_path(make_claudeops_app, fake_api, tmp_path, monkeypatch):
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "claude-pinned").symlink_to(bundled_cli_path())
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    fake_api.script(text("All healthy."))
    app = make_claudeops_app({"CLAUDEOPS_CLI_PATH": "claude-pinned"})
    [report] = run_chain(app, RunRequest())
    assert report.status == "completed" and fake_api.messages()
