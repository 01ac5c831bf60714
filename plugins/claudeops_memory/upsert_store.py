"""The statements recording one observation runs: find candidates, reinforce, weaken, reactivate, insert.

This is the hot path of a session (every ``[MEMORY:...]`` marker) and of ``bench/memory_upsert.py``,
so it is hand-written SQL run through ``db.execute_sql``: issuing these statements through
peewee's query builder measured 20-70x slower than the statements themselves (the builder
recompiles an expression tree per call), which alone put a marker over 1 ms. The SQL is plain
enough for SQLite and PostgreSQL alike; only the placeholder and the row lock differ, and both
are chosen in :func:`_sql` (with :func:`claudeops.store.portable_sql`).

Confidence arithmetic stays in Python (:func:`~claudeops_memory.confidence.clamp_confidence`):
each change re-reads the row inside the caller's transaction, under a lock (``BEGIN IMMEDIATE``
on SQLite, ``SELECT … FOR UPDATE`` on PostgreSQL), so a concurrent dashboard edit cannot be
lost between the read and the write. Every function here must run inside ``db.atomic()``.
"""

from __future__ import annotations

import zlib
from dataclasses import astuple, replace
from operator import itemgetter
from typing import Any, NamedTuple

import peewee

from claudeops import db, insert_returning_id, is_row_id, portable_sql
from claudeops_memory.confidence import clamp_confidence, is_active_confidence
from claudeops_memory.flags import NOT_FLAGGED_SQL
from claudeops_memory.models import MEMORY_COLUMNS, MemoryRecord, RowChange, new_uid, same_service_sql

_SELECT = f"SELECT {', '.join(MEMORY_COLUMNS)} FROM memories WHERE "
_ORDER = " ORDER BY confidence DESC, id DESC"
_BY_ID = _SELECT + "id = ?"
_INSERTED = MEMORY_COLUMNS[1:]  # all but the id the database assigns
_INSERT = f"INSERT INTO memories ({', '.join(_INSERTED)}) VALUES ({', '.join('?' * len(_INSERTED))})"


def _sql(statement: str, *, lock: bool = False) -> str:
    """``statement`` with this database's placeholder, and a row lock where the database has one."""
    statement = portable_sql(statement)
    return statement + " FOR UPDATE" if lock and db.for_update else statement


def _records(statement: str, params: tuple[Any, ...], *, lock: bool = False) -> list[MemoryRecord]:
    return [MemoryRecord.from_row(row) for row in db.execute_sql(_sql(statement, lock=lock), params).fetchall()]


class Candidate(NamedTuple):
    """An active memory of the group as the judges see it: its id and its text."""

    id: int
    observation: str


class Group(NamedTuple):
    """The active memories of a (service, category) group, most trusted first, as two columns.  A
    group may hold a thousand memories and a marker changes at most a few of them, which the
    writes read again, whole and under the lock; so the group is read without the other columns (a
    full record per memory was most of a marker's time outside the judge), and its rows are
    not made into objects one by one."""

    ids: list[int]
    texts: list[str]

    def candidate(self, position: int) -> Candidate:
        return Candidate(self.ids[position], self.texts[position])


_ID, _TEXT = itemgetter(0), itemgetter(1)


def active_group(service: str | None, category: str) -> Group:
    """Active memories of the same service and category, most trusted first: the candidates."""
    where, params = same_service_sql(service)
    statement = "SELECT id, observation FROM memories WHERE " + where + " AND category = ? AND active = 1" + _ORDER
    rows = db.execute_sql(_sql(statement), (*params, category)).fetchall()
    return Group(list(map(_ID, rows)), list(map(_TEXT, rows)))


def lock_group(service: str | None, category: str) -> None:
    """Serialise writers of one (service, category) group until the transaction ends.

    Two runners recording the same new fact at once must leave one row: each re-reads the group
    inside its transaction, and this lock makes the second wait until the first has committed,
    so its re-read sees the first's row. SQLite needs nothing here: ``BEGIN IMMEDIATE`` already
    holds the database's one write lock. PostgreSQL gets a transaction-scoped advisory lock on a
    hash of the group (a row lock cannot lock a row that does not exist yet).
    """
    if isinstance(db.obj, peewee.PostgresqlDatabase):
        key = zlib.crc32(f"claudeops_memory\0{service or ''}\0{category}".encode())
        db.execute_sql("SELECT pg_advisory_xact_lock(%s)", (key,))


