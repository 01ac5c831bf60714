"""SPEC-0015 "Memory Reinforcement", "Memory Contradiction" and "Confidence Scoring": what a new marker
does to the memories of the same service and category."""

from __future__ import annotations

import pytest
from claudeops_memory import repository
from claudeops_memory.confidence import clamp_confidence, confidence_sql
from claudeops_memory.models import Memory
from memory_helpers import LoadedApp

from claudeops import hookimpl
from claudeops.store import db


def _memories(**filters: object) -> list[repository.MemoryRecord]:
    return sorted(repository.list_memories(**filters), key=lambda memory: memory.id)  # type: ignore[arg-type]


def test_duplicate_memory_reinforces_existing(memory_app: LoadedApp) -> None:
    existing = memory_app.remember("Takes 60s to start after restart", service="jellyfin", days_ago=3)
    memory_app.emit(memory_app.session(), "[MEMORY:timing:jellyfin] Takes about 60 seconds to start after a restart")

    [memory] = _memories()
    assert memory.id == existing.id
    assert memory.confidence == 0.8
    assert memory.updated_at == "2026-03-01T12:00:00Z" != existing.updated_at
    assert memory.observation == "Takes 60s to start after restart"


def test_different_category_creates_new_memory(memory_app: LoadedApp) -> None:
    memory_app.remember("Takes 60s to start", service="jellyfin", category="timing")
    memory_app.emit(memory_app.session(), "[MEMORY:behavior:jellyfin] Sometimes crashes on first start")

    assert [(memory.category, memory.confidence) for memory in _memories()] == [("timing", 0.7), ("behavior", 0.7)]


def test_contradicting_memory_reduces_confidence(memory_app: LoadedApp) -> None:
    existing = memory_app.remember("Must be started after WireGuard", service="caddy", category="dependency",
                                   confidence=0.8, days_ago=5)
    memory_app.emit(memory_app.session(), "[MEMORY:dependency:caddy] Can be started independently of WireGuard")

    old, new = _memories()
    assert (old.id, old.confidence, old.active, old.updated_at) == (existing.id, 0.6, True, existing.updated_at)
    assert (new.observation, new.confidence, new.active) == ("Can be started independently of WireGuard", 0.7, True)


def test_contradiction_deactivates_low_confidence_memory(memory_app: LoadedApp) -> None:
    memory_app.remember("Must be started after WireGuard", service="caddy", category="dependency", confidence=0.4)
    memory_app.emit(memory_app.session(), "[MEMORY:dependency:caddy] Can be started independently of WireGuard")

    old, new = _memories()
    assert (old.confidence, old.active) == (0.2, False)
    assert (new.confidence, new.active) == (0.7, True)


def test_contradiction_is_recorded_as_a_warning_event(memory_app: LoadedApp) -> None:
    events = []

    class Recorder:
        @hookimpl
        def record_event(self, event):
            events.append(event)

    memory_app.app.pm.register(Recorder(), name="recorder")
    memory_app.remember("Must be started after WireGuard", service="caddy", category="dependency", confidence=0.4)
    memory_app.emit(memory_app.session(), "[MEMORY:dependency:caddy] Can be started independently of WireGuard")

    [event] = events
    assert (event.level, event.service) == ("warning", "caddy")
    assert "contradicted" in event.message and "deactivated" in event.message


def test_distinct_fact_in_same_service_and_category_is_a_new_memory(memory_app: LoadedApp) -> None:
    existing = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    memory_app.emit(memory_app.session(), "[MEMORY:timing:jellyfin] Library scans run for about two hours at 3am")

    old, new = _memories()
    assert (old.id, old.confidence, old.updated_at) == (existing.id, 0.7, existing.updated_at)
    assert (new.observation, new.confidence) == ("Library scans run for about two hours at 3am", 0.7)


def test_general_memory_only_matches_general_memories(memory_app: LoadedApp) -> None:
    memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    memory_app.emit(memory_app.session(), "[MEMORY:timing] Takes 60s to start after restart")
    memory_app.emit(memory_app.session(), "[MEMORY:timing] Takes 60s to start after restart")

    assert [(memory.service, memory.confidence) for memory in _memories()] == [("jellyfin", 0.7), (None, 0.8)]


def test_reinforcement_is_capped_at_one(memory_app: LoadedApp) -> None:
    memory_app.remember("Takes 60s to start after restart", service="jellyfin", confidence=0.95)
    for _ in range(3):
        memory_app.emit(memory_app.session(), "[MEMORY:timing:jellyfin] Takes 60s to start after restart")
    assert [memory.confidence for memory in _memories()] == [1.0]


def test_exact_duplicate_of_an_inactive_memory_reactivates_it(memory_app: LoadedApp) -> None:
    forgotten = memory_app.remember("Takes 60s to start after restart", service="jellyfin", confidence=0.2,
                                    days_ago=90, active=False)
    memory_app.emit(memory_app.session(), "[MEMORY:timing:jellyfin] takes 60s to start after restart")

    [memory] = _memories()
    assert (memory.id, memory.active, memory.confidence) == (forgotten.id, True, 0.7)
    assert memory.updated_at == "2026-03-01T12:00:00Z"
    assert memory.created_at == forgotten.created_at


