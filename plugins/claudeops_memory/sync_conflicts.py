"""Sync conflicts: a memory changed both here and in the imported files since they last agreed.

An import never overwrites such a memory. It keeps the incoming version (``memory_sync_conflicts``,
one open conflict per uid, refreshed when a later import brings yet another version) and the
review queue lists it as a ``sync conflict`` until an operator decides, once:

=============  ==================================================================================
take theirs    the memory becomes the incoming version, with the history entries it lacks (an
               ``imported`` entry by ``review``)
keep ours      ours stays as it is (a ``reviewed`` entry)
keep both      ours stays, and theirs is added as a memory of its own with a new uid (``imported``
               by ``review`` on it, ``reviewed`` on ours, each naming the other)
=============  ==================================================================================

Each decision makes the incoming version the uid's sync base (:mod:`claudeops_memory.sync_state`),
so importing the same files again raises no new conflict, and what stands here goes out with the
next export.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass, replace

from claudeops import db, is_row_id, now_timestamp
from claudeops_memory import history, import_apply, sync_state, upsert_store
from claudeops_memory.export import jsonl_line
from claudeops_memory.history import REVIEW, Decision
from claudeops_memory.import_files import Incoming
from claudeops_memory.models import MemoryRecord, new_uid
from claudeops_memory.portable import local_sessions, portable, read_portable, session_here
from claudeops_memory.sync_state import SyncConflict

RESOLUTIONS = ("take theirs", "keep ours", "keep both")


@dataclass(frozen=True)
class Conflict:
    """An open conflict: our memory as it stands, and theirs as it would be stored here (under our id)."""

    id: int
    source: str
    found_at: str
    ours: MemoryRecord
    theirs: MemoryRecord
    incoming: Incoming


def waiting_versions(uids: Collection[str]) -> dict[str, str]:
    """The state hash of the version waiting in the review queue, per uid that has an open conflict."""
    return sync_state.lookup("memory_sync_conflicts", "uid", "theirs_hash", uids, "resolved_at IS NULL")


def record_conflict(memory_id: int, incoming: Incoming, now: str) -> None:
    """Keep the incoming version of ``memory_id`` for review: a new open conflict, or the open one refreshed."""
    fields = {"memory_id": memory_id, "source": incoming.source, "found_at": now,
              "theirs": jsonl_line(incoming.memory), "theirs_hash": incoming.memory.state_hash}
    updated = SyncConflict.update(**fields).where(SyncConflict.uid == incoming.memory.uid,
                                                  SyncConflict.resolved_at.is_null()).execute()
    if not updated:
        SyncConflict.insert(uid=incoming.memory.uid, **fields).execute()


def open_conflicts() -> list[Conflict]:
    """Every open conflict whose memory still exists, newest first."""
    rows = (SyncConflict.select().where(SyncConflict.resolved_at.is_null())
            .order_by(SyncConflict.found_at.desc(), SyncConflict.id.desc()))
    sessions = local_sessions()
    conflicts = []
    for row in rows:
        ours = upsert_store.get(row.memory_id)
        if ours is not None:
            conflicts.append(_conflict(row, ours, sessions))
    return conflicts


def _conflict(row: SyncConflict, ours: MemoryRecord, sessions: dict[int, str]) -> Conflict:
    stored = json.loads(row.theirs)
    incoming = Incoming(row.source, portable(stored["memory"], stored["history"]))
    memory = stored["memory"]
    provenance = memory["provenance"]
    here = session_here(provenance["session_id"], provenance["session_started_at"], sessions)
    theirs = replace(ours, service=memory["service"], category=memory["category"], observation=memory["observation"],
                     confidence=memory["confidence"], active=memory["active"], created_at=memory["created_at"],
                     updated_at=memory["updated_at"], session_id=provenance["session_id"] if here else None,
                     tier=provenance["tier"], pinned_at=memory.get("pinned_at"), unpinned_at=memory.get("unpinned_at"))
    return Conflict(row.id, row.source, row.found_at, ours, theirs, incoming)


def _open(conflict_id: int) -> Conflict:
    row = SyncConflict.get_or_none(SyncConflict.id == conflict_id) if is_row_id(conflict_id) else None
    if row is None:
        raise KeyError(f"no sync conflict with id {conflict_id}")
    if row.resolved_at is not None:
        raise ValueError(f"sync conflict #{conflict_id} was resolved already ({row.resolution}, {row.resolved_at})")
    ours = upsert_store.get(row.memory_id, lock=True)
    if ours is None:
        raise ValueError(f"memory #{row.memory_id} of sync conflict #{conflict_id} no longer exists")
    return _conflict(row, ours, local_sessions())


def resolve(conflict_id: int, resolution: str, *, now: str | None = None) -> MemoryRecord:
    """Decide conflict ``conflict_id`` (see the module); returns the memory that now stands for theirs
    (ours updated, ours kept, or the new memory). ``KeyError`` for an unknown conflict, ``ValueError``
    (one line) for an unknown resolution or a conflict that cannot be decided any more."""
    if resolution not in RESOLUTIONS:
        raise ValueError(f"unknown resolution {resolution!r} (expected one of: {', '.join(RESOLUTIONS)})")
    stamp = now or now_timestamp()
    with db.atomic():
        conflict = _open(conflict_id)
        about = f"sync conflict #{conflict.id} with {conflict.source}"
        theirs = conflict.incoming.memory
        if resolution == "take theirs":
            local = next(read_portable([theirs.uid]))
            standing = import_apply.replace_memory(conflict.ours.id, conflict.incoming, local, local_sessions(), stamp,
                                                   actor=REVIEW, decision=Decision(resolution, reason=f"{about}: "
                                                                                   "their version taken"))
        elif resolution == "keep ours":
            standing = conflict.ours
            history.record_change("reviewed", REVIEW, stamp, before=standing, after=standing,
                                  decision=Decision(resolution, reason=f"{about}: this version kept"))
        else:
            standing = _keep_both(conflict, about, stamp)
        sync_state.record_synced([(theirs.uid, theirs.state_hash)], stamp)
        SyncConflict.update(resolved_at=stamp, resolution=resolution).where(SyncConflict.id == conflict.id).execute()
        return standing


def _keep_both(conflict: Conflict, about: str, now: str) -> MemoryRecord:
    """Theirs becomes a memory of its own (a new uid, no history of its own yet); ours stays."""
    theirs = conflict.incoming.memory
    copy = Incoming(conflict.source, portable({**theirs.memory, "uid": new_uid()}, None))
    decision = Decision("keep both", reason=f"{about}: their version of memory #{conflict.ours.id} kept as a "
                                            "memory of its own")
    new_id = import_apply.add_memories([copy], local_sessions(), now, actor=REVIEW, decision=decision,
                                       related=conflict.ours.id)[copy.memory.uid]
    history.record_change("reviewed", REVIEW, now, before=conflict.ours, after=conflict.ours, related=new_id,
                          decision=Decision("keep both", reason=f"{about}: this version kept, theirs added as "
                                                                f"memory #{new_id}"))
    added = upsert_store.get(new_id)
    assert added is not None
    return added
