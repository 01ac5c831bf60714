"""Session start at 1k, 10k, 100k and 1M memories: decay (nothing due) + the context plan, against
the raw top-K query; and how long decay holds the write lock when it has work (issue 18 item 1).

Usage: ``python bench/memory_session_start.py [SIZES]`` (default ``1k,10k,100k,1M``; the databases
are built once and cached, see :func:`memory_data.cached_database`).

For each size, on a private copy of the cached database (``bench/memory_data.py``'s table: 90 %
active, ``updated_at`` spread over 120 days):

1. **First decay**: the store has never been scheduled (as right after migration ``013``), so the
   first run looks at every memory: total time, number of batches, and the longest time one
   batch held the write lock (target: at most 100 ms of wall time; the CPU time of the batch that
   took longest is printed beside it, and the load average after each size: on a shared machine
   the difference is time the process waited for a core while it held the lock).
2. **Session start, nothing due**: :func:`claudeops_memory.session_start.start_memory` at the same
   moment (decay finds nothing due, then the plan) against the baseline, on its own ``sqlite3``
   connection: ONE bare query fetching the same top rows with the qualifying total (the rows the
   block and the injection ledger need: those injected, then the ``ledger_cut_limit`` (100)
   left out, which the ledger names), alternated call by call; the ratio is the median of the rounds' ratios
   (target: at most 3x at every size). The decay's "anything due?" query plan is printed: it
   must be an index search, no scan.
3. **A little due**: the clock moved on by ``LATER_MINUTES``; a run decays the memories whose
   week fell due meanwhile: rows, batches, longest batch.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from arguments import one_argument
from claudeops_memory.decay import ANYTHING_DUE_SQL, DecayResult, decay_stale_memories
from claudeops_memory.decay_policy import DecayPolicy
from claudeops_memory.session_start import start_memory
from claudeops_memory.settings import MemorySettings
from memory_data import (
    NOW,
    SIZES,
    TOP_ROWS,
    copy_database,
    interleaved_ms,
    load_app,
    parse_sizes,
    size_label,
)

from claudeops.clock import to_timestamp
from claudeops.store import close_store

LATER_MINUTES = 10
ROUNDS = 7
TARGET_RATIO = 3.0
TARGET_BATCH_SECONDS = 0.1


@dataclass(frozen=True)
class Measured:
    rows: int
    first: DecayResult
    first_seconds: float
    mine: float
    base: float
    ratio: float
    due_plan: str
    later: DecayResult

    @property
    def met(self) -> bool:
        return (self.ratio <= TARGET_RATIO and "SCAN" not in self.due_plan
                and max(self.first.longest_batch_seconds, self.later.longest_batch_seconds) <= TARGET_BATCH_SECONDS)


def measure(rows: int) -> Measured:
    settings = MemorySettings()
    now = to_timestamp(NOW)
    with tempfile.TemporaryDirectory() as folder:
        state = Path(folder)
        database = copy_database(rows, state)
        app = load_app(state)

        started = time.perf_counter()
        first = decay_stale_memories(now, DecayPolicy.of(settings))
        first_seconds = time.perf_counter() - started

        plan = start_memory(settings, now).context
        read = len(plan.ranked_ids) + len(plan.cut_ids) + 1  # the block's rows, the ledger's cut ones, one more
        raw = sqlite3.connect(database)
        floor = settings.min_confidence
        top = raw.execute(TOP_ROWS, (floor, floor, read)).fetchall()
        assert [row[0] for row in top[:len(plan.ranked_ids)]] == list(plan.ranked_ids) and top[0][5] == plan.total
        mine, base, ratio = interleaved_ms(lambda: start_memory(settings, now),
                                           lambda: raw.execute(TOP_ROWS, (floor, floor, read)).fetchall(), ROUNDS)
        due_plan = " | ".join(row[-1] for row in raw.execute("EXPLAIN QUERY PLAN " + ANYTHING_DUE_SQL, (now,)))
        raw.close()

        later = decay_stale_memories(to_timestamp(NOW + timedelta(minutes=LATER_MINUTES)), DecayPolicy.of(settings))
        close_store()
        del app
    return Measured(rows, first, first_seconds, mine, base, ratio, due_plan, later)


def main(sizes: tuple[int, ...]) -> int:
    met = True
    print(f"{'size':>5}  {'start (ms)':>10}  {'raw (ms)':>8}  {'ratio':>6}  {'first decay':>28}  "
          f"{'+' + str(LATER_MINUTES) + ' min':>24}")
    for rows in sizes:
        result = measure(rows)
        first, later = result.first, result.later
        met = met and result.met
        print(f"{size_label(rows):>5}  {result.mine:10.3f}  {result.base:8.3f}  {result.ratio:5.2f}x  "
              f"{result.first_seconds:6.1f} s, {first.batches:4d} batches, "
              f"max {first.longest_batch_seconds * 1000:3.0f} ms (cpu {first.longest_batch_cpu_seconds * 1000:2.0f})"
              f"  {later.decayed:6,d} due, {later.batches:3d} b, max {later.longest_batch_seconds * 1000:3.0f} ms"
              f"  {'met' if result.met else 'NOT met'}")
        print(f"       load average {' '.join(f'{load:.1f}' for load in os.getloadavg())}")
        print(f"       anything due? {result.due_plan}")
    print(f"targets: session start <= {TARGET_RATIO:g}x the raw top-K query at every size; no scan when nothing is "
          f"due; every decay batch holds the write lock <= {TARGET_BATCH_SECONDS * 1000:g} ms: "
          f"{'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main(one_argument(__doc__, "SIZES", parse_sizes, SIZES)))