def test_reinforcing_one_memory_still_weakens_the_memories_it_contradicts(memory_app: LoadedApp) -> None:
    must = memory_app.remember("Must be started after WireGuard", service="caddy", category="dependency",
                               confidence=0.8)
    can = memory_app.remember("Can be started independently of WireGuard", service="caddy", category="dependency")
    memory_app.emit(memory_app.session(), "[MEMORY:dependency:caddy] Can be started independently of WireGuard")

    assert {memory.id: memory.confidence for memory in _memories()} == {must.id: 0.6, can.id: 0.8}


def test_a_plugged_in_judge_is_asked_first(memory_app: LoadedApp) -> None:
    questions = []

    class StrictJudge:
        @hookimpl
        def judge_memory_relation(self, existing, new, service, category):
            questions.append((existing, new, service, category))
            return "distinct"

    memory_app.app.pm.register(StrictJudge(), name="strict-judge")
    memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    memory_app.emit(memory_app.session(), "[MEMORY:timing:jellyfin] Takes about 60 seconds to start after a restart")

    assert questions == [("Takes 60s to start after restart", "Takes about 60 seconds to start after a restart",
                          "jellyfin", "timing")]
    assert len(_memories()) == 2


def test_a_judge_that_defers_falls_back_to_the_default(memory_app: LoadedApp) -> None:
    class UndecidedJudge:
        @hookimpl
        def judge_memory_relation(self, existing, new):
            return None

    memory_app.app.pm.register(UndecidedJudge(), name="undecided-judge")
    memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    memory_app.emit(memory_app.session(), "[MEMORY:timing:jellyfin] Takes about 60 seconds to start after a restart")

    assert [memory.confidence for memory in _memories()] == [0.8]


def test_default_confidence_on_creation(memory_app: LoadedApp) -> None:
    memory_app.emit(memory_app.session(), "[MEMORY:maintenance:postgres] Needs manual VACUUM FULL weekly")
    assert [memory.confidence for memory in _memories()] == [0.7]


def test_confidence_arithmetic_stays_on_the_hundredths_grid(memory_app: LoadedApp) -> None:
    memory_app.remember("Must be started after WireGuard", service="caddy", category="dependency")
    session = memory_app.session()
    memory_app.emit(session, "[MEMORY:dependency:caddy] Can be started independently of WireGuard")
    assert _memories()[0].confidence == 0.5
    memory_app.emit(session, "[MEMORY:dependency:caddy] WireGuard does not need to be up before caddy starts")

    first = _memories()[0]
    assert (first.confidence, first.active) == (0.3, True)  # 0.7 - 0.2 - 0.2, not 0.29999…


def test_reinforcing_0_7_gives_exactly_0_8(memory_app: LoadedApp) -> None:
    memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    memory_app.emit(memory_app.session(), "[MEMORY:timing:jellyfin] Takes 60s to start after restart")
    assert db.execute_sql("SELECT confidence FROM memories").fetchone()[0] == 0.8


@pytest.mark.parametrize("delta", [0.1, -0.1, 0.2, -0.2, 0.05, -0.05, 0.3, -0.3])
def test_sql_and_python_clamping_agree_on_every_stored_value(memory_app: LoadedApp, delta: float) -> None:
    values = [round(hundredths / 100, 2) for hundredths in range(101)]
    for value in values:
        memory_app.remember("x", confidence=value)
    Memory.update({Memory.confidence: confidence_sql(Memory.confidence + delta)}).execute()

    stored = [confidence for (confidence,) in Memory.select(Memory.confidence).order_by(Memory.id).tuples()]
    assert stored == [clamp_confidence(value + delta) for value in values]


def test_memory_restated_in_the_same_session_is_reinforced_once(memory_app: LoadedApp) -> None:
    existing = memory_app.remember("Takes 60s to start after restart", service="jellyfin", days_ago=3)
    session = memory_app.session()
    memory_app.emit(session, "[MEMORY:timing:jellyfin] Takes about 60 seconds to start after a restart")
    restated = memory_app.handle(session, "[MEMORY:timing:jellyfin] Takes 60s to start after restart")

    [memory] = _memories()
    assert (memory.id, memory.confidence) == (existing.id, 0.8)
    assert restated is False  # nothing written, so the session does not count it as recorded


def test_memory_created_and_restated_in_one_session_stays_at_default_confidence(memory_app: LoadedApp) -> None:
    session = memory_app.session()
    memory_app.emit(session, "[MEMORY:maintenance:postgres] Needs manual VACUUM FULL weekly")
    memory_app.emit(session, "In short: [MEMORY:maintenance:postgres] Needs manual VACUUM FULL weekly")

    assert [memory.confidence for memory in _memories()] == [0.7]


def test_next_session_reinforces_what_an_earlier_session_recorded(memory_app: LoadedApp) -> None:
    first = memory_app.session()
    memory_app.emit(first, "[MEMORY:maintenance:postgres] Needs manual VACUUM FULL weekly")
    memory_app.emit(memory_app.session(), "[MEMORY:maintenance:postgres] Needs manual VACUUM FULL weekly")

    assert [memory.confidence for memory in _memories()] == [0.8]
