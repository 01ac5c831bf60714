"""``claudeops memories context`` at 1k, 10k, 100k and 1M memories: the preview of a session start
(decay taken into account, nothing written, decay not redone) against the raw top-K query
(issue 18 item 2).

Usage: ``python bench/memory_context_preview.py [SIZES]`` (default ``1k,10k,100k,1M``).

The store is one no session decayed for a while: on a private copy of the cached database
(:func:`memory_data.cached_database`), decay ran ``DAYS_SINCE_LAST_DECAY`` days before ``NOW``
(scheduling every memory), so at ``NOW`` a week or more of decay is due for thousands of
memories. Ours: :func:`claudeops_memory.session_start.preview_memory_context` at ``NOW`` (what
the command prints, without the CLI's start-up). Baseline, on its own ``sqlite3`` connection: ONE
bare query fetching the top rows of the table as it stands with the qualifying total, as many
rows as the block holds plus one; the two alternate call by call and the ratio is the median of
the rounds' ratios. Target: at most 3x at 1M. Before issue 18 the preview redid the whole decay
and rolled it back: 1.05 s at 100k, 11.2 s at 1M.

The bench also checks the preview against the real thing: after the timing it runs a session
start's decay and plan and requires the same block.
"""

from __future__ import annotations

import sqlite3
import sys
import tempfile
from datetime import timedelta
from pathlib import Path

from arguments import one_argument
from claudeops_memory.decay import decay_stale_memories
from claudeops_memory.decay_policy import DecayPolicy
from claudeops_memory.session_start import preview_memory_context, start_memory
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

DAYS_SINCE_LAST_DECAY = 7
ROUNDS = 7
TARGET_RATIO = 3.0


def measure(rows: int) -> tuple[float, float, float, int]:
    settings = MemorySettings()
    now = to_timestamp(NOW)
    with tempfile.TemporaryDirectory() as folder:
        state = Path(folder)
        database = copy_database(rows, state)
        app = load_app(state)
        decay_stale_memories(to_timestamp(NOW - timedelta(days=DAYS_SINCE_LAST_DECAY)), DecayPolicy.of(settings))
        raw = sqlite3.connect(database)
        floor = settings.min_confidence
        preview = preview_memory_context(settings, now)
        read = len(preview.ranked_ids) + 1
        due = raw.execute("SELECT COUNT(*) FROM memories WHERE decay_due_at <= ?", (now,)).fetchone()[0]
        mine, base, ratio = interleaved_ms(lambda: preview_memory_context(settings, now),
                                           lambda: raw.execute(TOP_ROWS, (floor, floor, read)).fetchall(), ROUNDS)
        raw.close()
        started = start_memory(settings, now).context
        assert (preview.text, preview.total) == (started.text, started.total), "the preview is not the real block"
        close_store()
        del app
    return mine, base, ratio, due


def main(sizes: tuple[int, ...]) -> int:
    print(f"{'size':>5}  {'preview (ms)':>12}  {'raw (ms)':>8}  {'ratio':>6}  decay due at the preview's moment")
    ratios = {}
    for rows in sizes:
        mine, base, ratio, due = measure(rows)
        ratios[rows] = ratio
        print(f"{size_label(rows):>5}  {mine:12.3f}  {base:8.3f}  {ratio:5.2f}x  {due:,} memories")
    largest = max(sizes)
    met = ratios[largest] <= TARGET_RATIO
    print(f"target: the preview <= {TARGET_RATIO:g}x the raw query at {size_label(largest)}: "
          f"{'met' if met else 'NOT met'} (same block as a session start: checked)")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main(one_argument(__doc__, "SIZES", parse_sizes, SIZES)))
