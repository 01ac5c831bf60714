"""Which Claude Code CLI a run starts, found without importing the SDK.

``claudeops doctor`` checks that CLI, and importing the SDK (its eager ``mcp`` import) costs more
than a second: ``find_spec`` locates the installed package without running it.
"""

from __future__ import annotations

import os
import shutil
from importlib.util import find_spec
from pathlib import Path

from claudeops.config import Config


def configured_cli_path(config: Config) -> str | None:
    """``cli_path`` as the SDK should get it (a bare name looked up on ``PATH``), or ``None``: the
    SDK's own search, which prefers the CLI bundled in its wheel, then ``claude`` on ``PATH``."""
    path = config.core.cli_path.strip()
    if not path:
        return None
    if os.sep not in path:
        return shutil.which(path) or path
    return str(Path(path).expanduser())


def bundled_cli_path() -> Path:
    """Where the wheel keeps the Claude Code CLI it bundles (the SDK prefers it to one on PATH)."""
    spec = find_spec("claude_agent_sdk")
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError("claude-agent-sdk is not installed")
    return Path(spec.origin).parent / "_bundled" / "claude"
