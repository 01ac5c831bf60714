"""SPEC-0015 "Memories Table Schema": the table, its defaults and indexes, and idempotent migration."""

from __future__ import annotations

import uuid

import peewee
import pytest
from claudeops_memory import repository
from claudeops_memory.context import CONTEXT_SQL
from memory_helpers import LoadedApp

from claudeops.store import apply_migrations, db

EXPECTED_COLUMNS = [
    # (name, type, not null, default, primary key)
    ("id", "INTEGER", 0, None, 1),
    ("service", "TEXT", 0, None, 0),
    ("category", "TEXT", 1, None, 0),
    ("observation", "TEXT", 1, None, 0),
    ("confidence", "REAL", 1, "0.7", 0),
    ("active", "INTEGER", 1, "1", 0),
    ("created_at", "TEXT", 1, None, 0),
    ("updated_at", "TEXT", 1, None, 0),
    ("session_id", "INTEGER", 0, None, 0),
    ("tier", "INTEGER", 1, "1", 0),
]
"""SPEC-0015's columns, exactly, first and in order."""

OUR_COLUMNS = [
    ("uid", "TEXT", 0, None, 0),  # added by 012_memory_uids_and_sync (issue 15)
    ("pinned_at", "TEXT", 0, None, 0),
    ("unpinned_at", "TEXT", 0, None, 0),
    ("decay_due_at", "TEXT", 0, "''", 0),
    ("floor_at", "TEXT", 0, "''", 0),
]
"""Ours, after them (``012_memory_uids_and_sync``, ``013_decay_schedule_and_pins``)."""

SPEC_INDEXES = {
    "idx_memories_service": ["service", "active"],
    "idx_memories_confidence": ["confidence", "active"],
    "idx_memories_category": ["category"],
}


def _columns() -> list[tuple]:
    return [(name, kind, notnull, default, pk)
            for _, name, kind, notnull, default, pk in db.execute_sql("PRAGMA table_info(memories)").fetchall()]


def _index_columns(name: str) -> list[str]:
    return [row[2] for row in db.execute_sql(f"PRAGMA index_info({name})").fetchall()]


def _table_sql() -> str:
    return db.execute_sql("SELECT sql FROM sqlite_master WHERE name = 'memories'").fetchone()[0]


def test_migration_creates_memories_table(memory_app: LoadedApp) -> None:
    assert _columns() == EXPECTED_COLUMNS + OUR_COLUMNS
    assert "id INTEGER PRIMARY KEY AUTOINCREMENT" in _table_sql()
    foreign_keys = db.execute_sql("PRAGMA foreign_key_list(memories)").fetchall()
    assert [(row[2], row[3], row[4]) for row in foreign_keys] == [("sessions", "session_id", "id")]
    for name, columns in SPEC_INDEXES.items():
        assert _index_columns(name) == columns
    applied = {step.name for step in memory_app.app.migration_status() if step.owner == "memory"}
    assert "005_create_memories" in applied


