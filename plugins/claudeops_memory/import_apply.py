"""The writes of an import: new memories in bulk, a memory replaced by its incoming version, history merged.

Callers hold the write transaction (the whole import is one). What a document says is stored as
it is — every column, the flag, the decay already applied, the history entries in order — except
what would name something else here: a session is kept only when it is the same session here (id
and start time), a related memory only when this database holds it; what is not kept is
remembered (:mod:`claudeops_memory.sync_state`), so exporting again gives the same documents.
Each memory an import adds or changes ends with an ``imported`` history entry (actor ``import``,
or ``review`` when an operator resolved a conflict), which names the file it came from.

New memories are written with one multi-row statement per table, not one round trip per row:
an import of 100,000 memories is a handful of statements (``bench/memory_transfer.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any

from claudeops import db, portable_sql
from claudeops_memory import history, sync_state, upsert_store
from claudeops_memory.flags import MemoryFlag
from claudeops_memory.history import IMPORT, Actor, Decision
from claudeops_memory.import_files import Incoming
from claudeops_memory.models import CHANGE_COLUMNS, Memory, MemoryDecay, MemoryRecord
from claudeops_memory.portable import Document, PortableMemory, entry_identity, local_snapshot, session_here

_MEMORY_COLUMNS = ("service", "category", "observation", "confidence", "active", "created_at", "updated_at",
                   "session_id", "tier", "uid")
_CHANGE_INSERTED = CHANGE_COLUMNS[1:]


def _insert(table: str, columns: Sequence[str], rows: Sequence[tuple[Any, ...]]) -> None:
    """``rows`` into ``table`` with ``executemany``, a chunk at a time."""
    statement = portable_sql(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})")
    cursor = db.cursor()
    for start in range(0, len(rows), sync_state.ROWS_PER_STATEMENT):
        cursor.executemany(statement, rows[start:start + sync_state.ROWS_PER_STATEMENT])


def _session(document: Document, sessions: dict[int, str]) -> tuple[int | None, tuple[int, str | None] | None]:
    """(the session id to store here, the session to remember because it is not here)."""
    session_id, started_at = document["session_id"], document["session_started_at"]
    if session_id is None:
        return None, None
    if session_here(session_id, started_at, sessions):
        return session_id, None
    return None, (session_id, started_at)


def imported_decision(incoming: Incoming) -> Decision:
    return Decision(reason=f"imported from {incoming.source}")


# --------------------------------------------------------------------------- new memories


def add_memories(items: Sequence[Incoming], sessions: dict[int, str], now: str, *, actor: Actor = IMPORT,
                 decision: Decision | None = None, related: int | None = None) -> dict[str, int]:
    """Insert the memories of ``items`` with their flags, decay, sync base and history; their new ids by uid.

    Each gets an ``imported`` entry: ``decision`` (by default, the file it came from) by ``actor``,
    naming ``related`` as its related memory.
    """
    if not items:
        return {}
    rows, origins = [], []
    for item in items:
        memory = item.memory.memory
        session_id, origin = _session(memory["provenance"], sessions)
        rows.append((memory["service"], memory["category"], memory["observation"], memory["confidence"],
                     int(memory["active"]), memory["created_at"], memory["updated_at"], session_id,
                     memory["provenance"]["tier"], item.memory.uid))
        if origin is not None:
            origins.append((item.memory.uid, origin))
    _insert("memories", _MEMORY_COLUMNS, rows)
    ids = {uid: memory_id for uid, memory_id in sync_state.select_in(
        "SELECT uid, id FROM memories", "uid", [item.memory.uid for item in items])}
    _insert("memory_flags", ("memory_id", "reason", "flagged_at"),
            [(ids[item.memory.uid], item.memory.memory["flag"]["reason"], item.memory.memory["flag"]["flagged_at"])
             for item in items if item.memory.memory["flag"] is not None])
    _insert("memory_decay", ("memory_id", "base_updated_at", "weeks_applied"),
            [(ids[item.memory.uid], item.memory.memory["updated_at"], item.memory.memory["decay_weeks_applied"])
             for item in items if item.memory.memory["decay_weeks_applied"]])
    sync_state.record_synced(((item.memory.uid, item.memory.state_hash) for item in items), now)
    for uid, origin in origins:
        sync_state.record_session_origin(uid, origin)
    insert_changes([HistoryMerge(ids[item.memory.uid], item.memory.history["changes"])
                    for item in items if item.memory.history is not None], sessions)
    _insert("memory_changes", _CHANGE_INSERTED,
            [_imported_entry(ids[item.memory.uid], item.memory.memory, now, actor,
                             decision or imported_decision(item), related) for item in items])
    return ids


def _imported_entry(memory_id: int, memory: Document, now: str, actor: Actor, decision: Decision,
                    related: int | None) -> tuple[Any, ...]:
    """The values of an ``imported`` entry for a memory the import created (no *before*)."""
    values = {"memory_id": memory_id, "changed_at": now, "kind": "imported", "actor": actor.kind,
              "session_id": actor.session_id, "tier": actor.tier, "decided_by": decision.decided_by,
              "certainty": decision.certainty, "reason": decision.reason, "related_memory_id": related,
              "needs_review": 0, "new_confidence": memory["confidence"], "new_active": int(memory["active"]),
              "new_observation": memory["observation"], "new_updated_at": memory["updated_at"]}
    return tuple(values.get(column) for column in _CHANGE_INSERTED)


# --------------------------------------------------------------------------- history entries


@dataclass
class HistoryMerge:
    """Entries to append to one memory's history, in order; ``known`` maps the seq of incoming entries this
    database already holds to their local ids (what a new entry's ``refers_to`` may name)."""

    memory_id: int
    changes: list[Document]
    known: dict[int, int] = field(default_factory=dict)


def insert_changes(merges: Sequence[HistoryMerge], sessions: dict[int, str]) -> int:
    """Append the entries of ``merges``, translating uids to local ids; what cannot be kept goes to the
    origins. Returns how many entries were written."""
    merges = [merge for merge in merges if merge.changes]
    if not merges:
        return 0
    related_uids = {change["related_memory_uid"] for merge in merges for change in merge.changes
                    if change["related_memory_uid"] is not None}
    local_ids = dict(sync_state.select_in("SELECT uid, id FROM memories", "uid", related_uids))
    rows = []
    kept_elsewhere: list[tuple[tuple[int, str | None] | None, str | None] | None] = []
    for merge in merges:
        for change in merge.changes:
            session_id, origin = _session(change, sessions)
            related_uid = change["related_memory_uid"]
            related = local_ids.get(related_uid) if related_uid is not None else None
            rows.append(_change_row(merge.memory_id, change, session_id, related))
            if origin is not None or (related_uid is not None and related is None):
                kept_elsewhere.append((origin, None if related is not None else related_uid))
            else:
                kept_elsewhere.append(None)
    _insert("memory_changes", _CHANGE_INSERTED, rows)
    new_ids = _new_change_ids(merges)
    _link_references(merges, new_ids)
    origin_rows = []
    for change_id, kept in zip(new_ids, kept_elsewhere, strict=True):
        if kept is not None:
            origin, related_uid = kept
            session_id, started_at = origin if origin is not None else (None, None)
            origin_rows.append((change_id, session_id, started_at, related_uid))
    sync_state.record_change_origins(origin_rows)
    return len(rows)


def _change_row(memory_id: int, change: Document, session_id: int | None, related: int | None) -> tuple[Any, ...]:
    values = {**change, "memory_id": memory_id, "session_id": session_id, "related_memory_id": related,
              "refers_to": None, "needs_review": int(change["needs_review"]),
              "old_active": None if change["old_active"] is None else int(change["old_active"]),
              "new_active": None if change["new_active"] is None else int(change["new_active"]),
              "snapshot": None if change["snapshot"] is None else local_snapshot(change["snapshot"], memory_id)}
    return tuple(values[column] for column in _CHANGE_INSERTED)


def _new_change_ids(merges: Sequence[HistoryMerge]) -> list[int]:
    """The ids the entries just appended got, in the order of ``merges``: each memory's newest ones."""
    rows = sorted(sync_state.select_in("SELECT memory_id, id FROM memory_changes", "memory_id",
                                       [merge.memory_id for merge in merges]))
    newest = {memory_id: [change_id for _, change_id in group] for memory_id, group in groupby(rows, lambda r: r[0])}
    return [change_id for merge in merges for change_id in newest[merge.memory_id][-len(merge.changes):]]


def _link_references(merges: Sequence[HistoryMerge], new_ids: list[int]) -> None:
    """Set ``refers_to`` of the new entries: the seq they name, as a local id (a new entry or a known one)."""
    position, updates = 0, []
    for merge in merges:
        ids = dict(merge.known)
        for change in merge.changes:
            ids[change["seq"]] = new_ids[position]
            if change["refers_to"] is not None and change["refers_to"] in ids:
                updates.append((ids[change["refers_to"]], new_ids[position]))
            position += 1
    if updates:
        db.cursor().executemany(portable_sql("UPDATE memory_changes SET refers_to = ? WHERE id = ?"), updates)


def history_merge(memory_id: int, incoming: Document | None, local: PortableMemory) -> HistoryMerge:
    """The incoming entries this database does not hold yet (by :func:`~claudeops_memory.portable.entry_identity`),
    and the local ids of those it holds (read only when there is something to add)."""
    incoming_changes = incoming["changes"] if incoming is not None else []
    local_changes = local.history["changes"] if local.history is not None else []
    held = {entry_identity(change): position for position, change in enumerate(local_changes)}
    merge = HistoryMerge(memory_id, [change for change in incoming_changes if entry_identity(change) not in held])
    if merge.changes:
        local_ids = [row[0] for row in db.execute_sql(
            portable_sql("SELECT id FROM memory_changes WHERE memory_id = ? ORDER BY id"), (memory_id,)).fetchall()]
        merge.known = {change["seq"]: local_ids[held[identity]] for change in incoming_changes
                       if (identity := entry_identity(change)) in held}
    return merge


# --------------------------------------------------------------------------- one memory replaced


def replace_memory(memory_id: int, item: Incoming, local: PortableMemory, sessions: dict[int, str], now: str, *,
                   actor: Actor = IMPORT, decision: Decision | None = None) -> MemoryRecord:
    """Make memory ``memory_id`` exactly the incoming version: every column, flag, decay, sync base, with
    the incoming history entries it lacks and an ``imported`` entry."""
    before = upsert_store.get(memory_id, lock=True)
    assert before is not None  # the caller found it in this transaction
    memory = item.memory.memory
    session_id, origin = _session(memory["provenance"], sessions)
    Memory.update(service=memory["service"], category=memory["category"], observation=memory["observation"],
                  confidence=memory["confidence"], active=memory["active"], created_at=memory["created_at"],
                  updated_at=memory["updated_at"], session_id=session_id,
                  tier=memory["provenance"]["tier"]).where(Memory.id == memory_id).execute()
    MemoryFlag.delete().where(MemoryFlag.memory_id == memory_id).execute()
    if memory["flag"] is not None:
        MemoryFlag.insert(memory_id=memory_id, reason=memory["flag"]["reason"],
                          flagged_at=memory["flag"]["flagged_at"]).execute()
    MemoryDecay.delete().where(MemoryDecay.memory_id == memory_id).execute()
    if memory["decay_weeks_applied"]:
        MemoryDecay.insert(memory_id=memory_id, base_updated_at=memory["updated_at"],
                           weeks_applied=memory["decay_weeks_applied"]).execute()
    sync_state.record_synced([(item.memory.uid, item.memory.state_hash)], now)
    sync_state.record_session_origin(item.memory.uid, origin)
    insert_changes([history_merge(memory_id, item.memory.history, local)], sessions)
    after = upsert_store.get(memory_id)
    assert after is not None
    history.record_change("imported", actor, now, before=before, after=after,
                          decision=decision or imported_decision(item))
    return after
