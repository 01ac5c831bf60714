"""The baseline of ``bench/runner_overhead.py``: one bare ``claude_agent_sdk.query()`` session.

The same bundled Claude Code CLI, the same fake Messages API (from the environment), and the
options claudeops builds for tier 1 (model, appended system prompt, tools, permission mode,
turn limit, isolated CLI state), with nothing of claudeops around it: no config, plugins,
database, transcript, tool gate or markers. Run as a whole process, as ``claudeops run`` is.

    python bench/bare_sdk_session.py STATE_DIR PROMPT_FILE
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from claude_agent_sdk import ClaudeAgentOptions, query

QUIET_CLI_ENV = {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
                 "DISABLE_AUTOUPDATER": "1", "DISABLE_ERROR_REPORTING": "1"}


async def session(state: Path, prompt: str) -> int:
    cwd, config_dir = state / "work", state / "claude-config"
    for folder in (cwd, config_dir):
        folder.mkdir(parents=True, exist_ok=True)
    options = ClaudeAgentOptions(
        model="haiku", system_prompt={"type": "preset", "preset": "claude_code", "append": "## Environment\n"},
        allowed_tools=["Bash", "Read", "Grep", "Glob"], permission_mode="default", max_turns=10, cwd=str(cwd),
        setting_sources=[], env={**QUIET_CLI_ENV, "CLAUDE_CONFIG_DIR": str(config_dir)})
    messages = 0
    async for _ in query(prompt=prompt, options=options):
        messages += 1
    return messages


if __name__ == "__main__":
    count = asyncio.run(session(Path(sys.argv[1]), Path(sys.argv[2]).read_text()))
    sys.exit(0 if count else 1)
