"""The portable form of memories: the documents ``memories export`` writes and ``memories import`` reads.

A memory travels as two documents, both free of anything local to one database (row ids):

* the **memory** — uid, service, category, observation, confidence, state, created and last
  reinforced times, provenance (the session that recorded it, by id *and* start time, and its
  tier), its flag (held back as an instruction-like text) and the weeks of staleness decay it
  has already received since its last reinforcement (so a new home does not decay it twice);
* its **history** — every ``memory_changes`` entry, in order, numbered ``seq`` from 1; the change an
  entry refers to is named by its ``seq`` (always an entry of the same memory), a related memory
  by its uid, a session by id and start time, and a removal snapshot without its local id.

A session counts as *the same session* in another database only when both its id and its start
time match there; otherwise its id is not kept there (it would name another session) but is
remembered (:mod:`claudeops_memory.sync_state`), so what a database exports says where a memory
came from whatever database it passed through.

Both documents are written canonically — UTF-8, keys sorted, 2-space indentation, LF, one final
newline (a line of its own, compact, in ``jsonl``) — so an unchanged memory is the same bytes at
every export. A memory's *state hash* is the SHA-256 of its compact canonical memory document:
what the sync base (:mod:`claudeops_memory.sync_state`) records and conflicts are decided on.

Reading is set-based, a few queries for any number of memories (export reads them all).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from itertools import groupby
from typing import Any

import msgspec

from claudeops import db
from claudeops_memory import sync_state
from claudeops_memory.models import CHANGE_COLUMNS, MEMORY_COLUMNS

SCHEMA_VERSION = "1"
"""The version of the documents' shape (``manifest.json``); an import refuses a version it does not know."""

Document = dict[str, Any]


@dataclass(frozen=True)
class PortableMemory:
    """One memory as it travels: its document (and its compact JSON) and its history (None when it has
    no entry)."""

    uid: str
    memory: Document
    history: Document | None
    compact: str

    @property
    def state_hash(self) -> str:
        return hash_of(self.compact)


def canonical_json(document: Document) -> str:
    """The file form: keys sorted, 2-space indentation, UTF-8 text as is, one final newline."""
    return json.dumps(document, sort_keys=True, ensure_ascii=False, indent=2) + "\n"


_COMPACT = msgspec.json.Encoder(order="sorted")


def compact_json(document: Document) -> str:
    """The line form (``jsonl``, and what the state hash is taken of): keys sorted, no blanks, UTF-8 text as
    is. Written by msgspec, ten times faster than ``json.dumps(sort_keys=True, ensure_ascii=False,
    separators=(",", ":"))`` (0.3 µs against 3.5 µs a memory) and the same bytes, but for a float in
    exponent form (``1e-05`` there, ``1e-5`` here): a confidence has two decimals, so only a judge's
    certainty below 0.0001 could be written so — the same way at every export, which is all a hash needs."""
    return _COMPACT.encode(document).decode()


def hash_of(compact: str) -> str:
    """The state hash of a memory document given as its compact JSON: SHA-256, equal exactly when the
    memory is the same."""
    return hashlib.sha256(compact.encode()).hexdigest()


def portable(memory: Document, history: Document | None) -> PortableMemory:
    return PortableMemory(memory["uid"], memory, history, compact_json(memory))


def session_here(session_id: int | None, started_at: str | None, sessions: dict[int, str]) -> bool:
    """Whether a session named in a document is a session of this database (same id, same start)."""
    return session_id is not None and started_at is not None and sessions.get(session_id) == started_at


def local_sessions() -> dict[int, str]:
    """Every session's start time by id: how a document's session is recognised here."""
    return {session_id: started_at for session_id, started_at in
            db.execute_sql("SELECT id, started_at FROM sessions").fetchall()}


# --------------------------------------------------------------------------- reading this database


