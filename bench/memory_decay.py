"""Staleness decay over 100,000 memories, against one hand-written SQL UPDATE.

Usage: ``python bench/memory_decay.py [ROWS]`` (default 100,000).

Ours: :func:`claudeops_memory.decay.decay_stale_memories`: the first run over a store never scheduled,
which decays what is due (one history entry per memory lowered), records it in the ``memory_decay``
ledger (what makes it idempotent) and schedules every memory, in batches that each hold the write
lock about 40 ms.
Baseline: the plain, non-idempotent statement an implementation without a ledger would run,
on its own ``sqlite3`` connection, ``BEGIN IMMEDIATE`` to ``COMMIT``::

    UPDATE memories SET confidence = <clamped, rounded confidence - 0.1 * full weeks past 30 days>,
                        active = <0 when that is below 0.3>
    WHERE active = 1 AND updated_at <= <now - 37 days>

Every repeat starts from a fresh copy of the same database file, so both do the same first-run
work (about 60 % of the rows are stale); the ratio is the median of the per-repeat ratios (of wall
time: the target's; the same in CPU time is printed too, for a loaded machine).
A second run of ours at the same moment (nothing left to do) is timed too. Target (issue 4):
within 3x of the hand-written UPDATE.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from arguments import one_argument
from claudeops_memory.decay import decay_stale_memories
from memory_data import NOW, fill_memories, load_app

from claudeops.clock import to_timestamp
from claudeops.store import close_store, open_store

REPEATS = 5
WEEKS = "CAST((julianday(:now) - julianday(updated_at) - 30) / 7 AS INTEGER)"
HAND_WRITTEN = f"""
UPDATE memories SET
    confidence = ROUND(MAX(0.0, confidence - 0.1 * {WEEKS}), 2),
    active = CASE WHEN ROUND(MAX(0.0, confidence - 0.1 * {WEEKS}), 2) < 0.3 THEN 0 ELSE 1 END
WHERE active = 1 AND updated_at <= :first_week"""


def time_ours(database: Path, now: str) -> tuple[float, float, float, int, int]:
    open_store(f"sqlite:///{database}")
    start, working = time.perf_counter(), time.process_time()
    result = decay_stale_memories(now)
    first, cpu = time.perf_counter() - start, time.process_time() - working
    start = time.perf_counter()
    again = decay_stale_memories(now)
    second = time.perf_counter() - start
    close_store()
    assert again.decayed == 0
    return first * 1000, cpu * 1000, second * 1000, result.decayed, result.deactivated


def time_hand_written(database: Path, now: str) -> tuple[float, float, int]:
    connection = sqlite3.connect(database, isolation_level=None)
    connection.execute("PRAGMA journal_mode=wal")
    connection.execute("PRAGMA synchronous=normal")
    start, working = time.perf_counter(), time.process_time()
    connection.execute("BEGIN IMMEDIATE")
    changed = connection.execute(HAND_WRITTEN, {"now": now, "first_week": to_timestamp(NOW - timedelta(days=37))})
    connection.execute("COMMIT")
    elapsed, cpu = time.perf_counter() - start, time.process_time() - working
    connection.close()
    return elapsed * 1000, cpu * 1000, changed.rowcount


def main(rows: int) -> int:
    now = to_timestamp(NOW)
    with tempfile.TemporaryDirectory() as folder:
        state = Path(folder) / "state"
        load_app(state)
        close_store()
        pristine = state / "claudeops.db"
        fill_memories(pristine, rows)
        rounds, cpu_rounds = [], []
        for repeat in range(REPEATS):
            mine_copy, theirs_copy = Path(folder) / f"ours{repeat}.db", Path(folder) / f"theirs{repeat}.db"
            shutil.copyfile(pristine, mine_copy)
            shutil.copyfile(pristine, theirs_copy)
            mine, mine_cpu, again, decayed, deactivated = time_ours(mine_copy, now)
            theirs, theirs_cpu, changed = time_hand_written(theirs_copy, now)
            assert changed == decayed, (changed, decayed)
            rounds.append((mine, again, theirs))
            cpu_rounds.append((mine_cpu, theirs_cpu))
            mine_copy.unlink()
            theirs_copy.unlink()

    mine = statistics.median(first for first, _, _ in rounds)
    again = statistics.median(second for _, second, _ in rounds)
    theirs = statistics.median(base for _, _, base in rounds)
    ratio = statistics.median(first / base for first, _, base in rounds)
    print(f"memories in table:              {rows:,}; {decayed:,} decayed, {deactivated:,} of them deactivated")
    print(f"decay_stale_memories (ours):    {mine:8.1f} ms   (median of {REPEATS} fresh copies)")
    print(f"  same moment again (no-op):    {again:8.1f} ms")
    print(f"hand-written SQL UPDATE:        {theirs:8.1f} ms")
    within = ratio <= 3.0
    print(f"ratio ours / hand-written:      {ratio:8.2f}x   target <= 3x: {'met' if within else 'NOT met'}")
    print(f"ratios of the repeats:          {' '.join(f'{first / base:.2f}' for first, _, base in rounds)}; "
          f"load average {' '.join(f'{load:.1f}' for load in os.getloadavg())}")
    # for a loaded machine: the wall ratio above is the target's; CPU time leaves out waiting for a core
    # (and for the disk: the fsyncs of the checkpoints, which both sides do)
    print(f"CPU time, ours / hand-written:  {statistics.median(mine for mine, _ in cpu_rounds):8.1f} ms / "
          f"{statistics.median(base for _, base in cpu_rounds):.1f} ms = "
          f"{statistics.median(mine / base for mine, base in cpu_rounds):.2f}x (median of the repeats' ratios)")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main(one_argument(__doc__, "MEMORIES", int, 100_000)))
