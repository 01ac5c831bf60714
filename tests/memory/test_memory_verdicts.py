"""What a judge may answer and what the store does with it: bare strings, records, certainty.

A third-party judge cannot import the memory plugin, so these judges answer with records of their
own (a dataclass with the same field names), exactly as the hook's documentation tells them to.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from claudeops_memory.judging import Judges
from claudeops_memory.models import Memory
from claudeops_memory.verdict import JudgeVerdict, as_verdict
from memory_helpers import LoadedApp

from claudeops import hookimpl

EXISTING = "Takes 60s to start after restart"
NEW = "Needs a minute before it answers after a restart"


@dataclass(frozen=True)
class MyVerdict:
    relation: str
    certainty: float
    reason: str


def _confidences() -> dict[str, float]:
    return {memory.observation: memory.confidence for memory in Memory.select()}


def test_a_bare_string_is_a_certain_verdict_of_the_plugin_that_answered() -> None:
    assert as_verdict("contradict", "my-judge") == JudgeVerdict("contradict", 1.0, "", "my-judge")
    assert as_verdict(None, "my-judge") is None


def test_a_record_of_any_class_is_read_by_its_fields() -> None:
    assert as_verdict(MyVerdict("reinforce", 0.4, "why"), "my-judge") == JudgeVerdict("reinforce", 0.4, "why",
                                                                                      "my-judge")


@pytest.mark.parametrize("answer", ["maybe", MyVerdict("maybe", 1.0, ""), MyVerdict("reinforce", 1.5, ""),
                                    MyVerdict("reinforce", True, ""), 42])  # type: ignore[arg-type]
def test_an_answer_that_is_no_verdict_is_refused(answer: Any) -> None:
    with pytest.raises(ValueError):
        as_verdict(answer, "my-judge")


def test_a_sure_record_from_a_plugged_in_judge_decides(memory_app: LoadedApp,
                                                      register_plugin: Callable[[Any, str], None]) -> None:
    class SureJudge:
        @hookimpl
        def judge_memory_relation(self, existing: str, new: str) -> MyVerdict:
            return MyVerdict("contradict", 0.9, "it says so")

    register_plugin(SureJudge(), "sure-judge")
    memory_app.remember(EXISTING, service="jellyfin")
    memory_app.emit(memory_app.session(), f"[MEMORY:timing:jellyfin] {NEW}")
    assert _confidences() == {EXISTING: 0.5, NEW: 0.7}


def test_an_unsure_record_from_a_plugged_in_judge_keeps_both_memories(
        memory_app: LoadedApp, register_plugin: Callable[[Any, str], None]) -> None:
    class UnsureJudge:
        @hookimpl
        def judge_memory_relation(self, existing: str, new: str) -> MyVerdict:
            return MyVerdict("reinforce", 0.84, "probably the same")

    register_plugin(UnsureJudge(), "unsure-judge")
    memory_app.remember(EXISTING, service="jellyfin")
    memory_app.emit(memory_app.session(), f"[MEMORY:timing:jellyfin] {EXISTING.lower()} and more")
    assert _confidences() == {EXISTING: 0.7, f"{EXISTING.lower()} and more": 0.7}


def test_verdicts_name_the_plugin_that_gave_them(memory_app: LoadedApp,
                                                 register_plugin: Callable[[Any, str], None]) -> None:
    class PickyJudge:
        @hookimpl
        def judge_memory_relation(self, existing: str) -> str | None:
            return "distinct" if "port" in existing else None

    register_plugin(PickyJudge(), "picky-judge")
    judges = Judges(memory_app.app.hook)
    port, start = judges(NEW, ["Listens on port 8096", EXISTING], "jellyfin", "timing")
    assert port == JudgeVerdict("distinct", 1.0, "", "picky-judge")
    assert start.judge == "offline" and start.relation == "reinforce" and start.certainty < 0.85
    assert start.reason.startswith("the same fact reworded")


def test_a_batch_judge_is_asked_once_and_leaves_pairs_to_the_pair_judges(
        memory_app: LoadedApp, register_plugin: Callable[[Any, str], None]) -> None:
    calls: list[list[str]] = []

    class BatchJudge:
        @hookimpl
        def judge_memory_relations(self, new: str, existing: list[str]) -> list[object]:
            calls.append(existing)
            return [MyVerdict("distinct", 0.95, "another port"), None]

    register_plugin(BatchJudge(), "batch-judge")
    first, second = Judges(memory_app.app.hook)(NEW, ["Listens on port 8096", EXISTING], "jellyfin", "timing")
    assert calls == [["Listens on port 8096", EXISTING]]
    assert first == JudgeVerdict("distinct", 0.95, "another port", "batch-judge")
    assert second.judge == "offline"


@pytest.mark.parametrize("answer", ["distinct", ["distinct"], [MyVerdict("distinct", 1.0, "")] * 3])
def test_a_batch_answer_of_the_wrong_shape_is_ignored_with_a_warning(
        memory_app: LoadedApp, register_plugin: Callable[[Any, str], None], caplog: pytest.LogCaptureFixture,
        answer: Any) -> None:
    class WrongBatch:
        @hookimpl
        def judge_memory_relations(self) -> Any:
            return answer

    register_plugin(WrongBatch(), "wrong-batch")
    with caplog.at_level(logging.WARNING):
        verdicts = Judges(memory_app.app.hook)(NEW, ["Listens on port 8096", EXISTING], "jellyfin", "timing")
    assert [verdict.judge for verdict in verdicts] == ["offline", "offline"]
    assert "plugin 'wrong-batch' answered judge_memory_relations" in caplog.text


def test_an_answer_that_is_no_relation_is_distinct_with_a_warning(
        memory_app: LoadedApp, register_plugin: Callable[[Any, str], None], caplog: pytest.LogCaptureFixture) -> None:
    class ConfusedJudge:
        @hookimpl
        def judge_memory_relation(self) -> str:
            return "same-ish"

    register_plugin(ConfusedJudge(), "confused-judge")
    memory_app.remember(EXISTING, service="jellyfin")
    with caplog.at_level(logging.WARNING):
        memory_app.emit(memory_app.session(), "[MEMORY:timing:jellyfin] Takes 60s to start after a restart")
    assert "plugin 'confused-judge' answered judge_memory_relation with 'same-ish' is not a relation" in caplog.text
    assert len(_confidences()) == 2


def test_the_store_threshold_is_the_offline_judges_default() -> None:
    from claudeops_memory.judge import DEFAULT_MIN_CERTAINTY
    from claudeops_memory.settings import JUDGE_MIN_CERTAINTY, MemorySettings

    assert MemorySettings().judge_min_certainty == JUDGE_MIN_CERTAINTY == DEFAULT_MIN_CERTAINTY


def test_a_verdict_record_is_checked_like_any_other_answer() -> None:
    """The offline judge's own records skip the conversion, not the checks."""
    sure = JudgeVerdict("distinct", 0.5, "why", "offline")
    assert as_verdict(sure, "my-judge") is sure
    assert as_verdict(JudgeVerdict("reinforce", 0.5, "", ""), "my-judge") == JudgeVerdict("reinforce", 0.5, "",
                                                                                           "my-judge")
    with pytest.raises(ValueError):
        as_verdict(JudgeVerdict("reinforce", 1.5, "", "offline"), "my-judge")