_MEMORY_SELECT = f"SELECT {', '.join(MEMORY_COLUMNS)} FROM memories"
_CHANGE_SELECT = f"SELECT {', '.join(CHANGE_COLUMNS)} FROM memory_changes"


def read_portable(uids: Collection[str] | None = None) -> Iterator[PortableMemory]:
    """The portable form of the memories with ``uids`` (every memory with a uid when ``None``), by uid.

    Every query runs before this returns (inside the caller's read transaction, so memories and
    history are read at one moment); the documents are built as the iterator is consumed.
    """
    rows = sorted(_memory_rows(uids), key=lambda row: row["uid"])
    ids = [row["id"] for row in rows]
    wanted = None if uids is None else ids
    sessions = local_sessions()
    flags = {memory_id: (reason, flagged_at) for memory_id, reason, flagged_at in sync_state.select_in(
        "SELECT memory_id, reason, flagged_at FROM memory_flags", "memory_id", wanted)}
    decay = {memory_id: (base, weeks) for memory_id, base, weeks in sync_state.select_in(
        "SELECT memory_id, base_updated_at, weeks_applied FROM memory_decay", "memory_id", wanted)}
    origins = sync_state.session_origins(None if uids is None else [row["uid"] for row in rows])
    changes = _history_rows(wanted)
    change_origins = sync_state.change_origins(None if uids is None else [change["id"] for change in changes])
    uid_of = _uids_by_id({change["related_memory_id"] for change in changes if change["related_memory_id"]},
                         everything=uids is None)
    by_memory = {memory_id: list(group) for memory_id, group in groupby(changes, key=lambda row: row["memory_id"])}

    def documents() -> Iterator[PortableMemory]:
        for row in rows:
            memory = memory_document(row, sessions, flags.get(row["id"]), decay.get(row["id"]),
                                     origins.get(row["uid"]))
            entries = by_memory.get(row["id"], [])
            history_document = (None if not entries else
                                {"changes": change_documents(entries, row["uid"], sessions, change_origins, uid_of),
                                 "uid": row["uid"]})
            yield portable(memory, history_document)
    return documents()


def _memory_rows(uids: Collection[str] | None) -> list[dict[str, Any]]:
    if uids is None:
        found = db.execute_sql(_MEMORY_SELECT + " WHERE uid IS NOT NULL").fetchall()
    else:
        found = sync_state.select_in(_MEMORY_SELECT, "uid", uids)
    return [dict(zip(MEMORY_COLUMNS, row, strict=True)) for row in found]


def _history_rows(memory_ids: Collection[int] | None) -> list[dict[str, Any]]:
    """Entries of those memories (of all memories that have a uid when ``None``), by memory, oldest first."""
    if memory_ids is None:
        found = db.execute_sql(_CHANGE_SELECT + " WHERE memory_id IN (SELECT id FROM memories WHERE uid IS NOT NULL)"
                               " ORDER BY memory_id, id").fetchall()
    else:
        found = sorted(sync_state.select_in(_CHANGE_SELECT, "memory_id", memory_ids), key=lambda row: (row[1], row[0]))
    return [dict(zip(CHANGE_COLUMNS, row, strict=True)) for row in found]


def _uids_by_id(related: set[int], *, everything: bool) -> dict[int, str]:
    """The uid of each related memory: a stored one, or one deleted (its removal snapshot names it)."""
    uid_of: dict[int, str] = {}
    snapshots = db.execute_sql("SELECT memory_id, snapshot FROM memory_changes WHERE snapshot IS NOT NULL "
                               "ORDER BY id").fetchall() if related else []
    for memory_id, snapshot in snapshots:
        if memory_id in related and (uid := json.loads(snapshot)["memory"].get("uid")):
            uid_of[memory_id] = uid
    stored = (db.execute_sql("SELECT id, uid FROM memories WHERE uid IS NOT NULL").fetchall() if everything
              else sync_state.select_in("SELECT id, uid FROM memories", "id", related))
    uid_of.update((memory_id, uid) for memory_id, uid in stored if uid is not None)
    return uid_of


