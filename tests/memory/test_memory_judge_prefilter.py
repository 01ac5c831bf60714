"""Issue 18 item 3: the judge's pre-filter (``frames.PREFILTER``) changes no answer.

It settles pairs that cannot share a frame without aligning them; the labelled pairs of
``bench/judge_confusion.py`` and every cross pair of their texts within a service are judged with
and without it, and each judgement (relation, certainty and reason) must be the same.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"


def _load_by_path(name: str, path: Path, package: bool) -> ModuleType:
    """Import by path, as ``test_memory_judge`` does: neither the plugin package nor bench/ is installed."""
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=[str(path.parent)]
                                                  if package else None)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


judge = _load_by_path("claudeops_memory_judge_prefilter", REPO / "plugins" / "claudeops_memory" / "judge" /
                      "__init__.py", package=True)
bench = _load_by_path("judge_confusion_prefilter", REPO / "bench" / "judge_confusion.py", package=False)


def _pairs(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


@pytest.fixture
def without_prefilter() -> Iterator[None]:
    judge.prefilter.ENABLED = False
    try:
        yield
    finally:
        judge.prefilter.ENABLED = True


def _answers(pairs: list[tuple[str, str, str | None]]) -> list[tuple[str, float, str]]:
    judge.features.cache_clear()
    return [(found.relation, found.certainty, found.reason)
            for found in (judge.judge_pair(existing, new, service) for existing, new, service in pairs)]


def _every_pair() -> list[tuple[str, str, str | None]]:
    """The labelled pairs, then each text against every other text of its service (the store's candidates)."""
    labelled: list[dict[str, Any]] = [pair for path in sorted(DATA.glob("memory-relations-*.jsonl"))
                                      for pair in _pairs(path)]
    by_service: dict[str | None, set[str]] = {}
    for pair in labelled:
        by_service.setdefault(pair.get("service"), set()).update((pair["existing"], pair["new"]))
    crossed = [(first, second, service) for service, texts in by_service.items()
               for first, second in itertools.combinations(sorted(texts), 2)]
    return [(pair["existing"], pair["new"], pair.get("service")) for pair in labelled] + crossed


def test_the_prefilter_changes_no_judgement(request: pytest.FixtureRequest) -> None:
    pairs = _every_pair()
    with_it = _answers(pairs)
    request.getfixturevalue("without_prefilter")
    without_it = _answers(pairs)

    assert len(pairs) > 1000
    assert with_it == without_it


def test_the_prefilter_settles_pairs_with_no_common_frame_without_aligning(monkeypatch: pytest.MonkeyPatch) -> None:
    """It does work: unrelated texts are settled before the alignment is even attempted."""
    aligned: list[object] = []
    real = judge.frames._aligned_substitution
    monkeypatch.setattr(judge.frames, "_aligned_substitution", lambda *args: aligned.append(args) or real(*args))

    judge.judge_pair("Backups run nightly at 02:00", "The web interface needs port 8096 free", "jellyfin")

    assert aligned == []


def test_the_bench_scores_the_same_blocks_without_the_prefilter(without_prefilter: None) -> None:
    without_it = [score.relations for score in bench.score_blocks(judge, judge.DEFAULT_MIN_CERTAINTY)]
    judge.prefilter.ENABLED = True
    with_it = [score.relations for score in bench.score_blocks(judge, judge.DEFAULT_MIN_CERTAINTY)]
    assert with_it == without_it
