"""Evergreen memories: the operator pins a memory so staleness decay leaves it alone.

SPEC decay takes a 0.7 memory under the floor about 65 days after its last reinforcement, so a
fact that recurs quarterly or yearly (a certificate renewal, a backup window, a licence) is
forgotten before it matters again. Pinning is the operator's explicit override of SPEC decay for
one memory: a pinned memory does not decay, whatever its age, and everything else about it
(reinforcement, contradiction, edits, the threshold) is unchanged.

Unpinning gives the memory a fresh grace period from that moment: decay counts from the later
of its last reinforcement (``updated_at``, whose meaning stays SPEC's) and ``unpinned_at``, so a
memory pinned for a year is not hit with a year of decay the moment it is unpinned.

Pin and unpin are entries of the memory's history (``pinned``, ``unpinned``), with the operator as
actor. They are undone by unpinning and pinning again, not by a revert, so they do not stand in the
way of reverting the memory's changes (a pin changes no confidence, state or text).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from claudeops import db, now_timestamp, portable_sql
from claudeops_memory import history, upsert_store
from claudeops_memory.history import OPERATOR, Actor, Decision
from claudeops_memory.models import MemoryRecord

PINNED = Decision(reason="pinned: an evergreen memory, it does not decay")
UNPINNED = Decision(reason="unpinned: it decays again after a fresh grace period from now")


@dataclass(frozen=True)
class PinResult:
    """The memory after the request, and whether it changed (pinning a pinned memory changes nothing)."""

    memory: MemoryRecord
    changed: bool


def pin_memory(memory_id: int, *, now: str | None = None, actor: Actor = OPERATOR) -> PinResult:
    """Pin a memory (``KeyError`` when there is none); its history gets a ``pinned`` entry."""
    return _set_pin(memory_id, True, now or now_timestamp(), actor)


def unpin_memory(memory_id: int, *, now: str | None = None, actor: Actor = OPERATOR) -> PinResult:
    """Unpin a memory: it decays again, after a fresh grace period from ``now``; an ``unpinned`` entry."""
    return _set_pin(memory_id, False, now or now_timestamp(), actor)


def _set_pin(memory_id: int, pinned: bool, now: str, actor: Actor) -> PinResult:
    with db.atomic():
        before = upsert_store.get(memory_id, lock=True)
        if before is None:
            raise KeyError(f"no memory with id {memory_id}")
        if before.pinned == pinned:
            return PinResult(before, False)
        after = replace(before, pinned_at=now) if pinned else replace(before, pinned_at=None, unpinned_at=now)
        db.execute_sql(portable_sql("UPDATE memories SET pinned_at = ?, unpinned_at = ? WHERE id = ?"),
                       (after.pinned_at, after.unpinned_at, memory_id))
        history.record_change("pinned" if pinned else "unpinned", actor, now, before=before, after=after,
                              decision=PINNED if pinned else UNPINNED)
        return PinResult(after, True)
