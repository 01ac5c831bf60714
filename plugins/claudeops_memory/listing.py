"""Reading memories page by page, most trusted first: the dashboard's table, the API and ``memories list``.

Hand-written SQL, like the marker's statements (:mod:`claudeops_memory.upsert_store`): with a
million memories the work per page is small and fixed, so what peewee adds per query (building
the statement, a model per row, a count that wraps the query in a subquery) was most of a
dashboard request. The default order, ``confidence DESC, id DESC``, is the index
``idx_memories_listing``'s (``idx_memories_active_confidence``'s for active or inactive memories
only), so a page is read without sorting the table.

:func:`stream_memories` reads any number of memories in constant memory: pages of a few hundred
rows, each continuing after the last row of the one before (a *keyset*: confidence and id), so
listing a million memories never holds them all, and never re-reads what it skipped as an
``OFFSET`` would.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from claudeops import db, portable_sql
from claudeops_memory.models import MEMORY_COLUMNS, MemoryRecord, same_service_sql

ORDER = " ORDER BY confidence DESC, id DESC"
STREAM_PAGE = 500


@dataclass(frozen=True)
class MemoryFilter:
    """Which memories a list shows: by service (``None`` any; ``GENERAL`` is resolved by the caller to
    a general memory), category, state, and the session that recorded them first."""

    service: str | None = None
    any_service: bool = True
    category: str | None = None
    include_inactive: bool = True
    only_inactive: bool = False
    session_id: int | None = None

    def where(self) -> tuple[str, tuple[Any, ...]]:
        """The ``WHERE`` clause (``?`` placeholders) and its parameters."""
        terms: list[str] = []
        params: list[Any] = []
        if self.session_id is not None:
            terms.append("session_id = ?")
            params.append(self.session_id)
        if not self.any_service:
            sql, service_params = same_service_sql(self.service)
            terms.append(sql)
            params.extend(service_params)
        if self.category is not None:
            terms.append("category = ?")
            params.append(self.category)
        if self.only_inactive:
            terms.append("active = 0")
        elif not self.include_inactive:
            terms.append("active = 1")
        return (" WHERE " + " AND ".join(terms) if terms else ""), tuple(params)


_SELECT = f"SELECT {', '.join(MEMORY_COLUMNS)} FROM memories"


def _records(statement: str, params: tuple[Any, ...]) -> list[MemoryRecord]:
    return [MemoryRecord.from_row(row) for row in db.execute_sql(portable_sql(statement), params).fetchall()]


def list_page(memories: MemoryFilter, limit: int | None = None, offset: int = 0) -> list[MemoryRecord]:
    """One page of matching memories, most trusted first (all of them without a ``limit``)."""
    where, params = memories.where()
    # SQLite takes LIMIT -1 for "no limit"; PostgreSQL takes LIMIT ALL, written here as NULL
    every = -1 if db.param == "?" else None
    return _records(_SELECT + where + ORDER + " LIMIT ? OFFSET ?", (*params, every if limit is None else limit, offset))


def count(memories: MemoryFilter) -> int:
    """How many memories match: one ``COUNT(*)`` (a covering index serves it), no subquery."""
    where, params = memories.where()
    found: int = db.execute_sql(portable_sql("SELECT COUNT(*) FROM memories" + where), params).fetchone()[0]
    return found


def stream_memories(memories: MemoryFilter, limit: int | None = None, offset: int = 0,
                    page: int = STREAM_PAGE) -> Iterator[MemoryRecord]:
    """Matching memories, most trusted first, ``limit`` of them (all without one) after the first ``offset``,
    read a page at a time so memory use does not grow with the table."""
    for rows in stream_pages(memories, limit, offset, page):
        yield from map(MemoryRecord.from_row, rows)


_CONFIDENCE, _ID = MEMORY_COLUMNS.index("confidence"), MEMORY_COLUMNS.index("id")


def stream_pages(memories: MemoryFilter, limit: int | None = None, offset: int = 0,
                 page: int = STREAM_PAGE) -> Iterator[list[tuple[Any, ...]]]:
    """:func:`stream_memories`'s rows as the database returns them (tuples of :data:`MEMORY_COLUMNS`), a
    page at a time: what ``list --json`` encodes without a record per row."""
    where, params = memories.where()
    # a row value: SQLite and PostgreSQL both read it as a range of the listing's index; the same
    # condition spelled with OR scanned the index from its start for every page (255 s for 1M)
    after = (" AND " if where else " WHERE ") + "(confidence, id) < (?, ?)"
    left = limit
    batch = _rows(_SELECT + where + ORDER + " LIMIT ? OFFSET ?", (*params, _size(page, left), offset))
    while batch:
        yield batch
        if left is not None:
            left -= len(batch)
        if len(batch) < page or left == 0:
            return
        last = batch[-1]
        batch = _rows(_SELECT + where + after + ORDER + " LIMIT ?", (*params, last[_CONFIDENCE], last[_ID],
                                                                     _size(page, left)))


def _rows(statement: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    return list(db.execute_sql(portable_sql(statement), params).fetchall())


def _size(page: int, left: int | None) -> int:
    return page if left is None else min(page, left)
