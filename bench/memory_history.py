"""Reading one memory's history of 1,000 entries, against a raw query of the same rows.

Usage: ``python bench/memory_history.py [ENTRIES]`` (default 1,000).

One memory gets ``ENTRIES`` history entries the way its life would write them (created, then
reinforcements, contradictions, decay steps, edits with new text, a deletion and a restore),
among the entries of 2,000 other memories, so the read has to find its rows. Ours is
:func:`claudeops_memory.history.memory_history` — the query the timeline page, ``memories history``
and the API run — returning typed entries; the baseline is a bare ``sqlite3`` connection
fetching the same rows as tuples. The two alternate call by call (``interleaved_ms``).
Target (issue 14): at most 3x the raw query.
"""

from __future__ import annotations

import random
import sqlite3
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from arguments import one_argument
from claudeops_memory import history, repository
from claudeops_memory.history import OPERATOR, Decision, session_actor
from claudeops_memory.models import CHANGE_COLUMNS
from memory_data import interleaved_ms, load_app

from claudeops.store import close_store, db

OTHER_MEMORIES = 2_000
TARGET_RATIO = 3.0


def write_history(entries: int, seed: int = 14) -> int:
    """One memory with ``entries`` entries, interleaved with the entries of other memories; its id."""
    rng = random.Random(seed)
    memory = repository.create_memory(category="timing", service="jellyfin",
                                      observation="Takes 60s to start after restart")
    others = [repository.create_memory(category="behavior", observation=f"Other fact {number}")
              for number in range(OTHER_MEMORIES)]
    with db.atomic():
        for number in range(entries - 1):
            before = memory
            kind = rng.choice(("reinforced", "contradicted", "decayed", "edited"))
            confidence = round(rng.random(), 2)
            text = f"Takes {rng.randint(30, 180)}s to start after restart" if kind == "edited" else before.observation
            memory = replace(before, confidence=confidence, observation=text,
                             updated_at=f"2026-06-{1 + number % 28:02d}T12:00:00Z")
            history.record_change(kind, session_actor(rng.randint(1, 500), rng.randint(1, 3)), memory.updated_at,
                                  before=before, after=memory,
                                  decision=Decision("offline judge", round(rng.random(), 2), "same subject"))
            other = rng.choice(others)
            history.record_change("reinforced", OPERATOR, memory.updated_at, before=other, after=other)
    return memory.id


def main(entries: int) -> int:
    with tempfile.TemporaryDirectory() as folder:
        load_app(Path(folder))
        memory_id = write_history(entries)
        database = Path(folder) / "claudeops.db"
        raw = sqlite3.connect(database)
        select = f"SELECT {', '.join(CHANGE_COLUMNS)} FROM memory_changes WHERE memory_id = ? ORDER BY id"
        assert len(history.memory_history(memory_id)) == len(raw.execute(select, (memory_id,)).fetchall()) == entries

        total = raw.execute("SELECT COUNT(*) FROM memory_changes").fetchone()[0]
        ours, baseline, ratio = interleaved_ms(lambda: history.memory_history(memory_id),
                                               lambda: raw.execute(select, (memory_id,)).fetchall())
        raw.close()
        close_store()

    print(f"history of one memory:  {entries:,} entries, in a table of {total:,} entries about "
          f"{OTHER_MEMORIES + 1:,} memories")
    print(f"memory_history():       {ours:8.3f} ms")
    print(f"raw sqlite3 fetchall(): {baseline:8.3f} ms")
    within = ratio <= TARGET_RATIO
    print(f"ratio (median):         {ratio:8.2f}x   target <= {TARGET_RATIO:g}x: {'met' if within else 'NOT met'}")
    return 0 if within else 1


if __name__ == "__main__":
    sys.exit(main(one_argument(__doc__, "ENTRIES", int, 1_000)))
