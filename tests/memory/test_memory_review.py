"""Issue 14 item 8: the review queue lists the decisions a person should look at — contradictions and
replacements not yet reviewed, unsure judge decisions, likely duplicates — and records each action."""

from __future__ import annotations

import pytest
from claudeops_memory import repository, review
from claudeops_memory.history import memory_history
from claudeops_memory.undo import revert_change
from claudeops_memory.verdict import JudgeVerdict
from memory_helpers import LoadedApp

from claudeops import hookimpl


class VerdictJudge:
    def __init__(self, verdict: JudgeVerdict) -> None:
        self.verdict = verdict

    @hookimpl
    def judge_memory_relation(self) -> JudgeVerdict:
        return self.verdict


def _items(memory_app: LoadedApp) -> list[tuple[str, int, int | None]]:
    return [(item.kind, item.first.id, item.second.id if item.second else None)
            for item in review.review_items(memory_app.settings)]


def _replace(memory_app: LoadedApp) -> tuple[repository.MemoryRecord, repository.MemoryRecord]:
    old = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    memory_app.emit(memory_app.started(), f"[MEMORY:timing:jellyfin] Takes 3 minutes to start (replaces #{old.id})")
    [successor] = [memory for memory in repository.list_memories() if memory.id != old.id]
    return old, successor


def test_the_count_is_the_number_of_items_listed_a_pair_listed_as_a_change_once(memory_app: LoadedApp) -> None:
    """A replacement whose texts are also alike is one item in the queue, and one on the card."""
    memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    memory_app.emit(memory_app.started(), "[MEMORY:timing:jellyfin] Takes 90s to start after restart (replaces #1)")

    assert len(review.review_items(memory_app.settings)) == review.review_count(memory_app.settings) == 1


def test_a_replacement_waits_for_review_until_accepted(memory_app: LoadedApp) -> None:
    old, successor = _replace(memory_app)
    [item] = review.review_items(memory_app.settings)
    assert (item.kind, item.first.id, item.second.id, item.actions) == (  # type: ignore[union-attr]
        "replacement", old.id, successor.id, ("accept", "revert", "merge"))
    assert item.key == f"change-{item.change.id}"  # type: ignore[union-attr]

    entry = review.accept(item.change.id)  # type: ignore[union-attr]

    assert (entry.kind, entry.actor, entry.decided_by, entry.refers_to) == ("reviewed", "review", "accept",
                                                                          item.change.id)  # type: ignore[union-attr]
    assert review.review_items(memory_app.settings) == []
    assert repository.get_memory(old.id).confidence == 0.5  # type: ignore[union-attr]  # accepting changes nothing
    with pytest.raises(ValueError, match="is not waiting for review"):
        review.accept(item.change.id)  # type: ignore[union-attr]


def test_reverting_a_replacement_from_review_restores_the_old_memory(memory_app: LoadedApp) -> None:
    old, _ = _replace(memory_app)
    [item] = review.review_items(memory_app.settings)

    review.revert(item.change.id, memory_app.settings)  # type: ignore[union-attr]

    assert repository.list_memories() == [old]
    assert memory_history(old.id)[-1].actor == "review"
    assert review.review_items(memory_app.settings) == []


def test_a_judged_contradiction_is_listed_with_both_memories(memory_app: LoadedApp) -> None:
    memory_app.app.pm.register(VerdictJudge(JudgeVerdict("contradict", 0.95, judge="mine")), name="verdict-judge")
    must = memory_app.remember("Must be started after WireGuard", service="caddy", category="dependency")
    memory_app.emit(memory_app.started(), "[MEMORY:dependency:caddy] Can be started independently of WireGuard")
    [can] = [memory for memory in repository.list_memories() if memory.id != must.id]

    assert _items(memory_app) == [("contradiction", must.id, can.id)]


def test_an_unsure_decision_is_listed_and_keep_both_resolves_it_for_good(memory_app: LoadedApp) -> None:
    memory_app.app.pm.register(VerdictJudge(JudgeVerdict("reinforce", 0.3, judge="mine")), name="verdict-judge")
    candidate = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    memory_app.emit(memory_app.started(), "[MEMORY:timing:jellyfin] Takes 60 s to start after a restart")
    [new] = [memory for memory in repository.list_memories() if memory.id != candidate.id]
    [item] = review.review_items(memory_app.settings)  # listed once, not again as duplicates
    assert (item.kind, item.first.id, item.second.id, item.actions) == (  # type: ignore[union-attr]
        "unsure", new.id, candidate.id, ("keep both", "merge", "revert"))

    review.keep_both(new.id, candidate.id)

    assert review.review_items(memory_app.settings) == []
    assert memory_history(new.id)[-1].decided_by == "keep both"


