"""Store: SQLite pragmas, migrations applied once in order, failures rolled back, backup."""

from __future__ import annotations

import sqlite3

import peewee
import pytest

from claudeops.session_rows import CORE_MIGRATIONS, SessionRow
from claudeops.store import (
    Migration,
    MigrationError,
    apply_migrations,
    close_store,
    db,
    mask_url,
    migration_status,
    open_store,
)


@pytest.fixture
def database(tmp_path):
    database = open_store(f"sqlite:///{tmp_path / 'test.db'}")
    yield database
    close_store()


def create(table: str):
    return lambda database: database.execute_sql(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY)")


def tables() -> set[str]:
    return set(db.get_tables())


def test_sqlite_is_opened_with_wal_foreign_keys_and_busy_timeout(database):
    assert database.execute_sql("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert database.execute_sql("PRAGMA foreign_keys").fetchone()[0] == 1
    assert database.execute_sql("PRAGMA busy_timeout").fetchone()[0] == 5000


def test_fresh_database_gets_every_migration_in_order(database):
    plan = [("core", [Migration("0001_a", create("a")), Migration("0002_b", create("b"))]),
            ("plugin", [Migration("0001_c", create("c"))])]
    applied = apply_migrations(plan)
    assert [(step.owner, step.name) for step in applied] == [("core", "0001_a"), ("core", "0002_b"),
                                                             ("plugin", "0001_c")]
    assert {"a", "b", "c"} <= tables()


def test_migrations_are_idempotent(database):
    plan = [("core", [Migration("0001_a", create("a"))])]
    apply_migrations(plan)
    assert apply_migrations(plan) == []
    assert [row.applied_at is not None for row in migration_status(plan)] == [True]


def test_failing_migration_rolls_back_and_keeps_earlier_ones(database):
    def half_then_fail(database: peewee.Database) -> None:
        database.execute_sql("CREATE TABLE half (id INTEGER)")
        raise RuntimeError("bad step")

    plan = [("core", [Migration("0001_a", create("a")), Migration("0002_bad", half_then_fail)])]
    with pytest.raises(MigrationError, match="migration core/0002_bad failed and was rolled back: bad step"):
        apply_migrations(plan)
    assert "a" in tables() and "half" not in tables()
    assert [row.applied_at is None for row in migration_status(plan)] == [False, True]


def test_pending_migration_shows_in_status(database):
    apply_migrations([("core", [Migration("0001_a", create("a"))])])
    plan = [("core", [Migration("0001_a", create("a")), Migration("0002_b", create("b"))])]
    assert [(row.name, row.applied_at is None) for row in migration_status(plan)] == [("0001_a", False),
                                                                                       ("0002_b", True)]


def test_password_is_masked_in_database_urls():
    assert mask_url("postgresql://ops:s3cret@db:5432/claudeops") == "postgresql://ops:***@db:5432/claudeops"
    assert mask_url("sqlite:////var/lib/claudeops.db") == "sqlite:////var/lib/claudeops.db"


def test_online_backup_copies_the_live_database(database, tmp_path):
    from claudeops.store import backup_sqlite

    apply_migrations([("core", [Migration("0001_a", create("a"))])])
    database.execute_sql("INSERT INTO a (id) VALUES (42)")
    (tmp_path / "backup").mkdir()
    backup_sqlite(tmp_path / "backup" / "copy.db")
    copy = sqlite3.connect(tmp_path / "backup" / "copy.db")
    assert copy.execute("SELECT id FROM a").fetchall() == [(42,)]
    copy.close()


def test_an_existing_sessions_table_gains_the_new_columns_and_keeps_its_rows(database):
    first_release = [("core", CORE_MIGRATIONS[:1])]
    apply_migrations(first_release)
    database.execute_sql("INSERT INTO sessions (tier, model, trigger, status, started_at, duration_ms) "
                         "VALUES (1, 'haiku', 'scheduled', 'completed', '2026-01-01T00:00:00Z', 4200)")
    assert [step.name for step in apply_migrations([("core", CORE_MIGRATIONS)])] == [
        "0002_add_duration_api_ms", "0003_add_runner", "0004_owners_named_by_section",
        "0005_create_maintenance_pauses", "0006_add_trigger_source", "0007_redact_secrets", "0008_add_replayed"]
    row = SessionRow.get()
    assert (row.duration_ms, row.duration_api_ms, row.runner, row.trigger_source, row.replayed) == (
        4200, None, None, None, False)


def test_plugins_migrations_recorded_under_their_old_owner_names_are_not_applied_again(database):
    """Owners are now named by settings section (events, cooldowns); a database migrated under the
    old names (claudeops_events, claudeops_cooldowns) keeps its tables and applies nothing twice."""
    first_release = [("core", CORE_MIGRATIONS[:3]), ("claudeops_events", [Migration("0001_create_events",
                                                                                      create("events"))])]
    apply_migrations(first_release)
    events = [("events", [Migration("0001_create_events", create("events"))])]
    assert [step.name for step in apply_migrations([("core", CORE_MIGRATIONS[:4]), *events])] == [
        "0004_owners_named_by_section"]
    assert {(row.owner, row.name) for row in migration_status(events)} == {("events", "0001_create_events")}
    assert all(row.applied_at for row in migration_status(events))


def test_a_flag_column_is_added_to_a_table_other_rows_reference_without_rebuilding_it(database):
    """peewee's migrator rebuilds a SQLite table for a NOT NULL column, which fails once other rows
    reference it (foreign keys are on): an upgrade of any database with sessions and events stopped."""
    from claudeops.store import add_column, add_flag_column

    database.execute_sql("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
    database.execute_sql("CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id))")
    database.execute_sql("INSERT INTO parent (id) VALUES (1)")
    database.execute_sql("INSERT INTO child (parent_id) VALUES (1)")
    apply_migrations([("core", [Migration("0001_flag", add_flag_column("parent", "flagged"))])])
    assert database.execute_sql("SELECT flagged FROM parent").fetchall() == [(0,)]
    with pytest.raises(ValueError, match="must be nullable"):
        add_column("parent", "other", peewee.BooleanField(default=False))
