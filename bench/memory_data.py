"""Shared set-up for the memory benchmarks: an app over a temporary state dir and a filled table.

The table is built the way ``performance-facts.md`` measured its baselines: 20 services (10 %
general), 5 categories, observations of 80-200 characters, confidence uniform in 0-1, 90 %
active, ``updated_at`` spread over 120 days before ``NOW``. Rows are inserted with raw
``executemany`` after the plugin's own migrations created the schema, then ``ANALYZE`` runs.

The scale benchmarks (issue 18) run at 1k, 10k, 100k and 1M memories. A 1M database takes a
minute to build and is 300 MB, so :func:`cached_database` keeps each size, built once, under
``$CLAUDEOPS_BENCH_CACHE`` (default ``~/.cache/claudeops-bench``; never in the repository), named
after its size, its seed and the migrations that made its schema; benches work on a copy.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from claudeops.app import App
from claudeops.clock import to_timestamp
from claudeops.store import close_store

MEMORY_BUILTINS = ("claudeops.environment", "claudeops.escalation", "claudeops_memory")
NOW = datetime(2026, 6, 1, 12, 0, 0, tzinfo=UTC)
SERVICES = [f"service{number:02d}" for number in range(20)]
CATEGORIES = ("timing", "dependency", "behavior", "remediation", "maintenance")
WORDS = ("restart", "health", "check", "container", "timeout", "seconds", "database", "lock", "retry", "volume",
         "network", "after", "before", "wait", "fails", "succeeds", "port", "proxy", "upstream", "certificate",
         "renewal", "backup", "snapshot", "disk", "memory", "queue", "worker", "index", "cache", "token")


def load_app(state_dir: Path) -> App:
    """The memory plugin over a fresh database in ``state_dir``, migrated."""
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(state_dir)}, entry_points=False, builtins=MEMORY_BUILTINS)
    app.open_store()
    return app


SIZES = (1_000, 10_000, 100_000, 1_000_000)
"""The sizes issue 18 reports every scale figure at."""

QUALIFYING = "FROM memories WHERE active = 1 AND confidence >= ?"
TOP_ROWS = ("SELECT id, service, category, observation, confidence, (SELECT count(*) " + QUALIFYING + ") "
            + QUALIFYING + " ORDER BY confidence DESC, id DESC LIMIT ?")
"""The raw baseline of the session-start and context benches: the qualifying memories' top rows
with their count, in the block's order, as one plain query (bind: floor, floor, limit)."""


def size_label(rows: int) -> str:
    """``1k``, ``10k``, ``100k``, ``1M``."""
    return f"{rows // 1_000_000}M" if rows >= 1_000_000 else f"{rows // 1_000}k"


def parse_sizes(text: str) -> tuple[int, ...]:
    """``1k,100k,1M`` → (1000, 100000, 1000000)."""
    factors = {"k": 1_000, "m": 1_000_000}
    return tuple(int(float(part[:-1]) * factors[part[-1].lower()]) if part[-1].lower() in factors else int(part)
                 for part in text.split(",") if part)


def cache_dir() -> Path:
    folder = Path(os.environ.get("CLAUDEOPS_BENCH_CACHE") or Path.home() / ".cache" / "claudeops-bench")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def cached_database(rows: int, seed: int = 15) -> Path:
    """A migrated SQLite file holding ``rows`` memories (:func:`fill_memories`), built once and kept.

    Benches must not change it: they take :func:`copy_database`.
    """
    with tempfile.TemporaryDirectory() as folder:
        app = load_app(Path(folder))
        schema = "/".join(f"{owner}:{step.name}" for owner, steps in app.migrations for step in steps)
        close_store()
    key = hashlib.sha256(f"{rows}/{seed}/{schema}".encode()).hexdigest()[:12]
    target = cache_dir() / f"memories-{size_label(rows)}-{key}.db"
    if target.exists():
        return target
    with tempfile.TemporaryDirectory(dir=cache_dir()) as folder:
        load_app(Path(folder))
        close_store()
        built = Path(folder) / "claudeops.db"
        fill_memories(built, rows, seed)
        with sqlite3.connect(built) as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        connection.close()
        built.rename(target)
    return target


def copy_database(rows: int, folder: Path) -> Path:
    """A private copy of :func:`cached_database` as ``folder/claudeops.db`` (the app's default file)."""
    target = folder / "claudeops.db"
    shutil.copyfile(cached_database(rows), target)
    return target


def observation(rng: random.Random) -> str:
    """80-200 characters of ops-like words."""
    target = rng.randint(80, 200)
    words: list[str] = []
    while len(" ".join(words)) < target:
        words.append(rng.choice(WORDS))
    return " ".join(words)[:target].rstrip()


def fill_memories(database: Path, rows: int, seed: int = 15) -> None:
    """Insert ``rows`` memories into the (already migrated) SQLite file, then ANALYZE."""
    rng = random.Random(seed)
    records = []
    for _ in range(rows):
        stamp = to_timestamp(NOW - timedelta(seconds=rng.randint(0, 120 * 86400)))
        records.append((None if rng.random() < 0.1 else rng.choice(SERVICES), rng.choice(CATEGORIES),
                        observation(rng), round(rng.random(), 2), int(rng.random() < 0.9), stamp, stamp, 1))
    with sqlite3.connect(database) as connection:
        connection.executemany("INSERT INTO memories (service, category, observation, confidence, active, "
                               "created_at, updated_at, tier) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", records)
        connection.execute("ANALYZE")
    connection.close()


def interleaved_ms(ours: Callable[[], object], baseline: Callable[[], object], rounds: int = 7,
                   min_seconds: float = 0.3) -> tuple[float, float, float]:
    """Median per-call ms of ``ours``, of ``baseline``, and of their per-round ratio.

    Within a round the two alternate call by call, so a noisy neighbour slows both alike.
    """
    ours(), baseline()
    results = []
    for _ in range(rounds):
        mine = base = 0.0
        calls = 0
        while mine + base < min_seconds:
            start = time.perf_counter()
            ours()
            middle = time.perf_counter()
            baseline()
            mine, base, calls = mine + middle - start, base + time.perf_counter() - middle, calls + 1
        results.append((mine / calls * 1000, base / calls * 1000))
    return (statistics.median(mine for mine, _ in results), statistics.median(base for _, base in results),
            statistics.median(mine / base for mine, base in results))


def per_call_ms(function: Callable[[], object], min_seconds: float = 0.2) -> float:
    """Milliseconds per call of ``function``, looped for at least ``min_seconds``."""
    function()
    calls, start = 0, time.perf_counter()
    while True:
        function()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return elapsed / calls * 1000
