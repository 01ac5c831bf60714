"""End to end: the real Claude Code CLI at tier 1 with an MCP server the operator configured (audit 12/1c).

A tool other than Bash is refused at tier 1 unless it is known to only read, so an ``mcp__…`` tool
that writes a file is refused even when the tier's ``allowed_tools`` approves it; named in
``[toolgate] read_only_tools`` it runs (which also proves the server was loaded and the first
refusal was the gate's, not a missing tool).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from fake_api import text, tool_use

from claudeops.runner.chain import RunRequest, run_chain

pytestmark = pytest.mark.e2e

MCP_SERVER = r'''
import json, pathlib, sys

def reply(id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": id, "result": result}) + "\n")
    sys.stdout.flush()

TOUCH = {"name": "touch", "description": "Create a file", "inputSchema": {
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}
for line in sys.stdin:
    message = json.loads(line)
    method, id = message.get("method"), message.get("id")
    if id is None:
        continue
    if method == "initialize":
        reply(id, {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                   "serverInfo": {"name": "probe", "version": "1"}})
    elif method == "tools/list":
        reply(id, {"tools": [TOUCH]})
    elif method == "tools/call":
        pathlib.Path(message["params"]["arguments"]["path"]).write_text("written by the MCP tool")
        reply(id, {"content": [{"type": "text", "text": "created"}]})
    else:
        reply(id, {})
'''


@pytest.fixture
def mcp_project(runner_app, tmp_path: Path) -> Path:
    """A working directory whose project settings start the ``probe`` MCP server, approved at tier 1."""
    work = tmp_path / "project"
    (work / ".claude").mkdir(parents=True)
    server = tmp_path / "probe_server.py"
    server.write_text(MCP_SERVER)
    (work / ".mcp.json").write_text(json.dumps({"mcpServers": {"probe": {
        "type": "stdio", "command": sys.executable, "args": [str(server)]}}}))
    (work / ".claude" / "settings.json").write_text(json.dumps({"enableAllProjectMcpServers": True}))
    config = runner_app.config
    config.override("cwd", str(work))
    config.override("setting_sources", ["project"])
    config.override("tier1.allowed_tools", [*config.tier(1).allowed_tools, "mcp__probe__touch"])
    return work


def _touch_session(runner_app, fake_api, target: Path):
    fake_api.script(tool_use("mcp__probe__touch", {"path": str(target)}), text("Done."))
    [report] = run_chain(runner_app, RunRequest())
    [result] = fake_api.tool_results()
    return report, result


def test_an_mcp_tool_approved_for_tier_1_is_refused_by_the_gate(runner_app, fake_api, mcp_project, tmp_path):
    target = tmp_path / "written-by-mcp"
    report, result = _touch_session(runner_app, fake_api, target)
    assert report.status == "completed" and report.tools_denied == 1
    assert result["is_error"] is True
    assert "tier 1 is read-only: refused `mcp__probe__touch`: mcp__probe__touch is not known to only read" \
        in str(result["content"])
    assert not target.exists()


def test_an_mcp_tool_the_operator_names_read_only_runs(runner_app, fake_api, mcp_project, tmp_path):
    runner_app.config.override("toolgate.read_only_tools", ["mcp__probe__touch"])
    target = tmp_path / "written-by-mcp"
    report, result = _touch_session(runner_app, fake_api, target)
    assert report.status == "completed" and report.tools_denied == 0, result
    assert target.read_text() == "written by the MCP tool"
