"""The repository the dashboard builds on: SPEC-0015 "Dashboard Memory CRUD", "Confidence Scoring" and
"Inactive Memory Handling" scenarios, at the level of the functions the pages call."""

from __future__ import annotations

import pytest
from claudeops_memory import repository
from claudeops_memory.context import build_memory_context
from memory_helpers import LoadedApp

NOW = "2026-03-01T12:00:00Z"
LATER = "2026-03-02T08:30:00Z"


def test_create_memory_manually(memory_app: LoadedApp) -> None:
    memory = repository.create_memory(category="maintenance", service="postgres",
                                      observation="Needs manual VACUUM FULL weekly", confidence=0.9, now=NOW)
    assert repository.get_memory(memory.id) == repository.MemoryRecord(
        memory.id, "postgres", "maintenance", "Needs manual VACUUM FULL weekly", 0.9, True, NOW, NOW, None, 1,
        memory.uid)


def test_confidence_clamped_to_valid_range(memory_app: LoadedApp) -> None:
    memory = repository.create_memory(category="timing", observation="x", confidence=0.5)
    assert repository.update_memory(memory.id, confidence=1.5).confidence == 1.0
    assert repository.create_memory(category="timing", observation="y", confidence=-3).confidence == 0.0


def test_edit_memory_observation(memory_app: LoadedApp) -> None:
    memory = repository.create_memory(category="timing", observation="Takes 60s", confidence=0.8, now=NOW)
    edited = repository.update_memory(memory.id, observation="Takes 90s\nto start", now=LATER)
    assert (edited.observation, edited.confidence, edited.updated_at, edited.created_at) == (
        "Takes 90s to start", 0.8, LATER, NOW)


def test_adjust_memory_confidence(memory_app: LoadedApp) -> None:
    memory = repository.create_memory(category="timing", observation="x", now=NOW)
    adjusted = repository.update_memory(memory.id, confidence=0.95, now=LATER)
    assert (adjusted.confidence, adjusted.updated_at) == (0.95, LATER)


def test_delete_memory(memory_app: LoadedApp) -> None:
    memory = repository.create_memory(category="timing", observation="x")
    assert repository.delete_memories([memory.id]) == 1
    assert repository.get_memory(memory.id) is None


def test_bulk_delete(memory_app: LoadedApp) -> None:
    ids = [repository.create_memory(category="timing", observation=f"fact {n}").id for n in range(6)]
    assert repository.delete_memories(ids[:5]) == 5
    assert [memory.id for memory in repository.list_memories()] == ids[5:]


def test_bulk_adjust_confidence_clamps_and_switches_state(memory_app: LoadedApp) -> None:
    high = repository.create_memory(category="timing", observation="high", confidence=0.95)
    low = repository.create_memory(category="timing", observation="low", confidence=0.35)
    assert repository.adjust_confidence([high.id, low.id], -0.1, now=LATER) == 2
    after = {memory.id: memory for memory in repository.list_memories()}
    assert (after[high.id].confidence, after[high.id].active, after[high.id].updated_at) == (0.85, True, LATER)
    assert (after[low.id].confidence, after[low.id].active) == (0.25, False)
    repository.adjust_confidence([high.id, low.id], 0.2)
    assert {memory.confidence for memory in repository.list_memories(include_inactive=False)} == {1.0, 0.45}


def test_reactivate_an_inactive_memory(memory_app: LoadedApp) -> None:
    memory = repository.create_memory(category="timing", observation="Old fact", confidence=0.2)
    assert not memory.active and build_memory_context() == ""
    reactivated = repository.update_memory(memory.id, confidence=0.4)
    assert reactivated.active is True
    assert "Old fact" in build_memory_context()


def test_inactive_memory_can_still_be_edited_and_deleted(memory_app: LoadedApp) -> None:
    memory = repository.create_memory(category="timing", observation="Old fact", confidence=0.1)
    edited = repository.update_memory(memory.id, observation="Older fact")
    assert (edited.observation, edited.active) == ("Older fact", False)
    assert repository.delete_memories([memory.id]) == 1


def test_update_of_an_unknown_memory_is_a_key_error(memory_app: LoadedApp) -> None:
    with pytest.raises(KeyError, match="no memory with id 404"):
        repository.update_memory(404, confidence=0.5)


@pytest.mark.parametrize(("fields", "message"), [
    ({"category": "misc", "observation": "x"}, "unknown memory category 'misc'"),
    ({"category": "timing", "observation": " \n "}, "must not be empty"),
    ({"category": "timing", "observation": "x" * 501}, "the limit is 500"),
    ({"category": "timing", "observation": "x", "service": "bad name!"}, "invalid service name"),
])
def test_invalid_memory_is_refused_with_one_line(memory_app: LoadedApp, fields: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        repository.create_memory(**fields)
    assert repository.count_memories() == 0


def test_list_filters_order_and_paging(memory_app: LoadedApp) -> None:
    a = repository.create_memory(category="timing", observation="a", service="jellyfin", confidence=0.9)
    b = repository.create_memory(category="behavior", observation="b", service="jellyfin", confidence=0.5)
    c = repository.create_memory(category="timing", observation="c", confidence=0.5)
    d = repository.create_memory(category="timing", observation="d", service="caddy", confidence=0.1)

    assert [m.id for m in repository.list_memories()] == [a.id, c.id, b.id, d.id]
    assert [m.id for m in repository.list_memories(limit=2, offset=1)] == [c.id, b.id]
    assert [m.id for m in repository.list_memories(service="general")] == [c.id]
    assert [m.id for m in repository.list_memories(service="jellyfin", category="timing")] == [a.id]
    assert [m.id for m in repository.list_memories(only_inactive=True)] == [d.id]
    assert repository.count_memories(include_inactive=False) == 3
    assert repository.count_memories(service="jellyfin") == 2
    assert repository.list_services() == ["caddy", "jellyfin"]
    assert repository.memory_counts() == (3, 1)
    assert repository.CATEGORIES == ("timing", "dependency", "behavior", "remediation", "maintenance")
