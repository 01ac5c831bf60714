"""Shared set-up for the memory benchmarks: an app over a temporary state dir and a filled table.

The table is built the way ``performance-facts.md`` measured its baselines: 20 services (10 %
general), 5 categories, observations of 80-200 characters, confidence uniform in 0-1, 90 %
active, ``updated_at`` spread over 120 days before ``NOW``. Rows are inserted with raw
``executemany`` after the plugin's own migrations created the schema, then ``ANALYZE`` runs.
"""

from __future__ import annotations

import random
import sqlite3
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from claudeops.app import App
from claudeops.clock import to_timestamp

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
