"""A run on a full disk, a run whose disk fills up mid-session, then a run with space again:
driven inside the ``small_disk`` tmpfs (run through ``SmallDisk.run``, so the tmpfs is mounted).

``python full_disk_driver.py HEALTHY_RECORDING SCRIPT_PATH`` does, as an operator would live it:
migrate; fill the disk and run; free the space and run a session during which the disk fills
again (a plugin fills it to the last byte when the model writes FILL THE DISK); free the space
and run again. Each step is the real command line
(:func:`claudeops.cli.group.run_cli`) with the core plugins, the recording plugin and the disk
filler, in a process of its own as cron would start it (``full_disk_driver.py cli ARGS``): a
process that ends closes the database, and SQLite then removes its ``-wal`` file, so the next one
must find room for a new one, as on a real host. It prints one JSON object: each step's exit
status and stderr, and the first session's stored row.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from runner_helpers import CORE_ONLY, RecordingPlugin

from claudeops import hookimpl
from claudeops.app import App
from claudeops.cli.group import run_cli
from claudeops.runner.script import script_to_stream

FILL_MARK = "FILL THE DISK"


class DiskFiller:
    """Fills the state dir's filesystem to the last byte when the model writes :data:`FILL_MARK`."""

    @hookimpl(tryfirst=True)
    def on_assistant_text(self, session, text: str) -> None:
        if FILL_MARK in text:
            fill(session.config.state_dir / "filler")


def fill(path: Path) -> None:
    with path.open("wb", buffering=0) as filler:
        for size in (65536, 1):
            try:
                while True:
                    filler.write(b"\0" * size)
            except OSError:
                pass


def claudeops(*args: str) -> dict[str, object]:
    """One command in a process of its own: its exit status and what it printed on stderr."""
    result = subprocess.run([sys.executable, __file__, "cli", *args], capture_output=True, text=True, timeout=120)
    return {"code": result.returncode, "stderr": result.stderr}


def scenario(healthy: str, fills_the_disk: Path) -> dict[str, object]:
    state_dir = Path(os.environ["CLAUDEOPS_STATE_DIR"])
    fills_the_disk.write_text("\n".join(json.dumps(frame) for frame in script_to_stream(
        [f"Checking. {FILL_MARK}\n[NOTE] written when the disk was full"])) + "\n")
    steps: dict[str, object] = {"migrate": claudeops("db", "migrate")}
    fill(state_dir / "filler")
    steps["full"] = claudeops("run", "--replay", healthy)
    (state_dir / "filler").unlink()
    steps["fills"] = claudeops("run", "--replay", str(fills_the_disk))
    (state_dir / "filler").unlink()
    steps["freed"] = claudeops("run", "--replay", healthy)
    with sqlite3.connect(state_dir / "claudeops.db") as database:
        steps["rows"] = database.execute("SELECT id, status, error FROM sessions ORDER BY id").fetchall()
    return steps


if __name__ == "__main__":
    if sys.argv[1] == "cli":
        app = App.load(None, entry_points=False, builtins=CORE_ONLY, extra_plugins=[RecordingPlugin(), DiskFiller()])
        run_cli(app, None, sys.argv[2:])
    else:
        print(json.dumps(scenario(sys.argv[1], Path(sys.argv[2]))))
