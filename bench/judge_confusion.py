"""Score the default memory relation judge on labelled JSONL files and time its decisions.

Usage: ``python bench/judge_confusion.py [FILE ...]`` (default: ``tests/data/memory-relations-dev.jsonl``
and ``tests/data/memory-relations-heldout.jsonl``).  Each line of a FILE is an object with
``existing``, ``new``, ``relation`` (one of reinforce, contradict, distinct) and optionally
``service`` (passed to the judge, as the store does).  For each file the script prints the
accuracy, a confusion table (rows = expected, columns = predicted) and every misclassified pair;
for the held-out file also the accuracy of its tuning blocks and of its fresh block (see
``tests/data/README.md``).  Then the per-pair decision time over all files.  It exits 0: it is a
report for tuning the judge, not a gate (the gates are in ``tests/memory/test_memory_judge.py``).

Timing: after one warm-up pass over the file (the judge's vocabulary caches fill once per
process), each pair is judged ``REPETITIONS`` times with ``time.perf_counter``.  "Cold" clears the
judge's per-text feature cache before every call, so it is the cost of a decision on texts never
seen before; "warm" is a repeat decision served from that cache.  The per-pair figure is the
median of its repetitions; the summary gives the median and maximum over pairs, and the slowest
single call.  Garbage collection is paused while timing, as ``timeit`` does; on a busy machine
the slowest single call still includes scheduler noise.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
JUDGE_PACKAGE = REPO / "plugins" / "claudeops_memory" / "judge"
DEV_FILE = REPO / "tests" / "data" / "memory-relations-dev.jsonl"
HELDOUT_FILE = REPO / "tests" / "data" / "memory-relations-heldout.jsonl"
BLOCKS: dict[str, tuple[tuple[str, int, int], ...]] = {
    HELDOUT_FILE.name: (
        ("tuning blocks, lines 1-144", 0, 144),
        ("fresh block, lines 145-204 (unseen while tuning)", 144, 204),
    ),
}
"""Line ranges of a file reported on their own: the held-out file's pairs the judge was tuned on,
and the fresh block it never was, whose score is the honest one (see ``tests/data/README.md``)."""
LABELS = ("reinforce", "contradict", "distinct")
REPETITIONS = 300


def load_judge() -> ModuleType:
    """Import the judge package by path, so the bench runs from a plain checkout without installing."""
    spec = importlib.util.spec_from_file_location(
        "claudeops_memory_judge_bench", JUDGE_PACKAGE / "__init__.py", submodule_search_locations=[str(JUDGE_PACKAGE)]
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {JUDGE_PACKAGE}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


DEV_TARGET = 27
TIME_TARGET_MS = 5.0


def read_pairs(path: Path) -> list[dict[str, Any]]:
    """The labelled pairs of a JSONL file (blank lines ignored)."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def print_confusion(expected: list[str], predicted: list[str]) -> None:
    """A 3x3 table of counts, rows = expected label, columns = predicted label."""
    width = max(len(label) for label in LABELS) + 2
    print("expected \\ predicted".ljust(width + 12) + "".join(label.rjust(width) for label in LABELS))
    for row in LABELS:
        counts = [sum(1 for e, p in zip(expected, predicted, strict=True) if e == row and p == column)
                  for column in LABELS]
        print(row.ljust(width + 12) + "".join(str(count).rjust(width) for count in counts))


def time_pairs(judge: ModuleType, pairs: list[dict[str, Any]], cold: bool) -> tuple[list[float], float]:
    """Per-pair median decision time and the slowest single call, both in milliseconds."""
    medians: list[float] = []
    slowest = 0.0
    gc.disable()  # as timeit does: a collection pause is not part of a decision
    try:
        for pair in pairs:
            samples = _time_pair(judge, pair, cold)
            medians.append(statistics.median(samples))
            slowest = max(slowest, max(samples))
    finally:
        gc.enable()
    return medians, slowest


def _time_pair(judge: ModuleType, pair: dict[str, Any], cold: bool) -> list[float]:
    """``REPETITIONS`` decision times for one pair, in milliseconds."""
    samples: list[float] = []
    for _ in range(REPETITIONS):
        if cold:
            judge.features.cache_clear()
        start = time.perf_counter()
        judge.judge_relation(pair["existing"], pair["new"], pair.get("service"))
        samples.append((time.perf_counter() - start) * 1000.0)
    return samples


def report(judge: ModuleType, path: Path, pairs: list[dict[str, Any]]) -> int:
    """Print accuracy, confusion table, block accuracies and misclassified pairs of one file; the number right."""
    expected = [pair["relation"] for pair in pairs]
    predicted = [judge.judge_relation(pair["existing"], pair["new"], pair.get("service")) for pair in pairs]
    correct = [e == p for e, p in zip(expected, predicted, strict=True)]

    print(f"file: {path}")
    print(f"accuracy: {sum(correct)}/{len(pairs)} = {sum(correct) / max(len(pairs), 1):.1%}")
    for label, start, end in BLOCKS.get(path.name, ()):
        block = correct[start:end]
        print(f"  {label}: {sum(block)}/{len(block)} = {sum(block) / max(len(block), 1):.1%}")
    print()
    print_confusion(expected, predicted)

    misses = [(pair, p) for pair, p in zip(pairs, predicted, strict=True) if p != pair["relation"]]
    print(f"\nmisclassified: {len(misses)}")
    for pair, p in misses:
        print(f"  expected {pair['relation']}, predicted {p}\n    existing: {pair['existing']}\n"
              f"    new:      {pair['new']}")
    print()
    return sum(correct)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, default=[DEV_FILE, HELDOUT_FILE], help="labelled JSONL pairs")
    args = parser.parse_args()

    judge = load_judge()
    every_pair: list[dict[str, Any]] = []
    dev_right = None
    for path in args.files:
        pairs = read_pairs(path)
        right = report(judge, path, pairs)
        if path.name == DEV_FILE.name:
            dev_right = right
        every_pair.extend(pairs)

    print(f"decision time per pair over {len(every_pair)} pairs ({REPETITIONS} repetitions each, time.perf_counter;"
          " the scoring passes above were the warm-up):")
    cold_median = None
    for label, cold in (("cold (feature cache cleared)", True), ("warm (feature cache hit)", False)):
        medians, slowest = time_pairs(judge, every_pair, cold)
        cold_median = statistics.median(medians) if cold else cold_median
        print(f"  {label:30} median {statistics.median(medians):.3f} ms, max {max(medians):.3f} ms "
              f"(slowest single call {slowest:.3f} ms)")
    met = (dev_right is None or dev_right >= DEV_TARGET) and cold_median is not None and cold_median < TIME_TARGET_MS
    dev = "not scored" if dev_right is None else f"{dev_right}/30"
    print(f"target (dev set >= {DEV_TARGET}/30, median cold decision < {TIME_TARGET_MS:g} ms): dev {dev}, "
          f"{cold_median:.3f} ms: {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