def active_ids(service: str | None, category: str) -> list[int]:
    """The ids of the group's active memories: what a writer re-reads under :func:`lock_group`."""
    where, params = same_service_sql(service)
    return [row[0] for row in db.execute_sql(
        _sql("SELECT id FROM memories WHERE " + where + " AND category = ? AND active = 1"),
        (*params, category)).fetchall()]


def get(memory_id: int, *, lock: bool = False) -> MemoryRecord | None:
    """One memory as stored (under a row lock when ``lock``), or None (also for an id no row can have)."""
    if not is_row_id(memory_id):
        return None
    found = _records(_BY_ID, (memory_id,), lock=lock)
    return found[0] if found else None


def inactive_duplicate(service: str | None, category: str, observation: str) -> MemoryRecord | None:
    """The newest inactive memory of the same service and category with the same text, ignoring case.

    A flagged memory is never one: only an operator may bring it back (:mod:`claudeops_memory.flags`).
    """
    where, params = same_service_sql(service)
    found = _records(_SELECT + where + " AND category = ? AND active = 0 AND LOWER(observation) = LOWER(?) AND "
                     + NOT_FLAGGED_SQL + " ORDER BY id DESC LIMIT 1", (*params, category, observation), lock=True)
    return found[0] if found else None


def flagged_duplicate(service: str | None, category: str, observation: str) -> MemoryRecord | None:
    """The newest flagged memory of the same service and category with the same text, ignoring case."""
    where, params = same_service_sql(service)
    found = _records(_SELECT + where + " AND category = ? AND LOWER(observation) = LOWER(?) AND NOT ("
                     + NOT_FLAGGED_SQL + ") ORDER BY id DESC LIMIT 1", (*params, category, observation))
    return found[0] if found else None


def _locked_active(memory_id: int) -> MemoryRecord | None:
    found = _records(_BY_ID + " AND active = 1", (memory_id,), lock=True)
    return found[0] if found else None


def reinforce(memory_id: int, step: float, now: str) -> RowChange | None:
    """Raise an active memory's confidence by ``step`` (capped at 1.0) and refresh ``updated_at``.

    ``None`` when the memory was deleted or deactivated since it was judged.
    """
    before = _locked_active(memory_id)
    if before is None:
        return None
    after = replace(before, confidence=clamp_confidence(before.confidence + step), updated_at=now)
    db.execute_sql(_sql("UPDATE memories SET confidence = ?, updated_at = ? WHERE id = ?"),
                   (after.confidence, now, memory_id))
    return RowChange(before, after)


def weaken(memory_id: int, step: float, min_confidence: float) -> RowChange | None:
    """Lower an active memory's confidence by ``step``, deactivating it below the threshold.

    ``updated_at`` is left alone: it records the last reinforcement, not the last change.
    """
    before = _locked_active(memory_id)
    if before is None:
        return None
    confidence = clamp_confidence(before.confidence - step)
    after = replace(before, confidence=confidence, active=is_active_confidence(confidence, min_confidence))
    db.execute_sql(_sql("UPDATE memories SET confidence = ?, active = ? WHERE id = ?"),
                   (confidence, int(after.active), memory_id))
    return RowChange(before, after)


def reactivate(memory: MemoryRecord, confidence: float, now: str) -> MemoryRecord:
    """Bring an inactive memory back at ``confidence`` (the agent recorded it again)."""
    memory = replace(memory, confidence=clamp_confidence(confidence), active=True, updated_at=now)
    db.execute_sql(_sql("UPDATE memories SET confidence = ?, active = 1, updated_at = ? WHERE id = ?"),
                   (memory.confidence, now, memory.id))
    return memory


def insert(*, service: str | None, category: str, observation: str, confidence: float, min_confidence: float,
           session_id: int | None, tier: int, now: str, active: bool = True) -> MemoryRecord:
    """Add a new memory (created and last reinforced ``now``), active unless below the threshold or
    ``active`` is false (a flagged memory, held back for an operator), with a fresh ``uid``.

    The one insert of a memory: markers call it with text their grammar and
    :func:`~claudeops_memory.marker.prepare_observation` already checked, the CLI and the
    dashboard through :func:`claudeops_memory.repository.create_memory`, which checks first.
    """
    value = clamp_confidence(confidence)
    record = MemoryRecord(0, service, category, observation, value,
                          active and is_active_confidence(value, min_confidence), now, now, session_id, tier,
                          new_uid())
    values = tuple(int(value) if column == "active" else value
                   for column, value in zip(MEMORY_COLUMNS, astuple(record), strict=True))[1:]
    return replace(record, id=insert_returning_id(_INSERT, values))
