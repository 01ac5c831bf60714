"""Issue 18 item 7: commands that run no session do not import the SDK (its eager ``mcp`` import
is over a second), and none imports the notification, metrics or web stacks it does not use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("claude_agent_sdk", "mcp", "apprise", "prometheus_client", "litestar", "jinja2", "uvicorn")
PROBE = """
import sys
from claudeops.__main__ import main
sys.argv = ["claudeops", *sys.argv[1:]]
try:
    main()
except SystemExit:
    pass
print(" ".join(sorted(name for name in {heavy!r} if name in sys.modules)), file=sys.__stderr__)
"""


def _imported(state: Path, *arguments: str) -> set[str]:
    config = state / "config.toml"
    config.touch()
    environ = {**os.environ, "CLAUDEOPS_STATE_DIR": str(state), "CLAUDEOPS_CONFIG": str(config)}
    done = subprocess.run([sys.executable, "-c", PROBE.format(heavy=HEAVY), *arguments], env=environ,
                          capture_output=True, text=True, check=False, timeout=120)
    return set(done.stderr.strip().splitlines()[-1].split()) if done.stderr.strip() else set()


@pytest.mark.parametrize("arguments", [("--help",), ("memories", "list"), ("sessions", "list"), ("events", "list"),
                                       ("doctor",), ("config", "show"), ("notify", "--help"), ("run", "--help")])
def test_commands_that_run_no_session_import_nothing_heavy(tmp_path: Path, arguments: tuple[str, ...]) -> None:
    assert _imported(tmp_path, *arguments) == set()


def test_a_run_imports_the_sdk_and_nothing_it_does_not_use(tmp_path: Path) -> None:
    replay = Path(__file__).resolve().parents[1] / "data" / "recorded-cli-session-bash.jsonl"
    imported = _imported(tmp_path, "run", "--tier", "1", "--replay", str(replay))
    # uvicorn comes with mcp, which the SDK imports eagerly; no apprise, metrics or web stack of ours
    assert imported == {"claude_agent_sdk", "mcp", "uvicorn"}
