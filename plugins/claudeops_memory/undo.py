"""Undo: revert a change from its history entry, restore a deleted memory, purge one for good.

A change is reverted by putting back the state its entry recorded as *before* — confidence,
state, text and last-reinforced time — and the revert is itself an entry (``reverted``, referring
to the change), so nothing is lost and the revert can be seen and reviewed. Only a memory's
latest change can be reverted: restoring an older state would silently drop the changes made
after it, so the operator reverts those first (the refusal names them).

What reverting means for each kind:

* ``reinforced``, ``contradicted``, ``decayed``, ``edited``, ``deactivated``, ``reactivated``:
  the memory's previous values come back. A judged contradiction also stored the new
  observation as a memory; that memory stays — it is a fact of its own, with its own entry.
  Reverting a decay step also forgives the weeks it covered (they are not decayed again).
* ``replaced`` (the agent's ``(replaces #N)``): N's previous values come back *and* the
  successor the replacement stored is removed (restorable from its history like any deleted
  memory): undoing "this replaces N" means N stands and the replacement goes. The successor
  must not have changed since, or the revert is refused.
* ``merged``: both memories of the merge get their previous values back.
* ``created``, and ``imported`` when the import added the memory: the memory is removed (restorable);
  an ``imported`` that updated a memory puts its previous values back.
* ``deleted``: the memory is restored, exactly as it was (same id, same columns, the decay
  it had already received).

``purge`` is the path for a memory that should never have existed: its row, its whole history
and its place in the injection ledgers are deleted for good. It is one of the two documented
exceptions to the append-only history (the other is secret redaction).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from claudeops import db, is_row_id, now_timestamp
from claudeops_memory import history, ledger, upsert_store
from claudeops_memory.decay import weeks_due
from claudeops_memory.decay_outlook import decay_base
from claudeops_memory.decay_policy import DecayPolicy
from claudeops_memory.history import OPERATOR, Actor, Decision, HistoryEntry
from claudeops_memory.models import Memory, MemoryDecay, MemoryRecord, new_uid
from claudeops_memory.repository import decay_ledger_entry
from claudeops_memory.settings import MemorySettings

REVERTIBLE = frozenset({"created", "reinforced", "contradicted", "replaced", "decayed", "edited", "deactivated",
                        "reactivated", "merged", "deleted", "imported"})
"""Kinds of change a revert undoes; reverts, restores, reviews and redaction notes are not undone."""


@dataclass(frozen=True)
class Reverted:
    """What a revert did: its entry, the memory as it now stands (None when removed), and every
    memory it removed (a created memory, a replacement's successor)."""

    entry: HistoryEntry
    memory: MemoryRecord | None
    removed: tuple[int, ...] = ()


def _change(change_id: int) -> HistoryEntry:
    entry = history.get_change(change_id)
    if entry is None:
        raise KeyError(f"no memory change with id {change_id}")
    return entry


def _check_revertible(entry: HistoryEntry) -> None:
    """Refuse a change that changed nothing, was reverted already, or is not its memory's latest."""
    if entry.kind not in REVERTIBLE:
        raise ValueError(f"change #{entry.id} ({entry.kind}) is not a change to undo")
    standing = history.standing_changes(entry.memory_id)
    if entry.id in standing.undone_by:
        raise ValueError(f"change #{entry.id} was already reverted (change #{standing.undone_by[entry.id]})")
    latest = standing.latest
    if latest is not None and latest.id != entry.id:
        raise ValueError(f"memory #{entry.memory_id} changed after change #{entry.id}: revert change "
                         f"#{latest.id} ({latest.kind}) first")


def revert_change(change_id: int, settings: MemorySettings, *, actor: Actor = OPERATOR,
                  now: str | None = None) -> Reverted:
    """Undo change ``change_id`` (see the module docstring); ``KeyError`` for an unknown change,
    ``ValueError`` (one line) when it cannot be undone."""
    stamp = now or now_timestamp()
    with db.atomic():
        entry = _change(change_id)
        _check_revertible(entry)
        if entry.kind == "deleted":
            return _restore(entry, actor, stamp)
        if entry.kind == "created" or (entry.kind == "imported" and entry.old_confidence is None):
            removed = _remove(entry.memory_id, entry, actor, stamp)
            return Reverted(removed, None, (entry.memory_id,))
        if entry.kind == "merged":
            return _revert_merge(entry, actor, stamp)
        reverted = _put_back(entry, actor, stamp)
        if entry.kind == "decayed" and reverted.memory is not None:
            _forgive_decay(reverted.memory, entry.changed_at, settings)
        if entry.kind != "replaced" or entry.related_memory_id is None:
            return reverted
        return replace(reverted, removed=_remove_successor(entry, actor, stamp))


def _put_back(entry: HistoryEntry, actor: Actor, now: str) -> Reverted:
    """Give the memory of ``entry`` the values it had before that change; one ``reverted`` entry."""
    current = upsert_store.get(entry.memory_id, lock=True)
    if current is None:
        raise ValueError(f"memory #{entry.memory_id} no longer exists; restore it first")
    previous = replace(current, confidence=current.confidence if entry.old_confidence is None else entry.old_confidence,
                       active=current.active if entry.old_active is None else entry.old_active,
                       observation=entry.old_observation or current.observation,
                       updated_at=entry.old_updated_at or current.updated_at)
    Memory.update(confidence=previous.confidence, active=previous.active, observation=previous.observation,
                  updated_at=previous.updated_at).where(Memory.id == previous.id).execute()
    revert_id = history.record_change("reverted", actor, now, before=current, after=previous,
                                      decision=_undoing(entry), refers_to=entry.id, related=entry.related_memory_id)
    return Reverted(_entry(revert_id), previous)


def _forgive_decay(memory: MemoryRecord, decayed_at: str, settings: MemorySettings) -> None:
    """Mark the weeks of staleness up to the undone decay as applied, so the next decay run does not
    take them again; the weeks after it decay as usual."""
    rule = DecayPolicy.of(settings).of_category(memory.category)
    weeks = weeks_due(memory.updated_at, decayed_at, rule.grace_days, rule.per_week, memory.unpinned_at)
    base = decay_base(memory.updated_at, memory.unpinned_at)
    (MemoryDecay.insert(memory_id=memory.id, base_updated_at=base, weeks_applied=weeks)
     .on_conflict(conflict_target=[MemoryDecay.memory_id],
                  preserve=[MemoryDecay.base_updated_at, MemoryDecay.weeks_applied]).execute())


def _remove_successor(entry: HistoryEntry, actor: Actor, now: str) -> tuple[int, ...]:
    """Remove the memory a replacement stored, when it is still as the replacement left it."""
    successor_id = entry.related_memory_id
    assert successor_id is not None
    latest = history.latest_state_change(successor_id)
    if latest is None or latest.kind == "deleted":
        return ()  # already gone
    if latest.related_memory_id != entry.memory_id or latest.changed_at != entry.changed_at:
        raise ValueError(f"memory #{successor_id}, which replaced memory #{entry.memory_id}, changed since: revert "
                         f"change #{latest.id} ({latest.kind}) first, or delete it")
    if latest.kind == "reactivated":  # the replacement switched an old memory back on: switch it off again
        _put_back(latest, actor, now)
        return ()
    _remove(successor_id, latest, actor, now)
    return (successor_id,)


def _revert_merge(entry: HistoryEntry, actor: Actor, now: str) -> Reverted:
    """Both sides of a merge get their previous values back."""
    partner_id = entry.related_memory_id
    assert partner_id is not None
    partner = history.latest_state_change(partner_id)
    if partner is None or partner.kind != "merged" or partner.related_memory_id != entry.memory_id:
        raise ValueError(f"memory #{partner_id}, merged with memory #{entry.memory_id}, changed since: revert "
                         f"its latest change first")
    _put_back(partner, actor, now)
    return _put_back(entry, actor, now)


def _remove(memory_id: int, entry: HistoryEntry, actor: Actor, now: str) -> HistoryEntry:
    """Delete a memory as a revert of ``entry``, keeping its whole row in the ``reverted`` entry."""
    memory = upsert_store.get(memory_id, lock=True)
    if memory is None:
        raise ValueError(f"memory #{memory_id} no longer exists")
    snapshot = history.removal_snapshot(memory, decay_ledger_entry(memory_id))
    revert_id = history.record_change("reverted", actor, now, before=memory, decision=_undoing(entry),
                                      refers_to=entry.id, snapshot=snapshot, related=entry.related_memory_id)
    Memory.delete().where(Memory.id == memory_id).execute()
    return _entry(revert_id)


def restore_memory(memory_id: int, *, actor: Actor = OPERATOR, now: str | None = None) -> MemoryRecord:
    """Bring back a deleted (or reverted-away) memory exactly as it was, from its history."""
    stamp = now or now_timestamp()
    with db.atomic():
        if upsert_store.get(memory_id) is not None:
            raise ValueError(f"memory #{memory_id} exists; there is nothing to restore")
        removal = next((entry for entry in reversed(history.memory_history(memory_id)) if entry.snapshot), None)
        if removal is None:
            raise KeyError(f"no deleted memory with id {memory_id} in the history (never stored, or purged)")
        restored = _restore(removal, actor, stamp)
        assert restored.memory is not None
        return restored.memory


def _restore(entry: HistoryEntry, actor: Actor, now: str) -> Reverted:
    assert entry.snapshot is not None
    memory, decay = history.read_snapshot(entry.snapshot)
    memory = replace(memory, uid=_free_uid(memory))
    Memory.insert(**memory.as_row()).execute()
    if decay is not None:
        MemoryDecay.insert(memory_id=memory.id, base_updated_at=decay[0], weeks_applied=decay[1]).execute()
    restore_id = history.record_change("restored", actor, now, after=memory, refers_to=entry.id,
                                       decision=Decision("undo", reason=f"restored from change #{entry.id} "
                                                                        f"({entry.kind})"))
    return Reverted(_entry(restore_id), memory)


def _free_uid(memory: MemoryRecord) -> str:
    """The uid the memory had, or a new one for a row deleted before memories had uids; refused (one line)
    when another memory holds it now (the same memory imported again while this copy was deleted)."""
    if memory.uid is None:
        return new_uid()
    holder = Memory.get_or_none(Memory.uid == memory.uid)
    if holder is not None:
        raise ValueError(f"memory #{memory.id} cannot be restored: memory #{holder.id} holds its uid "
                         f"{memory.uid} (imported since it was deleted)")
    return memory.uid


def purge_memory(memory_id: int) -> int:
    """Delete a memory, its whole history and its ledger rows for good; returns the history entries erased.

    ``KeyError`` when neither the memory nor any history of it exists.
    """
    if not is_row_id(memory_id):
        raise KeyError(f"no memory with id {memory_id}, stored or in the history")
    with db.atomic():
        existed = Memory.delete().where(Memory.id == memory_id).execute()
        erased = history.purge_history(memory_id)
        if not existed and not erased:
            raise KeyError(f"no memory with id {memory_id}, stored or in the history")
        ledger.forget_memory(memory_id)
        return erased


def _undoing(entry: HistoryEntry) -> Decision:
    return Decision("undo", reason=f"undid change #{entry.id} ({entry.kind})")


def _entry(change_id: int) -> HistoryEntry:
    found = history.get_change(change_id)
    assert found is not None
    return found
