"""``memories export`` and ``memories import`` of 100,000 memories, against a raw ``SELECT`` + ``json.dumps``.

Usage: ``python bench/memory_transfer.py [MEMORIES] [--rounds N]`` (default 100,000 memories, 3 rounds).

The store is ``memory_data.fill_memories``'s table, each memory given a uid, for 80 % the session
that recorded it, and the history its life would have written: a ``created`` entry, and for a
third of them a ``reinforced`` one (so ~133,000 entries). Each round measures, in this order:

* the **baseline**: a bare ``sqlite3`` connection running ``SELECT *`` over ``memories`` and
  ``memory_changes`` and ``json.dumps`` of every row — the least any export of those rows costs;
* **jsonl export**: :func:`claudeops_memory.export.export_memories` into a new file;
* **jsonl import**: :func:`claudeops_memory.importing.import_memories` of that file into an empty
  database (every document parsed, validated against the schemas, checked, redacted, planned and
  written in one transaction; the sessions are not there, so their provenance is kept aside);
* the **floor** of that import: bare ``sqlite3`` ``executemany`` of exactly the rows it wrote, into
  another empty database — what any import must at least spend, before parsing or checking a byte;
* **dir export**: the ``.memories`` folder written from scratch (temporary folder, one sync, rename);
* **dir re-export**: the same store into that folder again, which must write no file.

Targets (issue 15): jsonl export and import each ≤ 10× the baseline of the same round (the median
over the rounds of the wall-time ratio; the CPU-time ratio is printed beside it, as a figure other
jobs on the machine do not move); dir export ≤ 60 s; the re-export writes nothing. Exits 1 when a
target is missed.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from claudeops_memory.export import export_memories
from claudeops_memory.importing import import_memories
from memory_data import NOW, fill_memories, load_app

from claudeops.clock import to_timestamp
from claudeops.store import close_store

RATIO_TARGET = 10.0
DIR_TARGET_SECONDS = 60.0
STAMP = to_timestamp(NOW)


SESSIONS = 500


def give_life(database: Path, seed: int = 15) -> None:
    """What real memories have (raw SQL, set-up only): a uid each; for 80 % the session that recorded them
    (one of 500, which the database an import goes to does not have, so their provenance is kept aside
    there); a ``created`` entry each, and a ``reinforced`` one by a session for a third of them."""
    rng = random.Random(seed)
    with sqlite3.connect(database) as connection:
        connection.executemany("INSERT INTO sessions (id, tier, model, trigger, status, started_at) "
                               "VALUES (?, 1, 'haiku', 'timer', 'ok', ?)",
                               [(number, f"2026-05-01T00:00:{number % 60:02d}Z") for number in range(1, SESSIONS + 1)])
        rows = connection.execute("SELECT id, confidence, active, observation, updated_at FROM memories").fetchall()
        connection.executemany("UPDATE memories SET uid = ?, session_id = ? WHERE id = ?",
                               [(str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                                 rng.randint(1, SESSIONS) if rng.random() < 0.8 else None, row[0]) for row in rows])
        entries: list[tuple[object, ...]] = []
        for memory_id, confidence, active, observation, updated_at in rows:
            entries.append((memory_id, updated_at, "created", "operator", None, None, None, None, None, None, None,
                            0, None, confidence, None, active, None, observation, None, updated_at, None))
            if rng.random() < 1 / 3:
                entries.append((memory_id, updated_at, "reinforced", "session", rng.randint(1, SESSIONS), 1,
                                "exact repeat", None, None, None, None, 0, confidence, confidence, active, active,
                                None, None, updated_at, updated_at, None))
        connection.executemany(
            "INSERT INTO memory_changes (memory_id, changed_at, kind, actor, session_id, tier, decided_by, certainty, "
            "reason, related_memory_id, refers_to, needs_review, old_confidence, new_confidence, old_active, "
            "new_active, old_observation, new_observation, old_updated_at, new_updated_at, snapshot) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", entries)
    connection.close()


def raw_select_dumps(database: Path) -> int:
    """The baseline: every row of both tables fetched by bare sqlite3 and dumped to JSON; bytes produced."""
    connection = sqlite3.connect(database)
    try:
        size = 0
        for table in ("memories", "memory_changes"):
            for row in connection.execute(f"SELECT * FROM {table}"):
                size += len(json.dumps(row))
        return size
    finally:
        connection.close()


IMPORTED_TABLES = ("memories", "memory_sync", "memory_changes", "memory_change_origins", "memory_decay", "memory_flags")


def raw_inserts(imported: Path, empty: Path) -> float:
    """The floor of any import: bare ``sqlite3`` ``executemany`` of exactly the rows the import wrote
    (read from ``imported``) into ``empty`` (migrated, same pragmas), and the commit; seconds."""
    source, target = sqlite3.connect(imported), sqlite3.connect(empty)
    for pragma in ("journal_mode = wal", "synchronous = normal", "foreign_keys = 1"):
        target.execute(f"PRAGMA {pragma}")
    rows = {table: source.execute(f"SELECT * FROM {table}").fetchall() for table in IMPORTED_TABLES}
    source.close()
    start = time.perf_counter()
    for table, values in rows.items():
        if values:
            target.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(values[0]))})", values)
    target.commit()
    elapsed = time.perf_counter() - start
    target.close()
    return elapsed


CPU = "_cpu"
"""Suffix of a figure in this process's CPU time: on a machine other jobs load, wall times vary by 2x
between rounds and the baseline and the import do not run at the same moment; CPU time does not wait."""


def timed(figures: dict[str, float], name: str, function: Callable[[], object]) -> object:
    """Run ``function``, recording its wall time as ``name`` and its CPU time as ``name + CPU``."""
    start, cpu = time.perf_counter(), time.process_time()
    result = function()
    figures[name], figures[name + CPU] = time.perf_counter() - start, time.process_time() - cpu
    return result


def one_round(memories: int, folder: Path) -> dict[str, float]:
    source, target = folder / "source", folder / "target"
    source.mkdir()
    target.mkdir()
    load_app(source)
    database = source / "claudeops.db"
    fill_memories(database, memories)
    give_life(database)
    figures: dict[str, float] = {}
    timed(figures, "baseline", lambda: raw_select_dumps(database))
    jsonl = folder / "memories.jsonl"
    exported = timed(figures, "export_jsonl", lambda: export_memories(jsonl, "jsonl", STAMP))
    assert exported.memories == memories  # type: ignore[attr-defined]
    timed(figures, "export_dir", lambda: export_memories(folder / ".memories", "dir", STAMP))
    again = timed(figures, "reexport_dir", lambda: export_memories(folder / ".memories", "dir", STAMP))
    assert (again.written, again.removed) == (0, 0), again  # type: ignore[attr-defined]
    close_store()
    load_app(target)
    outcome = timed(figures, "import_jsonl", lambda: import_memories(jsonl, max_observation_chars=500, now=STAMP))
    assert outcome.counts["add"] == memories  # type: ignore[attr-defined]
    close_store()
    (folder / "floor").mkdir()
    load_app(folder / "floor")
    close_store()
    figures["insert_floor"] = raw_inserts(target / "claudeops.db", folder / "floor" / "claudeops.db")
    return figures


def span(values: list[float]) -> str:
    return f"{min(values):7.2f} – {max(values):7.2f}" if len(values) > 1 else f"{values[0]:7.2f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("memories", nargs="?", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    rounds = []
    for _ in range(options.rounds):
        folder = Path(tempfile.mkdtemp(prefix="claudeops-transfer-"))
        try:
            rounds.append(one_round(options.memories, folder))
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    figures = {name: [result[name] for result in rounds] for name in rounds[0]}
    print(f"{options.memories:,} memories, {options.rounds} round(s); seconds (min – max over rounds), wall and "
          "this process's CPU time")
    print(f"raw SELECT + json.dumps: {span(figures['baseline'])} s   CPU {span(figures['baseline' + CPU])} s")
    met = True
    for name, label in (("export_jsonl", "jsonl export"), ("import_jsonl", "jsonl import")):
        wall = [result[name] / result["baseline"] for result in rounds]
        cpu = [result[name + CPU] / result["baseline" + CPU] for result in rounds]
        met &= statistics.median(wall) <= RATIO_TARGET
        print(f"{label:24} {span(figures[name])} s   {span(wall)}x baseline (median {statistics.median(wall):.2f}x; "
              f"CPU {span(cpu)}x)   target <= {RATIO_TARGET:g}x: "
              f"{'met' if statistics.median(wall) <= RATIO_TARGET else 'NOT met'}")
    floor = [result["insert_floor"] / result["baseline"] for result in rounds]
    print(f"{'  of which the floor':24} {span(figures['insert_floor'])} s   {span(floor)}x baseline: bare sqlite3 "
          "executemany of exactly the rows the import wrote")
    worst_dir = max(figures["export_dir"])
    met &= worst_dir <= DIR_TARGET_SECONDS
    print(f"{'dir export (new folder)':24} {span(figures['export_dir'])} s   target <= {DIR_TARGET_SECONDS:g} s: "
          f"{'met' if worst_dir <= DIR_TARGET_SECONDS else 'NOT met'}")
    print(f"{'dir re-export, unchanged':24} {span(figures['reexport_dir'])} s   files written: 0 (checked)")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
