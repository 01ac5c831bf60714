"""What this database keeps about each memory's life in other databases (export, import, sync).

Memories travel by ``uid``; row ids stay local. Three tables of ours (migration
``012_memory_uids_and_sync``) hold what the ``memories`` and ``memory_changes`` rows cannot:

* ``memory_sync`` — per uid, the hash of the memory's portable document as this database last
  exported or imported it (the *sync base*: a memory both this database and an incoming file
  changed since then is a conflict, not an overwrite), and the session an imported memory came
  from when that session is not in this database (its ``session_id`` is NULL here, yet an export
  must say where it came from);
* ``memory_change_origins`` — the same for imported history entries: their session, and the uid
  of a related memory this database does not hold;
* ``memory_sync_conflicts`` — incoming versions that conflicted with ours, waiting in the review
  queue (:mod:`claudeops_memory.sync_conflicts`) until an operator takes theirs, keeps ours or
  keeps both.

Nothing here is text of a memory (the conflicts keep the incoming document, redacted on import).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

import peewee

from claudeops import BaseModel, db, portable_sql

ROWS_PER_STATEMENT = 500
"""Most values one ``IN (...)`` list or one multi-row statement carries (SQLite caps bound parameters)."""


class SyncConflict(BaseModel):
    """An incoming version of memory ``memory_id`` that conflicts with ours; open while ``resolved_at`` is NULL."""

    id = peewee.AutoField()
    uid = peewee.TextField()
    memory_id = peewee.IntegerField()
    source = peewee.TextField()
    found_at = peewee.TextField()
    theirs = peewee.TextField()
    theirs_hash = peewee.TextField()
    resolved_at = peewee.TextField(null=True)
    resolution = peewee.TextField(null=True)

    class Meta:
        table_name = "memory_sync_conflicts"


def synced_hashes(uids: Collection[str] | None = None) -> dict[str, str]:
    """The sync base of each of ``uids`` that has one (of every uid when ``None``)."""
    if uids is None:
        return dict(select_in("SELECT uid, synced_hash FROM memory_sync", "uid", None))
    return lookup("memory_sync", "uid", "synced_hash", uids)


def session_origins(uids: Iterable[str] | None = None) -> dict[str, tuple[int, str | None]]:
    """The session each imported memory came from, where that session is not in this database."""
    rows = select_in("SELECT uid, origin_session_id, origin_session_started_at FROM memory_sync", "uid", uids,
                      "origin_session_id IS NOT NULL")
    return {uid: (session_id, started_at) for uid, session_id, started_at in rows}


def record_synced(rows: Iterable[tuple[str, str]], now: str) -> int:
    """Set the sync base of each ``(uid, hash)``; the origin columns are left as they are. Returns how many."""
    statement = portable_sql("INSERT INTO memory_sync (uid, synced_hash, synced_at) VALUES (?, ?, ?) "
                             "ON CONFLICT (uid) DO UPDATE SET synced_hash = excluded.synced_hash, "
                             "synced_at = excluded.synced_at")
    values = [(uid, digest, now) for uid, digest in rows]
    cursor = db.cursor()
    for chunk in peewee.chunked(values, ROWS_PER_STATEMENT):
        cursor.executemany(statement, chunk)
    return len(values)


def record_imported(rows: Iterable[tuple[str, str, tuple[int, str | None] | None]], now: str) -> None:
    """Set the sync base of each imported ``(uid, hash, origin)`` and keep (or forget, when ``None``) the
    session it came from where that session is not here: one multi-row statement a chunk."""
    statement = portable_sql(
        "INSERT INTO memory_sync (uid, synced_hash, synced_at, origin_session_id, origin_session_started_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (uid) DO UPDATE SET synced_hash = excluded.synced_hash, "
        "synced_at = excluded.synced_at, origin_session_id = excluded.origin_session_id, "
        "origin_session_started_at = excluded.origin_session_started_at")
    values = [(uid, digest, now, *(origin if origin is not None else (None, None))) for uid, digest, origin in rows]
    cursor = db.cursor()
    for chunk in peewee.chunked(values, ROWS_PER_STATEMENT):
        cursor.executemany(statement, chunk)


def change_origins(change_ids: Iterable[int] | None = None) -> dict[int, tuple[int | None, str | None, str | None]]:
    """Per imported entry: (session id, session start, related memory uid) as the file said them."""
    rows = select_in("SELECT change_id, session_id, session_started_at, related_memory_uid "
                      "FROM memory_change_origins", "change_id", change_ids)
    return {change_id: (session_id, started_at, related) for change_id, session_id, started_at, related in rows}


def record_change_origins(rows: Iterable[tuple[int, int | None, str | None, str | None]]) -> None:
    """Keep what imported entries said that ``memory_changes`` cannot hold here (one row per entry)."""
    statement = portable_sql("INSERT INTO memory_change_origins (change_id, session_id, session_started_at, "
                             "related_memory_uid) VALUES (?, ?, ?, ?)")
    cursor = db.cursor()
    for chunk in peewee.chunked(list(rows), ROWS_PER_STATEMENT):
        cursor.executemany(statement, chunk)


def lookup(table: str, key: str, value: str, keys: Collection[Any], condition: str | None = None) -> dict[Any, Any]:
    """``{key: value}`` of the rows of ``table`` (that meet ``condition``) whose ``key`` is one of ``keys``.

    When ``table`` holds no more such rows than there are keys — an import of many memories, above
    all into a new database — one read of them all is cheaper than a query per
    :data:`ROWS_PER_STATEMENT` keys (100,000 keys: 200 queries of 500 bound values each, 0.1 s on
    an empty table); otherwise the keys are looked up a chunk at a time (:func:`select_in`).
    """
    wanted = set(keys)
    if not wanted:
        return {}
    where = f" WHERE {condition}" if condition else ""
    rows_here = db.execute_sql(f"SELECT count(*) FROM {table}{where}").fetchone()[0]
    if rows_here <= len(wanted):
        return {found: row_value for found, row_value in db.execute_sql(f"SELECT {key}, {value} FROM {table}{where}")
                if found in wanted}
    return dict(select_in(f"SELECT {key}, {value} FROM {table}", key, wanted, condition))


def select_in(select: str, column: str, values: Iterable[Any] | None,
              condition: str | None = None) -> list[tuple[Any, ...]]:
    """Rows of ``select`` whose ``column`` is one of ``values`` (every row when ``None``), a chunk of values
    per statement; the documents of :mod:`claudeops_memory.portable` are read with it too."""
    where = f" WHERE {condition}" if condition else ""
    if values is None:
        return list(db.execute_sql(select + where).fetchall())
    rows: list[tuple[Any, ...]] = []
    joiner = " AND " if condition else " WHERE "
    for chunk in peewee.chunked(sorted(set(values), key=str), ROWS_PER_STATEMENT):
        statement = f"{select}{where}{joiner}{column} IN ({', '.join('?' * len(chunk))})"
        rows.extend(db.execute_sql(portable_sql(statement), tuple(chunk)).fetchall())
    return rows
