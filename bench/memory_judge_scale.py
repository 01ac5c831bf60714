"""Marker upsert with the offline judge as a group grows: 1, 10, 100 and 1,000 candidates per
(service, category), each measured cold in a process of its own (issue 18 item 3); and the
judge's time for the longest observation the configuration allows.

Usage: ``python bench/memory_judge_scale.py [CANDIDATES,...]`` (default ``1,10,100,1000``).

For each size a fresh Python process (as every ``claudeops run`` is: no text's features cached)
builds a database whose one group (``nas``, ``timing``) holds that many active memories — real
observations from ``tests/data/memory-relations-*.jsonl`` and, past those, generated ones
(``memory_data.observation``) — then sends ``MARKERS`` markers of new facts about the same group
through the marker handler (:func:`claudeops_memory.marker.handle_memory_marker`, the judge
compares each with every candidate), one session per ``MARKERS_PER_SESSION``; each new memory is
deleted again, untimed, so the group keeps its size. It prints markers/s, the handler's time only,
counted from the first marker (so the features of every candidate, computed on first sight, are
included). Targets: at least 1,000 markers/s with 100 candidates and 200/s with 1,000.  Beside it,
for reading on a shared machine: the same rate in the process's CPU time (what other processes'
load does not inflate as much), and the first marker's latency alone (it reads every candidate:
the judge keeps each text's reading for the rest of the process, see docs/memory.md).

Then :func:`claudeops_memory.judge.judge_pair` on two texts of ``MAX_OBSERVATION_CHARS_LIMIT``
characters (the most ``memory.max_observation_chars`` allows), cold: it must stay bounded.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arguments import one_argument
from claudeops_memory.judge import features, judge_pair
from claudeops_memory.marker import handle_memory_marker
from claudeops_memory.settings import MAX_OBSERVATION_CHARS_LIMIT
from memory_data import load_app, observation, parse_sizes

from claudeops.session import Session
from claudeops.session_rows import start_session_row
from claudeops.store import close_store, db

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
SIZES = (1, 10, 100, 1000)
MARKERS = 200
MARKERS_PER_SESSION = 10
TARGETS = {100: 1000.0, 1000: 200.0}


def corpus() -> list[str]:
    """Every distinct observation of the labelled pairs, in a fixed order."""
    texts: dict[str, None] = {}
    for path in sorted(DATA.glob("memory-relations-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                pair = json.loads(line)
                texts.setdefault(pair["existing"], None)
                texts.setdefault(pair["new"], None)
    return list(texts)


def one_size(candidates: int) -> dict[str, float]:
    """Markers per second with ``candidates`` memories in the group (run in a process of its own),
    the same per CPU second, and the first marker's milliseconds."""
    rng = random.Random(candidates)
    texts = corpus()
    rng.shuffle(texts)
    existing = texts[:candidates] + [observation(rng) for _ in range(max(0, candidates - len(texts)))]
    new = [f"{observation(rng)} (run {number})" for number in range(MARKERS)]
    with tempfile.TemporaryDirectory() as folder:
        app = load_app(Path(folder))
        stamp = "2026-06-01T12:00:00Z"
        db.cursor().executemany(
            "INSERT INTO memories (service, category, observation, confidence, active, created_at, updated_at, tier) "
            "VALUES ('nas', 'timing', ?, 0.7, 1, ?, ?, 1)", [(text, stamp, stamp) for text in existing])
        session = None
        elapsed = cpu = first = 0.0
        for index, text in enumerate(new):
            if index % MARKERS_PER_SESSION == 0:
                row = start_session_row(2, "sonnet", "bench", None, stamp)
                session = Session(id=row.id, tier=2, model="sonnet", trigger="bench", config=app.config,
                                  hook=app.hook)
            started, started_cpu = time.perf_counter(), time.process_time()
            [candidate] = app.markers.candidates(f"[MEMORY:timing:nas] {text}")
            marker = candidate.parse()
            assert marker is not None and session is not None
            result = handle_memory_marker(session, marker)
            took = time.perf_counter() - started
            cpu += time.process_time() - started_cpu
            elapsed += took
            first = first or took
            assert result is not False and result.action == "created", result
            # untimed: the new fact leaves the group, which stays at ``candidates`` memories
            db.execute_sql("DELETE FROM memories WHERE id = ?", (result.memory.id,))
        close_store()
    return {"rate": MARKERS / elapsed, "cpu_rate": MARKERS / cpu, "first_ms": first * 1000}


def longest_pair_ms() -> float:
    """One cold decision on two texts of the longest length allowed."""
    rng = random.Random(7)
    first = " ".join(observation(rng) for _ in range(20))[:MAX_OBSERVATION_CHARS_LIMIT]
    second = " ".join(observation(rng) for _ in range(20))[:MAX_OBSERVATION_CHARS_LIMIT]
    features.cache_clear()
    started = time.perf_counter()
    judge_pair(first, second, "nas")
    return (time.perf_counter() - started) * 1000


def main(sizes: tuple[int, ...]) -> int:
    met = True
    print(f"{'candidates':>10}  {'markers/s':>9}  {'per CPU s':>9}  {'first ms':>8}  target")
    for size in sizes:
        answer = subprocess.run([sys.executable, __file__, "--one", str(size)], capture_output=True, text=True,
                                check=True)
        figures = json.loads(answer.stdout)
        rate = figures["rate"]
        target = TARGETS.get(size)
        ok = target is None or rate >= target
        met = met and ok
        verdict = "" if target is None else f">= {target:,.0f}: " + ("met" if ok else "NOT met")
        print(f"{size:>10,}  {rate:9.0f}  {figures['cpu_rate']:9.0f}  {figures['first_ms']:8.1f}  {verdict}")
    longest = longest_pair_ms()
    print(f"one cold decision on two {MAX_OBSERVATION_CHARS_LIMIT:,}-character texts: {longest:.1f} ms")
    return 0 if met else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--one"]:
        print(json.dumps(one_size(int(sys.argv[2]))))
        sys.exit(0)
    sys.exit(main(one_argument(__doc__, "CANDIDATES", parse_sizes, SIZES)))
