"""Secondary indexes built once after a bulk load into an empty table, inside the load's own transaction.

Keeping the nine secondary indexes of ``memories`` and the four of ``memory_changes`` up to date
row by row is about a quarter of what writing an import of 100,000 memories into a new database
costs; building each index once over the loaded rows (a sort) costs a third of that
(``bench/memory_transfer.py``). So an import drops the secondary indexes of each of those tables
that is empty when its transaction starts, and creates them again from their own stored
definitions (SQLite's ``sqlite_master``, PostgreSQL's ``pg_get_indexdef``) before it commits:

* no other connection ever sees a table without its indexes: SQLite readers see the last commit,
  and on PostgreSQL ``DROP INDEX`` locks the table until the commit (a reader waits the import
  out, as a writer already did);
* a failure anywhere rolls the drop back with the rows — nothing partial, indexes included;
* the unique index on ``uid`` checks every loaded row when it is built.

Indexes that back a constraint (a primary key, ``UNIQUE`` in a table's definition) stay: they
cannot be dropped, and the tables above have none but their primary keys.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import peewee

from claudeops import db

BULK_TABLES = ("memories", "memory_changes")
"""The tables an import writes a row per memory or history entry to."""


@contextmanager
def indexes_built_after_load(tables: Sequence[str] = BULK_TABLES) -> Iterator[list[str]]:
    """Run the block with the secondary indexes of each of ``tables`` that is empty dropped, then create them
    again; yields the names of those dropped. The caller's transaction holds it all (refused without one)."""
    if not db.in_transaction():
        raise RuntimeError("indexes are dropped for a bulk load only inside the load's transaction")
    definitions = [definition for table in tables if _is_empty(table) for definition in secondary_indexes(table)]
    for name, _ in definitions:
        db.execute_sql(f"DROP INDEX {name}")
    yield [name for name, _ in definitions]
    for _, statement in definitions:
        db.execute_sql(statement)


def _is_empty(table: str) -> bool:
    return db.execute_sql(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is None


def secondary_indexes(table: str) -> list[tuple[str, str]]:
    """(name, as ``DROP INDEX`` takes it; the statement that creates it) of each index of ``table`` that no
    constraint owns, by name."""
    if isinstance(db.obj, peewee.PostgresqlDatabase):
        rows = db.execute_sql(
            "SELECT quote_ident(n.nspname) || '.' || quote_ident(i.relname), pg_get_indexdef(i.oid) "
            "FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_namespace n ON n.oid = i.relnamespace "
            "WHERE x.indrelid = %s::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.oid) "
            "ORDER BY i.relname", (table,)).fetchall()
    else:
        rows = db.execute_sql("SELECT '\"' || name || '\"', sql FROM sqlite_master WHERE type = 'index' "
                              "AND tbl_name = ? AND sql IS NOT NULL ORDER BY name", (table,)).fetchall()
    return [(name, statement) for name, statement in rows]
