"""A full disk, for real: a 2 MiB tmpfs (``small_disk``) that a session fills to the last byte.

The run ends with one line naming the cause, never a traceback; the row it could not finish is
settled by the next run, once there is space again; the run lock does not trip over the disk.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

from claudeops.exit_codes import EXIT_FAILED, EXIT_OK
from claudeops.session_rows import ABANDONED_REASON
from claudeops.store import DISK_FULL

TESTS = Path(__file__).resolve().parent
HEALTHY = TESTS.parents[1] / "examples" / "sessions" / "healthy-tier1.jsonl"


def disk_env(disk_path: Path, tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(TESTS), "CLAUDEOPS_STATE_DIR": str(disk_path / "state"),
            "FULL_DISK_RECORDING": str(tmp_path / "fills-the-disk.jsonl")}


def test_a_disk_that_fills_during_a_session_is_one_line_and_the_row_is_repaired_next_time(small_disk, tmp_path):
    shutil.copy(HEALTHY, tmp_path / "healthy.jsonl")
    result = small_disk.run([sys.executable, str(TESTS / "full_disk_driver.py"), "scenario"],
                            env=disk_env(small_disk.path, tmp_path))
    assert result.returncode == 0, result.stderr
    steps = json.loads(result.stdout)
    assert steps["migrate"]["code"] == EXIT_OK
    full = steps["full"]
    assert full["code"] == EXIT_FAILED and "Traceback" not in full["stderr"]
    assert full["stderr"].splitlines()[-1] == (
        f"claudeops: error: database error: recording how session #1 ended: {DISK_FULL}")
    assert f"marker NOTE handler failed: session #1: NOTE marker: {DISK_FULL}" in full["stderr"]
    following = steps["next"]
    assert following["code"] == EXIT_OK, following["stderr"]
    assert "marked 1 session(s) left running by a process that died as interrupted" in following["stderr"]
    assert steps["row"] == ["interrupted", ABANDONED_REASON]


def test_a_run_on_a_disk_already_full_says_so_in_one_line(small_disk, tmp_path):
    script = ("import subprocess, sys; from full_disk_driver import fill; from pathlib import Path; "
              "import os; state = Path(os.environ['CLAUDEOPS_STATE_DIR']); "
              "subprocess.run([sys.executable, 'runner_driver.py', 'db', 'migrate'], check=True, cwd=sys.argv[1], "
              "capture_output=True); fill(state / 'filler'); "
              "run = subprocess.run([sys.executable, 'runner_driver.py', 'run', '--replay', sys.argv[2]], "
              "cwd=sys.argv[1], capture_output=True, text=True); "
              "print(run.returncode); print(run.stderr, end='')")
    result = small_disk.run([sys.executable, "-c", script, str(TESTS), str(HEALTHY)],
                            env=disk_env(small_disk.path, tmp_path))
    code, *stderr = result.stdout.splitlines()
    assert int(code) == EXIT_FAILED and not any("Traceback" in line for line in stderr), result.stdout
    assert stderr[0].startswith("claudeops: WARNING: cannot note this run's pid in ")  # the lock holds anyway
    assert stderr[0].endswith(f"run.lock: {DISK_FULL}")
    assert stderr[1:] == [f"claudeops: error: database error: cannot open database sqlite:///{small_disk.path}"
                          f"/state/claudeops.db: {DISK_FULL}"]
