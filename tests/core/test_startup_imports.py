"""Issue 18 item 7: commands that run no session do not import the SDK (its eager ``mcp`` import
is over a second), none imports the notification, metrics or web stacks it does not use, and
``claudeops run`` imports nothing its session does not use: no plugin's command-line modules (the
root group adds plugin commands only when one is asked for) and no rich without a terminal."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("claude_agent_sdk", "mcp", "apprise", "prometheus_client", "litestar", "jinja2", "uvicorn", "rich")
PROBE = """
import re
import sys
from claudeops.__main__ import main
sys.argv = ["claudeops", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
loaded = sorted(name for name in {heavy!r} if name in sys.modules)
command_lines = sorted(name for name in sys.modules if re.fullmatch(r"claudeops_\\w+\\.cli(_\\w+)?", name))
print(" ".join(loaded + command_lines), file=sys.__stderr__)
"""
REPLAY = Path(__file__).resolve().parents[1] / "data" / "recorded-cli-session-bash.jsonl"


def _imported(state: Path, *arguments: str) -> set[str]:
    """The heavy packages and the plugins' command-line modules a ``claudeops`` process imports."""
    config = state / "config.toml"
    config.touch()
    environ = {**os.environ, "CLAUDEOPS_STATE_DIR": str(state), "CLAUDEOPS_CONFIG": str(config)}
    done = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY), *arguments], env=environ,
                          capture_output=True, text=True, check=False, timeout=120)
    return set(done.stderr.strip().splitlines()[-1].split()) if done.stderr.strip() else set()


@pytest.mark.parametrize("arguments", [("--help",), ("memories", "list"), ("sessions", "list"), ("events", "list"),
                                       ("doctor",), ("config", "show"), ("notify", "--help"), ("run", "--help")])
def test_commands_that_run_no_session_import_nothing_heavy(tmp_path: Path, arguments: tuple[str, ...]) -> None:
    assert not _imported(tmp_path, *arguments) & {"claude_agent_sdk", "mcp", "apprise", "prometheus_client",
                                                  "litestar", "jinja2", "uvicorn", "rich"}


def test_a_run_imports_the_sdk_and_nothing_it_does_not_use(tmp_path: Path) -> None:
    imported = _imported(tmp_path, "run", "--tier", "1", "--replay", str(REPLAY))
    # uvicorn comes with mcp, which the SDK imports eagerly; no apprise, metrics or web stack of ours, no rich
    # (the live line is for a terminal), no plugin's command-line module
    assert imported == {"claude_agent_sdk", "mcp", "uvicorn"}


def test_help_lists_the_plugins_commands_it_no_longer_imports_for_a_run(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.touch()
    environ = {**os.environ, "CLAUDEOPS_STATE_DIR": str(tmp_path), "CLAUDEOPS_CONFIG": str(config)}
    shown = subprocess.run([sys.executable, "-m", "claudeops", "--help"], env=environ, capture_output=True,
                           text=True, check=True, timeout=120).stdout
    for command in ("memories", "events", "cooldowns", "services", "pause", "notify", "notifications", "web"):
        assert f"\n  {command} " in shown