def test_the_offline_judge_answers_every_pair_left_open_in_one_call(
        memory_app: LoadedApp, register_plugin: Callable[[Any, str], None], monkeypatch: pytest.MonkeyPatch) -> None:
    """A judge plugged in first still answers first; the offline judge then gets the rest as one group."""
    import claudeops_memory.judge as offline

    groups: list[list[str]] = []
    real = offline.judge_group
    monkeypatch.setattr(offline, "judge_group", lambda new, existing, service: groups.append(existing) or real(
        new, existing, service))

    class PickyJudge:
        @hookimpl
        def judge_memory_relation(self, existing: str) -> str | None:
            return "distinct" if "port" in existing else None

    register_plugin(PickyJudge(), "picky-judge")
    texts = [EXISTING, "Listens on port 8096", "Backups run nightly at 02:00"]
    verdicts = Judges(memory_app.app.hook)(NEW, texts, "jellyfin", "timing")

    assert groups == [[EXISTING, "Backups run nightly at 02:00"]]
    assert [verdict.judge for verdict in verdicts] == ["offline", "picky-judge", "offline"]
    expected = [real(NEW, [text], "jellyfin")[0] for text in (EXISTING, texts[2])]
    assert [(verdict.relation, verdict.certainty, verdict.reason) for verdict in (verdicts[0], verdicts[2])] == [
        (judgement.relation, judgement.certainty, judgement.reason) for judgement in expected]
