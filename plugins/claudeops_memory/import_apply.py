"""The writes of an import: new memories in bulk, a memory replaced by its incoming version, history merged.

Callers hold the write transaction (the whole import is one). What a document says is stored as
it is — every column, the flag, the decay already applied, the history entries in order — except
what would name something else here: a session is kept only when it is the same session here (id
and start time), a related memory only when this database holds it; what is not kept is
remembered (:mod:`claudeops_memory.sync_state`), so exporting again gives the same documents.
Each memory an import adds or changes ends with an ``imported`` history entry (actor ``import``,
or ``review`` when an operator resolved a conflict), which names the file it came from.

New memories are written with ``executemany``, a chunk of rows at a time, not one round trip per
row; into an empty ``memories`` or ``memory_changes`` table with that table's secondary indexes
built once after the rows are in, in the same transaction (:mod:`claudeops_memory.bulk_indexes`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from claudeops import db, portable_sql
from claudeops_memory import history, sync_state, upsert_store
from claudeops_memory.bulk_indexes import indexes_built_after_load
from claudeops_memory.flags import MemoryFlag
from claudeops_memory.history import IMPORT, Actor, Decision
from claudeops_memory.import_files import Incoming
from claudeops_memory.models import Memory, MemoryDecay, MemoryRecord
from claudeops_memory.portable import Document, PortableMemory, entry_identity, local_snapshot, session_here

_MEMORY_COLUMNS = ("service", "category", "observation", "confidence", "active", "created_at", "updated_at",
                   "session_id", "tier", "uid", "pinned_at", "unpinned_at")
_CHANGE_INSERTED = ("memory_id", "changed_at", "kind", "actor", "session_id", "tier", "decided_by", "certainty",
                    "reason", "related_memory_id", "refers_to", "needs_review", "old_confidence", "new_confidence",
                    "old_active", "new_active", "old_observation", "new_observation", "old_updated_at",
                    "new_updated_at", "snapshot")
"""The ``memory_changes`` columns an import writes, in the order of the rows it builds as tuples."""


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
    rows, synced = [], []
    for item in items:
        memory = item.memory.memory
        session_id, origin = _session(memory["provenance"], sessions)
        rows.append((memory["service"], memory["category"], memory["observation"], memory["confidence"],
                     int(memory["active"]), memory["created_at"], memory["updated_at"], session_id,
                     memory["provenance"]["tier"], item.memory.uid, memory.get("pinned_at"),
                     memory.get("unpinned_at")))
        synced.append((item.memory.uid, item.memory.state_hash, origin))
    newest_before = db.execute_sql("SELECT COALESCE(MAX(id), 0) FROM memories").fetchone()[0]
    with indexes_built_after_load(["memories"]):
        _insert("memories", _MEMORY_COLUMNS, rows)
    wanted = {item.memory.uid for item in items}  # another writer's new rows (PostgreSQL) are read and left out
    ids = {uid: memory_id for uid, memory_id in db.execute_sql(
        portable_sql("SELECT uid, id FROM memories WHERE id > ?"), (newest_before,)).fetchall() if uid in wanted}
    _insert("memory_flags", ("memory_id", "reason", "flagged_at"),
            [(ids[item.memory.uid], item.memory.memory["flag"]["reason"], item.memory.memory["flag"]["flagged_at"])
             for item in items if item.memory.memory["flag"] is not None])
    _insert("memory_decay", ("memory_id", "base_updated_at", "weeks_applied"),
            [(ids[item.memory.uid], item.memory.memory["updated_at"], item.memory.memory["decay_weeks_applied"])
             for item in items if item.memory.memory["decay_weeks_applied"]])
    sync_state.record_imported(synced, now)
    with indexes_built_after_load(["memory_changes"]):
        insert_changes([HistoryMerge(ids[item.memory.uid], item.memory.history["changes"])
                        for item in items if item.memory.history is not None], sessions)
        _insert("memory_changes", _CHANGE_INSERTED,
                [_imported_entry(ids[item.memory.uid], item.memory.memory, now, actor,
                                 decision or imported_decision(item), related) for item in items])
    return ids


def _imported_entry(memory_id: int, memory: Document, now: str, actor: Actor, decision: Decision,
                    related: int | None) -> tuple[Any, ...]:
    """The values of an ``imported`` entry for a memory the import created (no *before*), in
    :data:`_CHANGE_INSERTED` order."""
    return (memory_id, now, "imported", actor.kind, actor.session_id, actor.tier, decision.decided_by,
            decision.certainty, decision.reason, related, None, 0, None, memory["confidence"], None,
            int(memory["active"]), None, memory["observation"], None, memory["updated_at"], None)


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
    newest_before = db.execute_sql("SELECT COALESCE(MAX(id), 0) FROM memory_changes").fetchone()[0]
    _insert("memory_changes", _CHANGE_INSERTED, rows)
    new_ids = _new_change_ids(merges, newest_before)
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
    """The values of an imported history entry, in :data:`_CHANGE_INSERTED` order (built as a tuple at once:
    an import writes one per entry, hundreds of thousands)."""
    old_active, new_active = change["old_active"], change["new_active"]
    snapshot = change["snapshot"]
    return (memory_id, change["changed_at"], change["kind"], change["actor"], session_id, change["tier"],
            change["decided_by"], change["certainty"], change["reason"], related, None, int(change["needs_review"]),
            change["old_confidence"], change["new_confidence"], None if old_active is None else int(old_active),
            None if new_active is None else int(new_active), change["old_observation"], change["new_observation"],
            change["old_updated_at"], change["new_updated_at"],
            None if snapshot is None else local_snapshot(snapshot, memory_id))


def _new_change_ids(merges: Sequence[HistoryMerge], newest_before: int) -> list[int]:
    """The ids the entries just appended got, in the order of ``merges``: each memory's newest ones among
    those above ``newest_before`` (one range read of the primary key, whatever the number of memories)."""
    appended: dict[int, list[int]] = {}
    for change_id, memory_id in db.execute_sql(portable_sql("SELECT id, memory_id FROM memory_changes WHERE id > ? "
                                                            "ORDER BY id"), (newest_before,)).fetchall():
        appended.setdefault(memory_id, []).append(change_id)
    return [change_id for merge in merges for change_id in appended[merge.memory_id][-len(merge.changes):]]


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
                  updated_at=memory["updated_at"], session_id=session_id, tier=memory["provenance"]["tier"],
                  pinned_at=memory.get("pinned_at"), unpinned_at=memory.get("unpinned_at"),
                  ).where(Memory.id == memory_id).execute()
    MemoryFlag.delete().where(MemoryFlag.memory_id == memory_id).execute()
    if memory["flag"] is not None:
        MemoryFlag.insert(memory_id=memory_id, reason=memory["flag"]["reason"],
                          flagged_at=memory["flag"]["flagged_at"]).execute()
    MemoryDecay.delete().where(MemoryDecay.memory_id == memory_id).execute()
    if memory["decay_weeks_applied"]:
        MemoryDecay.insert(memory_id=memory_id, base_updated_at=memory["updated_at"],
                           weeks_applied=memory["decay_weeks_applied"]).execute()
    sync_state.record_imported([(item.memory.uid, item.memory.state_hash, origin)], now)
    insert_changes([history_merge(memory_id, item.memory.history, local)], sessions)
    after = upsert_store.get(memory_id)
    assert after is not None
    history.record_change("imported", actor, now, before=before, after=after,
                          decision=decision or imported_decision(item))
    return after
