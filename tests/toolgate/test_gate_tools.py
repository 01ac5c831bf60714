"""Deny by default beyond Bash: at tier 1 and in dry runs a tool other than Bash runs only when it is known to
only read (audit 12/1c: every tool but Write/Edit/MultiEdit/NotebookEdit used to pass, so an ``mcp__…`` tool
an operator added to tier 1 could change anything)."""

from __future__ import annotations

import pytest

from claudeops.app import App
from claudeops.cli.group import main
from claudeops.config import ConfigError
from claudeops.exit_codes import EXIT_USAGE
from claudeops.runner.allow_list import configured_allow_list
from claudeops.toolgate import BUILT_IN_LIST, READ_ONLY_TOOLS, parse_tool, tool_refusal

TIER_1 = "tier 1 is read-only"
CORE_ONLY = ("claudeops.environment", "claudeops.escalation")


@pytest.mark.parametrize("tool", [
    "mcp__home__restart_container", "mcp__grafana__query", "Monitor", "PowerShell", "Agent", "Task",
    "CronCreate", "RemoteTrigger", "SendMessage", "Skill", "EnterWorktree", "ToolFromAFutureClaudeCode", "",
])
@pytest.mark.parametrize("mode", [TIER_1, "dry run"])
def test_a_tool_not_known_to_only_read_is_refused(tool, mode):
    refusal = tool_refusal(tool, {"anything": "x"}, mode)
    assert refusal is not None
    assert refusal.message == (f"{mode}: refused `{tool}`: {tool} is not known to only read. Instead: Read, Grep, "
                               "Glob, WebFetch, or a read-only Bash command (or ask the operator to add the tool "
                               "to [toolgate] read_only_tools).")


@pytest.mark.parametrize("tool", ["Write", "Edit", "MultiEdit", "NotebookEdit"])
def test_file_writing_tools_are_refused(tool):
    assert "changes files" in tool_refusal(tool, {"file_path": "/etc/x"}, "dry run").why


EXPECTED_READ_ONLY = ["BashOutput", "Glob", "Grep", "KillBash", "KillShell", "LS", "ListMcpResourcesTool",
                      "NotebookRead", "Read", "ReadMcpResourceTool", "TaskCreate", "TaskGet", "TaskList", "TaskOutput",
                      "TaskStop", "TaskUpdate", "TodoWrite", "ToolSearch", "WebFetch", "WebSearch"]
"""Written out here, so a tool added to the built-in list must be added (and reviewed) here too."""


def test_the_built_in_read_only_tools_are_exactly_these():
    assert sorted(READ_ONLY_TOOLS) == EXPECTED_READ_ONLY


@pytest.mark.parametrize("tool", EXPECTED_READ_ONLY)
def test_tools_that_only_read_pass(tool):
    assert tool_refusal(tool, {"file_path": "/etc/hosts"}, TIER_1) is None


def test_the_operator_names_more_read_only_tools_by_exact_name():
    allow = BUILT_IN_LIST.extended([], [parse_tool("mcp__grafana__query")])
    assert tool_refusal("mcp__grafana__query", {}, TIER_1, allow) is None
    assert tool_refusal("mcp__grafana__delete_dashboard", {}, TIER_1, allow) is not None
    assert tool_refusal("Bash", {"command": "touch /tmp/F"}, TIER_1, allow) is not None


@pytest.mark.parametrize(("name", "why"), [
    ("Bash", "Bash cannot be listed: Bash is judged command by command"),
    ("Write", "Write cannot be listed: it changes files"),
    ("NotebookEdit", "NotebookEdit cannot be listed: it changes files"),
    ("mcp__grafana__*", "is not a tool name"),
    ("mcp__grafana__query ", "is not a tool name"),
    ("", "is not a tool name"),
    ("Bash(ls:*)", "is not a tool name"),
])
def test_a_bad_tool_name_is_refused_with_the_reason(name, why):
    with pytest.raises(ValueError, match=why.replace("(", r"\(").replace("*", r"\*")):
        parse_tool(name)


def test_a_bad_tool_name_in_the_config_is_a_one_line_error(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[toolgate]\nread_only_tools = ["mcp__grafana__query", "mcp__grafana__*"]\n')
    app = App.load(str(config), {"CLAUDEOPS_STATE_DIR": str(tmp_path / "s")}, entry_points=False, builtins=CORE_ONLY)
    with pytest.raises(ConfigError) as error:
        configured_allow_list(app.config)
    assert str(error.value) == (
        f"file {config}: 'toolgate.read_only_tools' must be names of tools that only read ('mcp__grafana__*' is not "
        "a tool name (letters, digits, _ and -; no patterns)), not 'mcp__grafana__*'")


def test_claudeops_run_refuses_to_start_with_a_bad_tool_name(monkeypatch, capsys):
    monkeypatch.setenv("CLAUDEOPS_TOOLGATE_READ_ONLY_TOOLS", "Edit")
    real_load = App.load
    monkeypatch.setattr("claudeops.cli.group.App.load", lambda config_path: real_load(
        config_path, entry_points=False, builtins=CORE_ONLY))
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--tier", "1"])
    assert exit_info.value.code == EXIT_USAGE
    assert capsys.readouterr().err == (
        "claudeops: error: env CLAUDEOPS_TOOLGATE_READ_ONLY_TOOLS: 'toolgate.read_only_tools' must be names of tools "
        "that only read (Edit cannot be listed: it changes files), not 'Edit'\n")
