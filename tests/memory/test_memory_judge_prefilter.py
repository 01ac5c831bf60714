"""Issue 18 item 3: the judge's pre-filter (``judge.prefilter.ENABLED``) changes no answer.

With it the judge skips the fuzzy spelling pass and the difflib alignment where cheap facts prove
their result, and ``judge_group`` settles far-apart pairs from per-text readings without running
the rules.  The labelled pairs of ``bench/judge_confusion.py``, every cross pair of their texts
within a service, and pairs generated from them by small edits (a word dropped, swapped, replaced,
negated, a number changed, a prefix added) are judged with and without it, pair by pair and a
group at a time, and each judgement (relation, certainty and reason) must be the same.  The
spelling index the short cuts rely on must see terms that arrive later, and a full index must
cost time, never an answer.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


Answer = tuple[str, float, str]


def _answers(pairs: list[tuple[str, str, str | None]]) -> list[Answer]:
    judge.features.cache_clear()
    return [(found.relation, found.certainty, found.reason)
            for found in (judge.judge_pair(existing, new, service) for existing, new, service in pairs)]


def _reference(existing: str, new: str, service: str | None) -> Answer:
    """The judge without any short cut."""
    judge.prefilter.ENABLED = False
    try:
        found = judge.judge_pair(existing, new, service)
    finally:
        judge.prefilter.ENABLED = True
    return found.relation, found.certainty, found.reason


def _grouped(new: str, existing: list[str], service: str | None) -> list[Answer]:
    return [(found.relation, found.certainty, found.reason) for found in judge.judge_group(new, existing, service)]


def _labelled() -> list[dict[str, Any]]:
    return [pair for path in sorted(DATA.glob("memory-relations-*.jsonl")) for pair in _pairs(path)]


def _by_service() -> dict[str | None, set[str]]:
    """Every labelled text, by the service its pair is about."""
    by_service: dict[str | None, set[str]] = {}
    for pair in _labelled():
        by_service.setdefault(pair.get("service"), set()).update((pair["existing"], pair["new"]))
    return by_service


def _every_pair() -> list[tuple[str, str, str | None]]:
    """The labelled pairs, then each text against every other text of its service (the store's candidates)."""
    labelled = _labelled()
    by_service = _by_service()
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


EDIT_WORDS = ("not", "never", "restart", "backup", "timeout", "port", "unavailable", "available", "stop", "start",
              "before", "after", "must", "without", "enabled", "disabled", "30s", "5 minutes", "8080", "/srv/data",
              "transcoder", "transcoding", "configuration", "config", "nightly", "daily")
"""Words an edit may bring in: negations, events, antonyms, amounts, values, close spellings."""


def _edited(text: str, other: str, rng: random.Random) -> str:
    """``text`` with one small edit: a word dropped, doubled, swapped with its neighbour, replaced by a
    word of ``other`` or of :data:`EDIT_WORDS`, negated, prefixed with "un", or a number changed."""
    words = text.split()
    spot = rng.randrange(len(words))
    edit = rng.randrange(8)
    if edit == 0 and len(words) > 2:
        del words[spot]
    elif edit == 1:
        words.insert(spot, words[spot])
    elif edit == 2 and spot + 1 < len(words):
        words[spot], words[spot + 1] = words[spot + 1], words[spot]
    elif edit == 3:
        words[spot] = rng.choice(other.split())
    elif edit == 4:
        words.insert(spot, "not")
    elif edit == 5:
        words[spot] = "un" + words[spot]
    elif edit == 6:
        words = [str(int(word) * 2 + 1) if word.isdigit() else word for word in words] + [rng.choice(EDIT_WORDS)]
    else:
        words.insert(spot, rng.choice(EDIT_WORDS))
    return " ".join(words)


def _generated_groups(seed: int) -> list[tuple[str | None, list[str]]]:
    """Each service's labelled texts plus edited copies of them (near pairs, the hard ones) and a few
    texts of other services (far pairs), shuffled."""
    rng = random.Random(seed)
    by_service = _by_service()
    every = sorted(text for texts in by_service.values() for text in texts)
    groups = []
    for service, texts in sorted(by_service.items(), key=lambda item: str(item[0])):
        own = sorted(texts)
        edited = [_edited(rng.choice(own), rng.choice(every), rng) for _ in range(len(own))]
        group = own + edited + rng.sample(every, 5)
        rng.shuffle(group)
        groups.append((service, group))
    return groups


def test_judging_a_group_gives_every_pair_the_judgement_of_the_full_rules() -> None:
    """Each text of each generated group is recorded against the rest, as the store does: the group
    answers (far pairs settled from readings, the rest by the rules with the short cuts) must be the
    answers of the full rules, pair by pair."""
    checked = settled = 0
    for service, group in _generated_groups(18):
        for new in group[:12]:
            existing = [text for text in group if text != new]
            found = _grouped(new, existing, service)
            reference = [_reference(text, new, service) for text in existing]
            assert found == reference, service
            checked += len(existing)
            settled += sum(answer[2].startswith("different facts") for answer in found)
    assert checked > 5000
    assert settled > checked // 2  # the generated groups hold far pairs as well as near ones


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_an_edited_pair_is_judged_the_same_with_and_without_the_prefilter(data: st.DataObject) -> None:
    """Property: for any labelled text, any small edit of it (or another text of its service) and any
    service, pair and group judgements equal the full rules' (the group also holds any labelled text)."""
    by_service = _by_service()
    service = data.draw(st.sampled_from(sorted(by_service, key=str)))
    texts = sorted(by_service[service])
    existing = data.draw(st.sampled_from(texts))
    other = data.draw(st.sampled_from(texts))
    new = _edited(existing, other, random.Random(data.draw(st.integers(0, 2**32))))
    anywhere = data.draw(st.sampled_from(sorted(text for texts in by_service.values() for text in texts)))
    reference = _reference(existing, new, service)
    found = judge.judge_pair(existing, new, service)
    assert (found.relation, found.certainty, found.reason) == reference
    group = [existing, other, anywhere]  # the index has read many texts by now: near, far and edited ones
    assert _grouped(new, group, service) == [reference, *(_reference(text, new, service) for text in group[1:])]


def test_the_group_settles_far_pairs_without_the_rules_and_leaves_near_ones_to_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """It does work: a far-apart candidate never reaches ``judge_pair``; a near one always does."""
    ruled: list[str] = []
    real = judge.group.judge_pair
    monkeypatch.setattr(judge.group, "judge_pair", lambda existing, new, service: ruled.append(existing) or real(
        existing, new, service))
    far = "The web interface needs port 8096 free"
    near = "Nightly backups run at 02:00 and take about 20 minutes"

    found = judge.judge_group("Backups run nightly at 02:00 and take 20 minutes", [far, near], "jellyfin")

    assert ruled == [near]
    assert found[0].reason.startswith("different facts")


def test_a_term_seen_later_is_a_close_spelling_of_the_terms_seen_before() -> None:
    """The index must not go stale: a text read first, a text with a close spelling of one of its
    words read later, and the overlap counts the fuzzy match (as the full rules do)."""
    first = "Zyxtranscoding stalls the gpu queue"
    later = "The zyxtranscoder stalls the gpu queue"
    judge.judge_group(first, ["Unrelated words about certificate renewal"], "plex")
    before = judge.spellings.close_spellings(judge.concept("zyxtranscoding"))
    assert before is not None and judge.concept("zyxtranscoder") not in before

    found = _grouped(later, [first], "plex")

    assert judge.concept("zyxtranscoder") in judge.spellings.close_spellings(judge.concept("zyxtranscoding"))
    assert found == [_reference(first, later, "plex")]
    assert found[0][0] == "reinforce"  # the fuzzy match made it one fact: a stale index would call it distinct


def test_a_group_is_judged_whole_under_the_judges_lock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The spelling index grows a term's set of close spellings in place while the pairs read them, so a
    second thread must not index terms while a group is judged: every pair is judged holding the lock."""
    held: list[bool] = []
    real = judge.group.judge_pair

    def watched(*args: Any) -> Any:
        held.append(judge.term_index.lock.locked())
        return real(*args)

    monkeypatch.setattr(judge.group, "judge_pair", watched)
    judge.judge_group("Qwzlock restarts fix the stalled qwzlock queue",
                      ["Qwzlock restart fixes the stalled qwzlock queue", "The qwzlock queue stalls nightly"], "plex")
    assert held and all(held)


def test_a_full_spelling_index_costs_time_never_an_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``spellings.MAX_TERMS`` new terms stay unknown, and every pair with one goes to the full rules."""
    monkeypatch.setattr(judge.spellings, "MAX_TERMS", len(judge.spellings._known))
    new = "Qwvtranscoding on the qwvgpu fails after a qwvdriver update"
    group = ["Qwvtranscoder fails on the qwvgpu after a qwvdriver update", "Backups run nightly at 02:00"]

    assert judge.spellings.close_spellings("qwvdriver") is None
    assert _grouped(new, group, "plex") == [_reference(text, new, "plex") for text in group]


UNTOUCHED_LOOKALIKES = {
    "a close spelling": ("The zqtranscoder stalls on 4k files", "Zqtranscoding needs a gpu driver update"),
    "a prefix negation in the memory": ("The share is available to guests", "Unavailable after midnight backups"),
    "a prefix negation in the new text": ("The share is unavailable to guests", "Available after midnight backups"),
    "opposite events": ("Takes 60s to start", "Takes 60s to stop"),
    "the same words": ("It is what it is", "it IS what  it is"),
}
"""Pairs that share no topic term yet are not "different facts (0 %)": the term index must file
each memory under what makes it so (close spellings, negation bases, events, its words)."""


@pytest.mark.parametrize("new, memory", UNTOUCHED_LOOKALIKES.values(), ids=UNTOUCHED_LOOKALIKES)
def test_a_memory_sharing_no_term_with_the_new_text_is_still_judged_by_the_rules_when_they_differ(
        new: str, memory: str) -> None:
    reference = _reference(memory, new, "nas")
    assert not reference[2].startswith("different facts (0%")  # the case is one the index must not answer itself
    far = ["Certificates renew every 60 days", "The web interface needs port 8096 free"]

    assert _grouped(new, [*far, memory], "nas") == [*(_reference(text, new, "nas") for text in far), reference]


def test_memories_the_new_text_does_not_touch_never_reach_the_pair_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    """It does work: with the index, a memory sharing no term, spelling, negation or event with the
    new text is answered without ``_settled`` or ``judge_pair`` seeing it."""
    asked: list[str] = []
    real = judge.group._settled
    monkeypatch.setattr(judge.group, "_settled", lambda new_text, new, near, text, other: asked.append(text) or real(
        new_text, new, near, text, other))
    untouched = ["Certificates renew every 60 days", "The web interface needs port 8096 free"]
    near = "Nightly backups run at 02:00 and take about 20 minutes"

    found = _grouped("Backups run nightly at 02:00 and take 20 minutes", [*untouched, near], "jellyfin")

    assert asked == [near]
    assert found[:2] == [("distinct", 1.0, "different facts (0% of the content shared)")] * 2


def test_the_index_reads_a_text_per_service() -> None:
    """The service's own name is left out of every reading: a text filed for one service must not
    answer for another, where the name is a shared term."""
    new, memory = "Plex transcoding stalls", "Plex database is locked"

    for service in ("plex", None, "plex"):
        assert _grouped(new, [memory], service) == [_reference(memory, new, service)]
    assert _grouped(new, [memory], "plex")[0][2] == "different facts (0% of the content shared)"
    assert _grouped(new, [memory], None)[0][2] != "different facts (0% of the content shared)"


def test_a_full_term_index_starts_afresh_and_answers_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(judge.term_index, "READINGS", 3)
    service, texts = _generated_groups(7)[0]
    for new in texts[:6]:
        existing = [text for text in texts if text != new]
        assert _grouped(new, existing, service) == [_reference(text, new, service) for text in existing]
        assert sum(map(len, judge.term_index._indexes.values())) <= len(existing) + 3


def test_a_memory_with_terms_the_full_spelling_index_lacks_goes_to_the_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """A memory read once the spelling index is full may hold a close spelling nobody linked: the
    index cannot clear it, whatever terms it is filed under."""
    new = "The zqwtranscoding queue stalls"
    judge.judge_group(new, [], "plex")  # its terms are indexed while there is room
    monkeypatch.setattr(judge.spellings, "MAX_TERMS", len(judge.spellings._known))
    memory = "Zqwtranscoder crashes"

    found = _grouped(new, [memory], "plex")

    assert found == [_reference(memory, new, "plex")]
    assert found[0][2] != "different facts (0% of the content shared)"


def test_every_labelled_text_recorded_against_the_rest_of_its_service_gets_the_full_rules_answers() -> None:
    """The store's real situation over the labelled data: each text is the new memory and every other
    text of its service a candidate, judged as a group (term index, settled pairs, the rules for the
    rest), against the full rules pair by pair (symmetric, so once per pair)."""
    compared = untouched = 0
    for service, texts in sorted(_by_service().items(), key=lambda item: str(item[0])):
        ordered = sorted(texts)
        reference = {(first, second): _reference(first, second, service)
                     for first, second in itertools.combinations(ordered, 2)}
        for new in ordered:
            existing = [text for text in ordered if text != new]
            found = _grouped(new, existing, service)
            assert found == [reference[min(text, new), max(text, new)] for text in existing], (service, new)
            compared += len(existing)
            untouched += found.count(("distinct", 1.0, "different facts (0% of the content shared)"))
    assert compared > 30_000
    assert untouched > compared // 4  # most memories of a service share no term with a new one
