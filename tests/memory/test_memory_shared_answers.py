"""Issue 18 item 3: a group's answers are converted once per distinct answer, and acted on for every memory.

With a thousand candidates nearly every pair gets one of a few answer objects; the store checks,
converts and searches them once per object (``claudeops_memory.shared_answers``).  What a user
relies on is that every memory still gets its own answer: the one a plugged-in judge gave it,
contradictions weakening each memory they name, the most trusted unsure one named in the review.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import claudeops_memory.verdict
from claudeops_memory.judging import Judges
from claudeops_memory.models import Memory
from claudeops_memory.shared_answers import convert_each_once, positions_where
from memory_helpers import LoadedApp, history_of

from claudeops import hookimpl


@dataclass(frozen=True)
class Answer:
    relation: str
    certainty: float = 1.0
    reason: str = ""


def test_each_distinct_answer_is_converted_once_and_given_to_every_memory_that_got_it() -> None:
    far, near = Answer("distinct"), Answer("reinforce")
    answers = [far, near, far, far, Answer("distinct"), near]
    converted: list[Answer] = []

    found = convert_each_once(lambda answer: converted.append(answer) or answer.relation.upper(), answers)

    assert found == [answer.relation.upper() for answer in answers]
    assert len(converted) == 3  # far, near and the equal but separate third object
    assert convert_each_once(str.upper, ["same"] * 4) == ["SAME"] * 4
    assert positions_where(lambda answer: answer.relation == "reinforce", answers) == [1, 5]
    assert positions_where(lambda answer: answer.relation == "contradict", answers) == []


def test_the_offline_judges_answers_are_checked_once_per_distinct_verdict(
        memory_app: LoadedApp, monkeypatch: Any) -> None:
    """It does work: 40 far-apart memories share one verdict, which is checked once, not 40 times."""
    checked: list[object] = []
    real = claudeops_memory.verdict.valid
    monkeypatch.setattr(claudeops_memory.verdict, "valid", lambda verdict: checked.append(verdict) or real(verdict))
    texts = [f"Certificate number {index} renews in the spring" for index in range(40)]

    verdicts = Judges(memory_app.app.hook)("The web interface needs port 8096 free", texts, "jellyfin", "timing")

    assert len(verdicts) == 40
    assert len(checked) == len({id(verdict) for verdict in verdicts}) < 5


def test_a_judge_answering_many_memories_at_once_has_each_answer_acted_on(
        memory_app: LoadedApp, register_plugin: Callable[[Any, str], None]) -> None:
    """Forty memories, one shared "distinct" object for most of them, sure contradictions of two and an
    unsure reinforcement of two: both contradicted memories are weakened, and the new memory is
    stored beside the most trusted unsure one, flagged, naming it."""
    memories = [memory_app.remember(f"Fact number {index} about the nas", service="nas",
                                    confidence=round(0.9 - index * 0.01, 2)) for index in range(40)]
    contradicted = {memories[5].observation, memories[30].observation}
    unsure = {memories[12].observation, memories[20].observation}
    shared = Answer("distinct", 0.95, "unrelated")

    class GroupJudge:
        @hookimpl
        def judge_memory_relation(self, existing: str) -> Answer:
            if existing in contradicted:
                return Answer("contradict", 0.95, "says otherwise")
            if existing in unsure:
                return Answer("reinforce", 0.5, "maybe the same")
            return shared

    register_plugin(GroupJudge(), "group-judge")
    result = memory_app.handle(memory_app.session(), "[MEMORY:timing:nas] A new fact about the nas")

    assert result.action == "created"  # type: ignore[attr-defined]
    assert result.unsure_of.id == memories[12].id  # type: ignore[attr-defined]
    assert [memory.id for memory in result.contradicted] == [memories[5].id, memories[30].id]  # type: ignore[attr-defined]
    confidences = {memory.id: memory.confidence for memory in Memory.select()}
    weakened = {memory.id for memory in memories if confidences[memory.id] < memory.confidence}
    assert weakened == {memories[5].id, memories[30].id}
    [created] = history_of(result.memory.id)  # type: ignore[attr-defined]
    assert created.needs_review and created.related_memory_id == memories[12].id
    assert (created.decided_by, created.certainty, created.reason) == ("group-judge judge", 0.5, "maybe the same")
