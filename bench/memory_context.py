"""Building the memory context with 100,000 memories, against a bare sqlite3 query for the same rows.

Usage: ``python bench/memory_context.py [ROWS]`` (default 100,000).

Ours: :func:`claudeops_memory.context.plan_memory_context` (peewee, the default 2,000-token
budget), everything the session hook does to produce the block: count the qualifying memories,
stream them in index order, stop at the budget, render. Baseline, on its own ``sqlite3``
connection to the same file: ONE bare query that fetches the same top rows together with the
qualifying total the header states (a scalar subquery), ``LIMIT`` the number of rows ours read.
Each round alternates the two call by call for 0.3 s; the ratio is the median of the per-round
ratios.

Targets (issue 4): within 3x of the baseline and under 50 ms. The stream-only query (no total)
is printed too, for reference.
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
from pathlib import Path

from arguments import one_argument
from claudeops_memory.context import plan_memory_context
from memory_data import QUALIFYING, TOP_ROWS, fill_memories, interleaved_ms, load_app, per_call_ms

from claudeops.store import close_store

BUDGET_TOKENS = 2000
MIN_CONFIDENCE = 0.3
ROUNDS = 7
STREAM_ONLY = "SELECT id, service, category, observation, confidence " + QUALIFYING + \
              " ORDER BY confidence DESC, id DESC LIMIT ?"


def main(rows: int) -> int:
    with tempfile.TemporaryDirectory() as folder:
        state = Path(folder)
        app = load_app(state)
        database = state / "claudeops.db"
        fill_memories(database, rows)

        plan = plan_memory_context(BUDGET_TOKENS, MIN_CONFIDENCE)
        read = len(plan.injected_ids) + 1  # the rows ours reads: the injected ones and the one that did not fit
        raw = sqlite3.connect(database)
        top = raw.execute(TOP_ROWS, (MIN_CONFIDENCE, MIN_CONFIDENCE, read)).fetchall()
        assert {row[0] for row in top[:-1]} == plan.injected_ids and top[0][5] == plan.total

        mine, base, ratio = interleaved_ms(
            lambda: plan_memory_context(BUDGET_TOKENS, MIN_CONFIDENCE),
            lambda: raw.execute(TOP_ROWS, (MIN_CONFIDENCE, MIN_CONFIDENCE, read)).fetchall(), ROUNDS)
        stream = per_call_ms(lambda: raw.execute(STREAM_ONLY, (MIN_CONFIDENCE, read)).fetchall())
        plan_text = raw.execute("EXPLAIN QUERY PLAN " + STREAM_ONLY, (MIN_CONFIDENCE, read)).fetchall()
        raw.close()
        close_store()
        del app

    print(f"memories in table:            {rows:,} ({plan.total:,} qualify: active, confidence >= {MIN_CONFIDENCE})")
    print(f"context:                      {len(plan.injected_ids)} memories, ~{plan.tokens:,} tokens "
          f"(budget {BUDGET_TOKENS:,}); {read} rows read")
    print(f"query plan:                   {' | '.join(row[-1] for row in plan_text)}")
    print(f"build_memory_context (ours):  {mine:8.3f} ms   (median of {ROUNDS} rounds)")
    print(f"bare sqlite3, same top rows:  {base:8.3f} ms   (one query: rows + qualifying total)")
    print(f"  for reference, stream only: {stream:8.3f} ms   (same rows, no total)")
    within = ratio <= 3.0 and mine < 50.0
    print(f"ratio ours / bare:            {ratio:8.2f}x   target <= 3x and < 50 ms: {'met' if within else 'NOT met'}")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main(one_argument(__doc__, "MEMORIES", int, 100_000)))
