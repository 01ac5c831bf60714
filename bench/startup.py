"""Each command's start-up, as a ratio to a bare Python doing nothing (``python -c pass``) or, for
``claudeops run``, importing the SDK (``python -c "import claude_agent_sdk"``), in the same run
(issue 18 item 7).

Usage: ``python bench/startup.py [REPEATS]`` (default 9).

Every command runs as its own process on an empty state directory (a fresh SQLite database is
migrated by the first one and reused), alternating with its baseline so a noisy neighbour slows
both alike; the figure is the median wall time of ``REPEATS`` runs. ``run`` replays the recorded
tier 1 session of ``tests/data`` (no network, no CLI), so what it measures is claudeops' own
start-up plus the SDK import and the replay. It also lists what each command imports of the
heavy packages (``-X importtime``): the SDK only for ``run``, apprise, prometheus_client and the
web stack only for the commands that use them. The checkout's own modules are byte-compiled
first (``bench/installed.py``), as installing claudeops compiles them.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arguments import one_argument
from installed import compile_project  # bench/, the script's own folder

REPO = Path(__file__).resolve().parent.parent
REPLAY = REPO / "tests" / "data" / "recorded-cli-session-bash.jsonl"
PYTHON = sys.executable
HEAVY = ("claude_agent_sdk", "mcp", "apprise", "prometheus_client", "litestar", "jinja2", "uvicorn", "rich")
BARE = [PYTHON, "-c", "pass"]
SDK = [PYTHON, "-c", "import claude_agent_sdk"]
COMMANDS: list[tuple[str, list[str], list[str]]] = [
    ("--help", ["--help"], BARE),
    ("memories list", ["memories", "list"], BARE),
    ("sessions list", ["sessions", "list"], BARE),
    ("events list", ["events", "list"], BARE),
    ("doctor", ["doctor"], BARE),
    ("config show", ["config", "show"], BARE),
    ("run --replay (tier 1)", ["run", "--tier", "1", "--replay", str(REPLAY)], SDK),
]


def timed(command: list[str], environ: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - started


def heavy_imports(command: list[str], environ: dict[str, str]) -> list[str]:
    """The heavy top-level packages ``command`` imports."""
    found = subprocess.run([PYTHON, "-X", "importtime", *command[1:]], env=environ, capture_output=True, text=True,
                           check=False).stderr
    names = {line.rsplit("|", 1)[-1].strip() for line in found.splitlines() if "|" in line}
    return [name for name in HEAVY if name in names]


def main(repeats: int) -> int:
    compile_project()  # as installed: byte-compiled, not compiled again by every process
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "config.toml"
        config.write_text("")  # the defaults, whatever config.toml the current directory holds
        environ = {**os.environ, "CLAUDEOPS_STATE_DIR": folder, "CLAUDEOPS_CONFIG": str(config)}
        claudeops = [PYTHON, "-m", "claudeops"]
        subprocess.run([*claudeops, "memories", "list"], env=environ, capture_output=True, check=True)  # migrate once
        print(f"{'command':<24} {'ms':>7} {'baseline':>9} {'ratio':>6}  heavy imports")
        for name, arguments, baseline in COMMANDS:
            command = [*claudeops, *arguments]
            status = subprocess.run(command, env=environ, capture_output=True, check=False).returncode
            if status not in (0, 1):  # doctor exits 1 here: no credentials (a replay needs none)
                raise SystemExit(f"{name} exited {status}: fix the bench before timing it")
            ours, bases = [], []
            for _ in range(repeats):
                ours.append(timed(command, environ))
                bases.append(timed(baseline, environ))
            mine, base = statistics.median(ours) * 1000, statistics.median(bases) * 1000
            label = "import sdk" if baseline is SDK else "pass"
            print(f"{name:<24} {mine:7.0f} {base:6.0f} ms {mine / base:5.2f}x  ({label})  "
                  f"{', '.join(heavy_imports(command, environ)) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(one_argument(__doc__, "REPEATS", int, 9)))