def test_likely_duplicates_are_offered_and_a_negation_is_not(memory_app: LoadedApp) -> None:
    first = memory_app.remember("Takes 60s to start after restart", service="jellyfin", confidence=0.8)
    second = memory_app.remember("takes 60s to start after a restart", service="jellyfin")
    memory_app.remember("Takes 60s to start after restart", service="plex")  # another service
    memory_app.remember("Returns HTTP 200 when healthy", service="adguard", category="behavior")
    memory_app.remember("Does not return HTTP 200 when healthy", service="adguard", category="behavior")

    [item] = review.review_items(memory_app.settings)

    assert (item.kind, item.first.id, item.second.id, item.actions) == (  # type: ignore[union-attr]
        "duplicates", first.id, second.id, ("merge", "keep both"))
    assert item.similarity == 97 and item.key == f"pair-{first.id}-{second.id}"
    assert review.review_count(memory_app.settings) == 1
    review.keep_both(first.id, second.id)
    assert review.review_items(memory_app.settings) == [] and review.review_count(memory_app.settings) == 0


def test_duplicate_scores_are_token_sort_ratio_of_every_pair() -> None:
    """The words of each text are sorted once, not per pair: every score over the labelled relation
    texts (punctuation, case, reordered words, numbers) is rapidfuzz's own ``token_sort_ratio``."""
    import json
    from itertools import combinations
    from pathlib import Path

    from rapidfuzz import fuzz
    from rapidfuzz.utils import default_process

    data = Path(__file__).resolve().parents[1] / "data" / "memory-relations-blind3.jsonl"
    pairs = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines() if line.strip()]
    texts = [text for pair in pairs[:60] for text in (pair["existing"], pair["new"])] + ["", "  ", "a  b\tc"]
    for first, second in combinations(texts, 2):
        expected = fuzz.token_sort_ratio(default_process(first), default_process(second))
        assert fuzz.ratio(review.sorted_words(first), review.sorted_words(second)) == expected, (first, second)


def test_merge_keeps_one_text_and_the_higher_confidence_and_deactivates_the_other(memory_app: LoadedApp) -> None:
    keep = memory_app.remember("Takes 60s to start after restart", service="jellyfin", confidence=0.6)
    other = memory_app.remember("Takes 60 s to start after a restart, then serves", service="jellyfin",
                                confidence=0.9)

    merged = review.merge(keep.id, other.id, memory_app.settings, text_from=other.id)

    assert (merged.id, merged.observation, merged.confidence, merged.active) == (
        keep.id, "Takes 60 s to start after a restart, then serves", 0.9, True)
    retired = repository.get_memory(other.id)
    assert (retired.active, retired.confidence) == (False, 0.9)  # type: ignore[union-attr]
    for memory_id, related in ((keep.id, other.id), (other.id, keep.id)):
        entry = memory_history(memory_id)[-1]
        assert (entry.kind, entry.actor, entry.related_memory_id) == ("merged", "review", related)

    revert_change(memory_history(keep.id)[-1].id, memory_app.settings)  # a merge is undone on both sides

    assert (repository.get_memory(keep.id), repository.get_memory(other.id)) == (keep, other)


def test_merge_refuses_memories_of_different_groups(memory_app: LoadedApp) -> None:
    first = memory_app.remember("Takes 60s to start", service="jellyfin")
    second = memory_app.remember("Takes 60s to start", service="plex")

    with pytest.raises(ValueError, match="not of the same service and category"):
        review.merge(first.id, second.id, memory_app.settings)
    with pytest.raises(KeyError):
        review.merge(first.id, 9999, memory_app.settings)


def test_merging_a_contradiction_resolves_it(memory_app: LoadedApp) -> None:
    old, successor = _replace(memory_app)

    review.merge(successor.id, old.id, memory_app.settings)

    assert review.review_items(memory_app.settings) == []
    assert memory_history(old.id)[-1].decided_by == "merge"
