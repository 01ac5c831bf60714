"""Score the offline memory relation judge as the store uses it, block by block, and time it.

Usage: ``python bench/judge_confusion.py [--min-certainty X] [--misses] [--no-timing]``.

Every labelled pair of ``tests/data/memory-relations-*.jsonl`` is judged with ``judge_pair``; a
``reinforce`` or ``contradict`` below ``--min-certainty`` (default: the judge's own
``DEFAULT_MIN_CERTAINTY``, which ``memory.judge_min_certainty`` defaults to) counts as the
``distinct`` the store makes of it and as an *unsure call*.  For each block (``BLOCKS``: which lines
of which file, and whether the judge was tuned on them) it prints the accuracy, the wrong
``reinforce`` and wrong ``contradict`` counts, the unsure calls, the figures of the judge before
issue 14 (``BEFORE``) and the confusion table; never-tuned blocks are printed apart, after the
tuned ones.  ``--misses`` lists every pair judged wrong.

Then the gates (``gates``), which ``tests/memory/test_memory_judge.py`` asserts too: the dev set
at least 27/30; over all held-out pairs together (every block but the dev set and the calibration
block), wrong ``reinforce`` at most 1 % and wrong ``contradict`` no more than before.  And the time
per decision: after the scoring pass (the warm-up), each pair is judged ``REPETITIONS`` times with
the per-text feature cache cleared ("cold", a decision on texts never seen) and kept ("warm");
the median over pairs must stay under ``TIME_TARGET_MS``.  Exits 1 when a gate is missed.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
JUDGE_PACKAGE = REPO / "plugins" / "claudeops_memory" / "judge"
DATA = REPO / "tests" / "data"
LABELS = ("reinforce", "contradict", "distinct")
REPETITIONS = 50
DEV_TARGET = 27
WRONG_REINFORCE_MAX_SHARE = 0.01
TIME_TARGET_MS = 5.0


@dataclass(frozen=True)
class Block:
    """Lines ``start``..``end`` (0-based, end excluded) of a data file, scored on their own."""

    name: str
    file: str
    start: int
    end: int
    kind: str
    """``dev``, ``tuned`` (the judge or its certainty was fitted on it) or ``never-tuned``."""

    @property
    def held_out(self) -> bool:
        """Counted in the held-out gates: everything but the dev set and the calibration block."""
        return self.file not in ("memory-relations-dev.jsonl", "memory-relations-calibration.jsonl")


BLOCKS: tuple[Block, ...] = (
    Block("dev set", "memory-relations-dev.jsonl", 0, 30, "dev"),
    Block("held-out 1-48: tuning", "memory-relations-heldout.jsonl", 0, 48, "tuned"),
    Block("held-out 49-96: scored once, then tuned on", "memory-relations-heldout.jsonl", 48, 96, "tuned"),
    Block("held-out 97-144: scored once, then tuned on", "memory-relations-heldout.jsonl", 96, 144, "tuned"),
    Block("calibration: where the certainty was chosen", "memory-relations-calibration.jsonl", 0, 60, "tuned"),
    Block("held-out 145-204: fresh until its miss prompted the one-sided condition rule",
          "memory-relations-heldout.jsonl", 144, 204, "tuned"),
    Block("blind: seen since the amounts rule; its miss prompted the one-sided condition rule",
          "memory-relations-blind.jsonl", 0, 90, "tuned"),
    Block("blind2: blind until its miss prompted the one-sided denial rule", "memory-relations-blind2.jsonl", 0, 60,
          "tuned"),
    Block("blind3: written blind, scored once after every change", "memory-relations-blind3.jsonl", 0, 120,
          "never-tuned"),
    Block("blind4: written blind before the one-sided condition rule", "memory-relations-blind4.jsonl", 0, 120,
          "never-tuned"),
)
"""Where each labelled pair comes from and what the judge knew of it (``tests/data/README.md``)."""

BEFORE: dict[str, tuple[int, int, int]] = {
    "dev set": (30, 0, 0),
    "held-out 1-48: tuning": (48, 0, 0),
    "held-out 49-96: scored once, then tuned on": (48, 0, 0),
    "held-out 97-144: scored once, then tuned on": (47, 0, 0),
    "calibration: where the certainty was chosen": (48, 2, 3),
    "held-out 145-204: fresh until its miss prompted the one-sided condition rule": (49, 4, 1),
    "blind: seen since the amounts rule; its miss prompted the one-sided condition rule": (64, 7, 5),
    "blind2: blind until its miss prompted the one-sided denial rule": (47, 6, 3),
    "blind3: written blind, scored once after every change": (76, 12, 9),
    "blind4: written blind before the one-sided condition rule": (78, 15, 8),
}
"""(right, wrong reinforce, wrong contradict) of the judge before issue 14 (commit c80cece), which
acted on every call: the baseline of the "no more wrong contradict than before" gate."""


@dataclass(frozen=True)
class BlockScore:
    """One block's pairs with the judge's calls: the store's relation, the lean, the certainty."""

    block: Block
    pairs: tuple[dict[str, Any], ...]
    relations: tuple[str, ...]
    leans: tuple[str, ...]

    @property
    def right(self) -> int:
        return sum(pair["relation"] == got for pair, got in zip(self.pairs, self.relations, strict=True))

    def wrong(self, relation: str) -> int:
        """Pairs the store would treat as ``relation`` although they are not."""
        return sum(got == relation != pair["relation"] for pair, got in zip(self.pairs, self.relations, strict=True))

    @property
    def unsure(self) -> int:
        """Calls the judge leaned to reinforce or contradict but was not sure enough of."""
        return sum(lean != got for lean, got in zip(self.leans, self.relations, strict=True))