def memory_document(row: dict[str, Any], sessions: dict[int, str], flag: tuple[str, str] | None,
                    decay: tuple[str, int] | None, origin: tuple[int, str | None] | None) -> Document:
    """A ``memories`` row (with its flag, decay ledger row and remembered origin) as its portable document."""
    if row["session_id"] is not None:
        session: tuple[int | None, str | None] = (row["session_id"], sessions.get(row["session_id"]))
    else:
        session = origin if origin is not None else (None, None)
    return {
        "active": bool(row["active"]),
        "category": row["category"],
        "confidence": row["confidence"],
        "created_at": row["created_at"],
        "decay_weeks_applied": decay[1] if decay is not None and decay[0] == row["updated_at"] else 0,
        "flag": None if flag is None else {"flagged_at": flag[1], "reason": flag[0]},
        "observation": row["observation"],
        "pinned_at": row["pinned_at"],
        "provenance": {"session_id": session[0], "session_started_at": session[1], "tier": row["tier"]},
        "service": row["service"],
        "uid": row["uid"],
        "unpinned_at": row["unpinned_at"],
        "updated_at": row["updated_at"],
    }


def change_documents(entries: list[dict[str, Any]], uid: str, sessions: dict[int, str],
                     origins: dict[int, tuple[int | None, str | None, str | None]],
                     uid_of: dict[int, str]) -> list[Document]:
    """One memory's history entries (oldest first) as portable documents."""
    seq_of = {entry["id"]: seq for seq, entry in enumerate(entries, start=1)}
    documents = []
    for seq, entry in enumerate(entries, start=1):
        origin_session_id, origin_started_at, origin_related = origins.get(entry["id"], (None, None, None))
        if entry["session_id"] is not None:
            session = (entry["session_id"], sessions.get(entry["session_id"]))
        else:
            session = (origin_session_id, origin_started_at)
        related = entry["related_memory_id"]
        documents.append({
            "actor": entry["actor"],
            "certainty": entry["certainty"],
            "changed_at": entry["changed_at"],
            "decided_by": entry["decided_by"],
            "kind": entry["kind"],
            "needs_review": bool(entry["needs_review"]),
            **{f"{side}_{field}": _flag_or_value(field, entry[f"{side}_{field}"])
               for side in ("old", "new") for field in ("active", "confidence", "observation", "updated_at")},
            "reason": entry["reason"],
            "refers_to": seq_of.get(entry["refers_to"]) if entry["refers_to"] is not None else None,
            "related_memory_uid": uid_of.get(related) if related is not None else origin_related,
            "seq": seq,
            "session_id": session[0],
            "session_started_at": session[1],
            "snapshot": None if entry["snapshot"] is None else _portable_snapshot(entry["snapshot"], uid),
            "tier": entry["tier"],
        })
    return documents


def _flag_or_value(field: str, value: Any) -> Any:
    return None if value is None else bool(value) if field == "active" else value


def _portable_snapshot(snapshot: str, uid: str) -> Document:
    """A removal snapshot without its local id; one recorded before memories had uids gets this memory's."""
    stored: Document = json.loads(snapshot)
    memory = {key: value for key, value in stored["memory"].items() if key != "id"}
    if memory.get("uid") is None:
        memory["uid"] = uid
    return {**stored, "memory": memory}


def local_snapshot(snapshot: Document, memory_id: int) -> str:
    """A portable snapshot as this database stores it: with the local id of its memory."""
    return json.dumps({**snapshot, "memory": {**snapshot["memory"], "id": memory_id}}, sort_keys=True)


def entry_identity(entry: Document) -> str:
    """What makes two history entries the same change in two databases: everything but their numbering."""
    return compact_json({key: value for key, value in entry.items() if key not in ("seq", "refers_to")})