def test_migration_is_idempotent(memory_app: LoadedApp) -> None:
    memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    schema_before = db.execute_sql("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()

    assert apply_migrations(memory_app.app.migrations) == []
    memory_app.app.open_store()  # what every later start-up does

    assert db.execute_sql("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall() == schema_before
    assert db.execute_sql("SELECT count(*) FROM memories").fetchone()[0] == 1


def test_defaults_apply_to_a_bare_insert(memory_app: LoadedApp) -> None:
    db.execute_sql("INSERT INTO memories (category, observation, created_at, updated_at) "
                   "VALUES ('timing', 'x', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')")
    assert db.execute_sql("SELECT confidence, active, tier, service, session_id FROM memories").fetchone() == (
        0.7, 1, 1, None, None)


def test_context_query_is_served_by_an_index_without_a_sort(memory_app: LoadedApp) -> None:
    for number in range(200):
        memory_app.remember(f"observation {number}", service=f"svc{number % 7}", confidence=(number % 10) / 10,
                            active=number % 5 != 0)
    db.execute_sql("ANALYZE")
    plan = " | ".join(row[-1] for row in db.execute_sql("EXPLAIN QUERY PLAN " + CONTEXT_SQL, (0.3, 0.3, 100)))

    assert "INDEX" in plan
    assert "TEMP B-TREE" not in plan


def test_service_names_stored_before_lower_casing_are_lower_cased(memory_app: LoadedApp) -> None:
    db.execute_sql("INSERT INTO memories (category, service, observation, created_at, updated_at) "
                   "VALUES ('timing', 'Jellyfin', 'x', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')")
    db.execute_sql("DELETE FROM claudeops_migrations WHERE owner = 'memory' AND name = '007_lowercase_services'")
    assert [step.name for step in apply_migrations(memory_app.app.migrations)] == ["007_lowercase_services"]
    assert db.execute_sql("SELECT service FROM memories").fetchall() == [("jellyfin",)]


def test_history_and_ledger_migrations_are_additive_on_an_existing_database(memory_app: LoadedApp) -> None:
    """A database from before issue 14 (migrated to 007, with memories) gains the history and the ledger;
    SPEC-0015's table, its rows and its indexes are untouched."""
    memory = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    for table in ("memory_changes", "memory_injections", "memory_injection_blocks"):
        db.execute_sql(f"DROP TABLE {table}")
    db.execute_sql("DELETE FROM claudeops_migrations WHERE owner = 'memory' AND name IN "
                   "('008_memory_changes', '009_injection_ledger')")
    memories_before = (_table_sql(), _columns(), db.execute_sql("SELECT * FROM memories").fetchall())

    applied = apply_migrations(memory_app.app.migrations)

    assert [step.name for step in applied] == ["008_memory_changes", "009_injection_ledger"]
    assert (_table_sql(), _columns(), db.execute_sql("SELECT * FROM memories").fetchall()) == memories_before
    for name, columns in SPEC_INDEXES.items():
        assert _index_columns(name) == columns
    assert _index_columns("idx_memory_changes_memory") == ["memory_id", "id"]
    assert _index_columns("idx_memory_injections_memory") == ["memory_id", "injected", "session_id"]
    assert apply_migrations(memory_app.app.migrations) == []
    assert repository.get_memory(memory.id) == memory


def test_a_timeline_is_read_through_its_index(memory_app: LoadedApp) -> None:
    for number in range(50):
        memory_app.remember(f"observation {number}")
    db.execute_sql("ANALYZE")

    plan = " | ".join(row[-1] for row in db.execute_sql(
        "EXPLAIN QUERY PLAN SELECT * FROM memory_changes WHERE memory_id = ? ORDER BY id", (3,)).fetchall())

    assert "idx_memory_changes_memory" in plan and "TEMP B-TREE" not in plan


def test_whether_a_change_was_reviewed_is_read_through_its_index(memory_app: LoadedApp) -> None:
    for number in range(50):
        memory_app.remember(f"observation {number}")
    db.execute_sql("ANALYZE")

    plan = " | ".join(row[-1] for row in db.execute_sql(
        "EXPLAIN QUERY PLAN SELECT 1 FROM memory_changes WHERE refers_to = ?", (3,)).fetchall())

    assert "idx_memory_changes_refers" in plan


def test_the_uid_migration_gives_every_stored_memory_its_own_uid(memory_app: LoadedApp) -> None:
    """A database from before issue 15: each memory gains a distinct UUID, and SPEC-0015's columns, rows
    and indexes are untouched."""
    db.execute_sql("DROP INDEX idx_memories_uid")
    db.execute_sql("ALTER TABLE memories DROP COLUMN uid")
    for table in ("memory_sync", "memory_change_origins", "memory_sync_conflicts"):
        db.execute_sql(f"DROP TABLE {table}")
    db.execute_sql("DELETE FROM claudeops_migrations WHERE owner = 'memory' AND name = '012_memory_uids_and_sync'")
    for text in ("Takes 60s to start", "Needs VACUUM weekly", "Answers 302 when healthy"):
        db.execute_sql("INSERT INTO memories (category, observation, created_at, updated_at) "
                       "VALUES ('timing', ?, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')", (text,))
    spec_rows = db.execute_sql("SELECT * FROM memories ORDER BY id").fetchall()

    applied = apply_migrations(memory_app.app.migrations)

    assert [step.name for step in applied] == ["012_memory_uids_and_sync"]
    # uid comes last here, after the columns of 013 already applied; on a real old database 012 runs first
    assert _columns()[:10] == EXPECTED_COLUMNS and sorted(_columns()[10:]) == sorted(OUR_COLUMNS)
    rows = db.execute_sql("SELECT * FROM memories ORDER BY id").fetchall()
    assert [row[:-1] for row in rows] == spec_rows
    uids = [row[-1] for row in rows]
    assert len(set(uids)) == 3 and all(str(uuid.UUID(uid)) == uid for uid in uids)
    for name, columns in SPEC_INDEXES.items():
        assert _index_columns(name) == columns
    with pytest.raises(peewee.IntegrityError):
        db.execute_sql("UPDATE memories SET uid = ? WHERE uid = ?", (uids[0], uids[1]))


def test_every_new_memory_gets_a_uid_of_its_own(memory_app: LoadedApp) -> None:
    memory_app.emit(memory_app.session(), "[MEMORY:timing:jellyfin] Takes 60s to start after restart")
    memory_app.remember("Needs VACUUM weekly", service="postgres", category="maintenance")
    uids = [memory.uid for memory in repository.list_memories()]
    assert len(uids) == 2 and len(set(uids)) == 2 and all(uid and str(uuid.UUID(uid)) == uid for uid in uids)
