"""What each index of ours on ``memories`` costs every write, and what it saves the read it serves
(issue 18 item 5), at 100,000 memories.

Usage: ``python bench/memory_indexes.py [ROWS]`` (default 100,000).

SPEC-0015's three indexes stay whatever they cost (the spec names them). For each index of ours,
on two private copies of the cached database (:func:`memory_data.cached_database`, decay
scheduled once), one with the index and one without it:

* **write**: 5,000 inserts (one statement each, in one transaction) plus 5,000 updates of the
  confidence of random memories, what markers and decay do, timed on both copies alternately
  (``ROUNDS`` rounds, median); the difference is the index's write cost per row written;
* **read**: the query the index is for, timed on both copies (median of many calls).
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

from arguments import one_argument
from claudeops_memory.decay import decay_stale_memories
from memory_data import NOW, SERVICES, copy_database, load_app, size_label

from claudeops.clock import to_timestamp
from claudeops.store import close_store

ROUNDS = 5
SERVICE = SERVICES[7]
WRITES = 5_000
INDEXES: dict[str, tuple[str, str, tuple[object, ...]]] = {
    # name: (why, the read it serves, its parameters)
    "idx_memories_active_confidence": (
        "the context block, in its order", "SELECT id, service, category, observation, confidence FROM memories "
        "WHERE active = 1 AND confidence >= ? ORDER BY confidence DESC, id DESC LIMIT 50", (0.3,)),
    "idx_memories_group": (
        "a marker's candidates",
        "SELECT id, observation FROM memories WHERE service = ? AND category = ? AND active = 1", (SERVICE, "timing")),
    "idx_memories_decay_due": ("decay: is anything due?", "SELECT id FROM memories WHERE decay_due_at <= ? LIMIT 1",
                               ("2026-01-01T00:00:00Z",)),
    "idx_memories_floor": ("the preview: how many fall under the floor", "SELECT COUNT(*) FROM memories WHERE "
                           "floor_at > '' AND floor_at <= ?", (to_timestamp(NOW),)),
    "idx_memories_listing": ("the dashboard's and the list's default order", "SELECT id FROM memories "
                             "ORDER BY confidence DESC, id DESC LIMIT 50 OFFSET 500", ()),
}


def writes(database: Path, seed: int) -> float:
    """Seconds for ``WRITES`` inserts and ``WRITES`` confidence updates, one transaction."""
    rng = random.Random(seed)
    connection = sqlite3.connect(database, isolation_level=None)
    last = connection.execute("SELECT MAX(id) FROM memories").fetchone()[0]
    stamp = to_timestamp(NOW)
    started = time.perf_counter()
    connection.execute("BEGIN IMMEDIATE")
    for number in range(WRITES):
        connection.execute("INSERT INTO memories (service, category, observation, confidence, active, created_at, "
                           "updated_at, tier) VALUES (?, 'timing', ?, ?, 1, ?, ?, 1)",
                           (SERVICES[number % len(SERVICES)], f"observation {number}", rng.random(), stamp, stamp))
        connection.execute("UPDATE memories SET confidence = ? WHERE id = ?", (rng.random(), rng.randint(1, last)))
    connection.execute("ROLLBACK")  # the next round starts from the same table
    elapsed = time.perf_counter() - started
    connection.close()
    return elapsed


def read_ms(database: Path, sql: str, params: tuple[object, ...]) -> float:
    connection = sqlite3.connect(database)
    connection.execute(sql, params).fetchall()
    calls, started = 0, time.perf_counter()
    while time.perf_counter() - started < 0.3:
        connection.execute(sql, params).fetchall()
        calls += 1
    connection.close()
    return (time.perf_counter() - started) / calls * 1000


def main(rows: int) -> int:
    with tempfile.TemporaryDirectory() as folder:
        state = Path(folder) / "with"
        state.mkdir()
        database = copy_database(rows, state)
        load_app(state)
        decay_stale_memories(to_timestamp(NOW))
        close_store()
        print(f"{size_label(rows)} memories; {WRITES:,} inserts + {WRITES:,} confidence updates per round, "
              f"median of {ROUNDS} rounds\n")
        print(f"{'index':32} {'write cost':>22} {'read with':>10} {'without':>10}  serves")
        for name, (why, sql, params) in INDEXES.items():
            without = Path(folder) / "without.db"
            shutil.copyfile(database, without)
            connection = sqlite3.connect(without)
            connection.execute(f"DROP INDEX {name}")
            connection.close()
            mine, theirs = [], []
            for round_number in range(ROUNDS):
                mine.append(writes(database, round_number))
                theirs.append(writes(without, round_number))
            extra = statistics.median(mine) - statistics.median(theirs)
            per_row = extra / (2 * WRITES) * 1e6
            share = extra / statistics.median(theirs)
            print(f"{name:32} {per_row:+7.1f} µs/row ({share:+6.1%}) {read_ms(database, sql, params):8.3f} ms "
                  f"{read_ms(without, sql, params):8.3f} ms  {why}")
            without.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main(one_argument(__doc__, "MEMORIES", int, 100_000)))
