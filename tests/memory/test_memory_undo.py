"""Issue 14 item 7: any change can be reverted from its history entry, to the exact previous row; a
deleted memory is restorable until purged; the revert itself is a history entry."""

from __future__ import annotations

import pytest
from claudeops_memory import repository
from claudeops_memory.decay import decay_stale_memories
from claudeops_memory.history import memory_history
from claudeops_memory.ledger import injection_counts
from claudeops_memory.models import MemoryDecay
from claudeops_memory.undo import purge_memory, restore_memory, revert_change
from memory_helpers import LoadedApp


def _last_id(memory_id: int) -> int:
    return memory_history(memory_id)[-1].id


def _decay_row(memory_id: int) -> tuple[str, int] | None:
    return repository.decay_ledger_entry(memory_id)


def test_reverting_a_reinforcement_restores_the_exact_previous_row(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start after restart", service="jellyfin", days_ago=10)
    memory_app.emit(memory_app.started(), "[MEMORY:timing:jellyfin] Takes 60s to start after restart")
    assert repository.get_memory(memory.id).confidence == 0.8  # type: ignore[union-attr]

    reverted = revert_change(_last_id(memory.id), memory_app.settings)

    assert repository.get_memory(memory.id) == memory == reverted.memory
    entry = memory_history(memory.id)[-1]
    assert (entry.kind, entry.actor, entry.refers_to, entry.old_confidence, entry.new_confidence) == (
        "reverted", "operator", memory_history(memory.id)[-2].id, 0.8, 0.7)


def test_reverting_a_judged_contradiction_restores_the_memory_and_keeps_the_new_fact(memory_app: LoadedApp) -> None:
    must = memory_app.remember("Must be started after WireGuard", service="caddy", category="dependency",
                               confidence=0.4)
    memory_app.emit(memory_app.started(), "[MEMORY:dependency:caddy] Can be started independently of WireGuard")
    assert repository.get_memory(must.id).active is False  # type: ignore[union-attr]

    revert_change(_last_id(must.id), memory_app.settings)

    assert repository.get_memory(must.id) == must
    assert repository.count_memories() == 2


def test_reverting_a_replacement_restores_the_memory_and_removes_its_successor(memory_app: LoadedApp) -> None:
    old = memory_app.remember("Takes 60s to start after restart", service="jellyfin", confidence=0.4)
    memory_app.emit(memory_app.started(), f"[MEMORY:timing:jellyfin] Takes 3 minutes to start (replaces #{old.id})")
    [successor] = [memory for memory in repository.list_memories() if memory.id != old.id]

    reverted = revert_change(_last_id(old.id), memory_app.settings)

    assert reverted.removed == (successor.id,)
    assert repository.list_memories() == [old]
    assert memory_history(successor.id)[-1].kind == "reverted"
    assert restore_memory(successor.id) == successor  # removed, not lost


def test_a_replacement_whose_successor_changed_since_is_not_reverted(memory_app: LoadedApp) -> None:
    old = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    memory_app.emit(memory_app.started(), f"[MEMORY:timing:jellyfin] Takes 3 minutes to start (replaces #{old.id})")
    [successor] = [memory for memory in repository.list_memories() if memory.id != old.id]
    memory_app.emit(memory_app.started(), f"[MEMORY:timing:jellyfin] Still 3 minutes (confirms #{successor.id})")
    replaced = memory_history(old.id)[-1].id
    before = repository.list_memories()

    with pytest.raises(ValueError, match=f"memory #{successor.id}, which replaced memory #{old.id}, changed since"):
        revert_change(replaced, memory_app.settings)
    assert repository.list_memories() == before


def test_reverting_a_decay_step_restores_the_row_and_forgives_those_weeks(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Stale fact", days_ago=44)
    decay_stale_memories(memory_app.clock.stamp())
    decayed = repository.get_memory(memory.id)
    assert decayed.confidence == 0.5  # type: ignore[union-attr]

    revert_change(_last_id(memory.id), memory_app.settings)

    assert repository.get_memory(memory.id) == memory
    assert decay_stale_memories(memory_app.clock.stamp()).decayed == 0  # the two weeks are not taken again
    memory_app.clock.advance(days=7)
    decay_stale_memories(memory_app.clock.stamp())
    assert repository.get_memory(memory.id).confidence == 0.6  # type: ignore[union-attr]  # the next week is


def test_reverting_operator_edits_restores_the_exact_previous_row(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Needs VACUUM weekly", service="postgres", category="maintenance", days_ago=5)
    repository.update_memory(memory.id, observation="Needs VACUUM FULL weekly", confidence=0.2)

    revert_change(_last_id(memory.id), memory_app.settings)

    assert repository.get_memory(memory.id) == memory


def test_reverting_a_creation_removes_the_memory_until_restored(memory_app: LoadedApp) -> None:
    memory_app.emit(memory_app.started(), "[MEMORY:timing:jellyfin] Takes 60s to start after restart")
    [memory] = repository.list_memories()

    revert_change(_last_id(memory.id), memory_app.settings)

    assert repository.list_memories() == []
    assert restore_memory(memory.id) == memory == repository.get_memory(memory.id)
    assert [entry.kind for entry in memory_history(memory.id)] == ["created", "reverted", "restored"]


def test_a_deleted_memory_is_restored_exactly_with_the_decay_it_had(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Stale fact", days_ago=44)
    decay_stale_memories(memory_app.clock.stamp())
    before, ledger_row = repository.get_memory(memory.id), _decay_row(memory.id)
    repository.delete_memories([memory.id])
    assert repository.get_memory(memory.id) is None and _decay_row(memory.id) is None

    restored = restore_memory(memory.id)

    assert restored == before == repository.get_memory(memory.id)
    assert _decay_row(memory.id) == ledger_row
    entry = memory_history(memory.id)[-1]
    assert (entry.kind, entry.refers_to) == ("restored", memory_history(memory.id)[-2].id)


def test_reverting_a_deletion_restores_too(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("A fact")
    repository.delete_memories([memory.id])

    revert_change(_last_id(memory.id), memory_app.settings)

    assert repository.get_memory(memory.id) == memory


def test_only_the_latest_change_of_a_memory_is_reverted(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    memory_app.emit(memory_app.started(), "[MEMORY:timing:jellyfin] Takes 60s to start after restart")
    reinforced = _last_id(memory.id)
    repository.update_memory(memory.id, confidence=0.95)
    edited = _last_id(memory.id)

    with pytest.raises(ValueError, match=f"revert change #{edited} \\(edited\\) first"):
        revert_change(reinforced, memory_app.settings)
    revert_change(edited, memory_app.settings)
    revert_change(reinforced, memory_app.settings)
    assert repository.get_memory(memory.id) == memory


def test_a_change_is_reverted_once(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("A fact")
    repository.update_memory(memory.id, confidence=0.9)
    edited = _last_id(memory.id)
    revert_change(edited, memory_app.settings)

    with pytest.raises(ValueError, match="already reverted"):
        revert_change(edited, memory_app.settings)
    with pytest.raises(ValueError, match="is not a change to undo"):
        revert_change(_last_id(memory.id), memory_app.settings)
    with pytest.raises(KeyError, match="no memory change with id 9999"):
        revert_change(9999, memory_app.settings)


def test_purge_removes_the_memory_its_history_and_its_ledger_rows_for_good(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Should never have existed", service="nas")
    memory_app.started()
    repository.delete_memories([memory.id])

    erased = purge_memory(memory.id)

    assert erased == 2 and memory_history(memory.id) == []
    assert injection_counts([memory.id])[memory.id].sessions == 0
    assert MemoryDecay.select().where(MemoryDecay.memory_id == memory.id).count() == 0
    with pytest.raises(KeyError, match="never stored, or purged"):
        restore_memory(memory.id)
    with pytest.raises(KeyError):
        purge_memory(memory.id)