@dataclass(frozen=True)
class Gate:
    name: str
    figure: str
    met: bool


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


def read_pairs(path: Path) -> list[dict[str, Any]]:
    """The labelled pairs of a JSONL file (blank lines ignored)."""
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def store_relation(judgement: Any, min_certainty: float) -> str:
    """What the store does with a call: act on a sure one, keep both texts otherwise."""
    return str(judgement.relation) if judgement.certainty >= min_certainty else "distinct"


def score_blocks(judge: ModuleType, min_certainty: float) -> list[BlockScore]:
    """Every block judged once."""
    files: dict[str, list[dict[str, Any]]] = {}
    scores = []
    for block in BLOCKS:
        pairs = files.setdefault(block.file, read_pairs(DATA / block.file))[block.start : block.end]
        judgements = [judge.judge_pair(pair["existing"], pair["new"], pair.get("service")) for pair in pairs]
        scores.append(BlockScore(block, tuple(pairs),
                                 tuple(store_relation(judgement, min_certainty) for judgement in judgements),
                                 tuple(str(judgement.relation) for judgement in judgements)))
    return scores


def gates(scores: list[BlockScore]) -> list[Gate]:
    """The targets of issue 14 item 4, over ``scores``."""
    dev = next(score for score in scores if score.block.kind == "dev")
    held_out = [score for score in scores if score.block.held_out]
    pairs = sum(len(score.pairs) for score in held_out)
    wrong_reinforce = sum(score.wrong("reinforce") for score in held_out)
    wrong_contradict = sum(score.wrong("contradict") for score in held_out)
    before = sum(BEFORE[score.block.name][2] for score in held_out)
    return [
        Gate(f"dev set >= {DEV_TARGET}/{len(dev.pairs)}", f"{dev.right}/{len(dev.pairs)}", dev.right >= DEV_TARGET),
        Gate(f"held-out wrong reinforce <= {WRONG_REINFORCE_MAX_SHARE:.0%}",
             f"{wrong_reinforce}/{pairs} = {wrong_reinforce / pairs:.2%}",
             wrong_reinforce <= WRONG_REINFORCE_MAX_SHARE * pairs),
        Gate(f"held-out wrong contradict <= before ({before})", f"{wrong_contradict}/{pairs}",
             wrong_contradict <= before),
        _per_block_gate(dev, held_out),
    ]


def _per_block_gate(dev: BlockScore, held_out: list[BlockScore]) -> Gate:
    """Issue 14's "done when": on the dev set and on *every* held-out block, wrong ``reinforce`` at
    most 1 % of its pairs and no more than before - so a block of 60 pairs allows none."""
    over = [score for score in (dev, *held_out)
            if score.wrong("reinforce") > WRONG_REINFORCE_MAX_SHARE * len(score.pairs)
            or score.wrong("reinforce") > BEFORE[score.block.name][1]]
    figure = "; ".join(f"{score.block.name.split(':')[0]} {score.wrong('reinforce')}/{len(score.pairs)}"
                       for score in over) or "none over"
    return Gate(f"every held-out block and the dev set wrong reinforce <= {WRONG_REINFORCE_MAX_SHARE:.0%}", figure,
                not over)


