"""A run whose disk fills up mid-session, then the next run: driven inside the ``small_disk`` tmpfs.

``full_disk_driver.py scenario`` (run through ``SmallDisk.run``, so the tmpfs is mounted) does,
as an operator would live it: migrate; run a session during which the disk fills (a plugin fills
it when the model writes FILL THE DISK); free the space; run again. It prints one JSON object
with each command's exit status and stderr, and the first session's stored row.
``full_disk_driver.py cli ARGS`` is the claudeops command line those steps run: the core
plugins, the recording plugin and the disk filler.
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
        try:
            while True:
                filler.write(b"\0" * 65536)
        except OSError:
            pass
        try:
            while True:
                filler.write(b"\0")
        except OSError:
            pass


def cli(*args: str) -> dict[str, object]:
    result = subprocess.run([sys.executable, __file__, "cli", *args], capture_output=True, text=True, timeout=120)
    return {"code": result.returncode, "stderr": result.stderr}


def scenario() -> None:
    state_dir = Path(os.environ["CLAUDEOPS_STATE_DIR"])
    recording = Path(os.environ["FULL_DISK_RECORDING"])
    recording.write_text("\n".join(json.dumps(frame) for frame in script_to_stream(
        [f"Checking. {FILL_MARK}\n[NOTE] written when the disk was full"])) + "\n")
    steps = {"migrate": cli("db", "migrate")}
    steps["full"] = cli("run", "--replay", str(recording))
    (state_dir / "filler").unlink()
    steps["next"] = cli("run", "--replay", str(recording.with_name("healthy.jsonl")))
    with sqlite3.connect(state_dir / "claudeops.db") as database:
        steps["row"] = database.execute("SELECT status, error FROM sessions WHERE id = 1").fetchone()
    print(json.dumps(steps))


if __name__ == "__main__":
    if sys.argv[1] == "scenario":
        scenario()
    else:
        app = App.load(None, entry_points=False, builtins=CORE_ONLY, extra_plugins=[RecordingPlugin(), DiskFiller()])
        run_cli(app, None, sys.argv[2:])
