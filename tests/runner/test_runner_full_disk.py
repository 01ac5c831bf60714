"""A full disk, for real: a 2 MiB tmpfs (``small_disk``) that a session fills to the last byte.

A run on a disk already full says so in one line (the run lock holds without its pid note); a
run whose session fills the disk ends with one line naming the cause, never a traceback; the row
it could not finish is settled by the next run once there is space again.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from claudeops.exit_codes import EXIT_FAILED, EXIT_OK
from claudeops.session_rows import ABANDONED_REASON
from claudeops.store import DISK_FULL

TESTS = Path(__file__).resolve().parent
HEALTHY = TESTS.parents[1] / "examples" / "sessions" / "healthy-tier1.jsonl"


@pytest.fixture(scope="module")
def full_disk_steps(small_disk, tmp_path_factory) -> dict[str, dict[str, object]]:
    """The story, told once for the module (see ``full_disk_driver``): a run on a full disk, a session
    that fills the disk, a run with space again."""
    env = {**os.environ, "PYTHONPATH": str(TESTS), "CLAUDEOPS_STATE_DIR": str(small_disk.path / "state")}
    result = small_disk.run([sys.executable, str(TESTS / "full_disk_driver.py"), str(HEALTHY),
                             str(tmp_path_factory.mktemp("recordings") / "fills-the-disk.jsonl")], env=env)
    assert result.returncode == 0, result.stderr
    return {**json.loads(result.stdout), "disk": {"path": str(small_disk.path)}}


def test_a_disk_that_fills_during_a_session_is_one_line_naming_the_cause(full_disk_steps):
    assert full_disk_steps["migrate"]["code"] == EXIT_OK
    fills = full_disk_steps["fills"]
    assert fills["code"] == EXIT_FAILED and "Traceback" not in fills["stderr"]
    assert f"marker NOTE handler failed: session #1: NOTE marker: {DISK_FULL}" in fills["stderr"]
    assert fills["stderr"].splitlines()[-1] == (
        f"claudeops: error: database error: recording how session #1 ended: {DISK_FULL}")


def test_a_run_on_a_disk_already_full_says_so_and_the_lock_holds_without_its_note(full_disk_steps):
    full = full_disk_steps["full"]
    lines = full["stderr"].splitlines()
    assert full["code"] == EXIT_FAILED and "Traceback" not in full["stderr"]
    assert lines[0].startswith("claudeops: WARNING: cannot note this run's pid in ")
    assert lines[0].endswith(f"run.lock: {DISK_FULL}")
    assert lines[1:] == [f"claudeops: error: database error: cannot open database sqlite:///"
                         f"{full_disk_steps['disk']['path']}/state/claudeops.db: {DISK_FULL}"]


def test_the_row_a_full_disk_left_running_is_repaired_when_there_is_space_again(full_disk_steps):
    freed = full_disk_steps["freed"]
    assert freed["code"] == EXIT_OK, freed["stderr"]
    assert "marked 1 session(s) left running by a process that died as interrupted" in freed["stderr"]
    [first, second] = full_disk_steps["rows"]  # the run on the full disk stored nothing
    assert first == [1, "interrupted", ABANDONED_REASON] and second[1] == "completed"