def print_block(score: BlockScore, misses: bool) -> None:
    """Accuracy, error counts, unsure calls, the figures before, a confusion table; the misses if asked."""
    size = len(score.pairs)
    right, reinforce, contradict = BEFORE[score.block.name]
    print(f"{score.block.name} ({score.block.file}, lines {score.block.start + 1}-{score.block.end})")
    print(f"  accuracy {score.right}/{size} = {score.right / size:.1%}; wrong reinforce {score.wrong('reinforce')}, "
          f"wrong contradict {score.wrong('contradict')}, unsure calls {score.unsure}  "
          f"(before: {right}/{size}, wrong reinforce {reinforce}, wrong contradict {contradict})")
    counts = Counter(zip((pair["relation"] for pair in score.pairs), score.relations, strict=True))
    print("  expected \\ stored " + "".join(label.rjust(12) for label in LABELS))
    for row in LABELS:
        print(f"  {row:17}" + "".join(str(counts[(row, column)]).rjust(12) for column in LABELS))
    if misses:
        for pair, got, lean in zip(score.pairs, score.relations, score.leans, strict=True):
            if got != pair["relation"]:
                unsure = f" (unsure {lean})" if lean != got else ""
                print(f"    expected {pair['relation']}, stored {got}{unsure}: {pair['existing']!r} / {pair['new']!r}")
    print()


def time_decisions(judge: ModuleType, pairs: list[dict[str, Any]], cold: bool) -> tuple[float, float]:
    """Median over pairs of the per-pair median decision time, and the slowest single call, in ms."""
    medians: list[float] = []
    slowest = 0.0
    gc.disable()  # as timeit does: a collection pause is not part of a decision
    try:
        for pair in pairs:
            samples = []
            for _ in range(REPETITIONS):
                if cold:
                    judge.features.cache_clear()
                start = time.perf_counter()
                judge.judge_pair(pair["existing"], pair["new"], pair.get("service"))
                samples.append((time.perf_counter() - start) * 1000.0)
            medians.append(statistics.median(samples))
            slowest = max(slowest, max(samples))
    finally:
        gc.enable()
    return statistics.median(medians), slowest


def main() -> int:
    judge = load_judge()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-certainty", type=float, default=judge.DEFAULT_MIN_CERTAINTY,
                        help="calls below this are distinct (memory.judge_min_certainty)")
    parser.add_argument("--misses", action="store_true", help="list every pair judged wrong")
    parser.add_argument("--no-timing", action="store_true", help="skip the decision-time measurement")
    parser.add_argument("--no-prefilter", action="store_true",
                        help="judge without the pre-filter (judge.prefilter.ENABLED): every answer must be the same")
    args = parser.parse_args()
    judge.prefilter.ENABLED = not args.no_prefilter

    scores = score_blocks(judge, args.min_certainty)
    print(f"store acts on calls with certainty >= {args.min_certainty:g}\n\n== tuned blocks (and the dev set)\n")
    for score in scores:
        if score.block.kind != "never-tuned":
            print_block(score, args.misses)
    print("== never-tuned blocks\n")
    for score in scores:
        if score.block.kind == "never-tuned":
            print_block(score, args.misses)
    results = gates(scores)
    if not args.no_timing:
        pairs = [pair for score in scores for pair in score.pairs]
        cold, cold_slowest = time_decisions(judge, pairs, cold=True)
        warm, _ = time_decisions(judge, pairs, cold=False)
        print(f"decision time over {len(pairs)} pairs, {REPETITIONS} repetitions each: cold median {cold:.3f} ms "
              f"(slowest call {cold_slowest:.3f} ms), warm median {warm:.3f} ms\n")
        results.append(Gate(f"median cold decision < {TIME_TARGET_MS:g} ms", f"{cold:.3f} ms", cold < TIME_TARGET_MS))
    for gate in results:
        print(f"{'met    ' if gate.met else 'MISSED '} {gate.name}: {gate.figure}")
    return 0 if all(gate.met for gate in results) else 1


if __name__ == "__main__":
    sys.exit(main())
