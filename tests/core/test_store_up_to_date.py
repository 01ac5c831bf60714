"""An up-to-date database, as at every ``claudeops run`` but the first after an upgrade, is checked
with one read of the migrations table, not one query per plugin (issue 18: nothing repeated per start
that can be checked cheaply); a pending step is still found and applied."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from claudeops import App
from claudeops.store import Migration, apply_migrations, close_store, db, open_store


@pytest.fixture
def migrated(tmp_path: Path) -> Iterator[App]:
    app = App.load(environ={"CLAUDEOPS_STATE_DIR": str(tmp_path)})
    open_store(f"sqlite:///{tmp_path / 'claudeops.db'}")
    apply_migrations(app.migrations)
    yield app
    close_store()


def _statements(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    execute = db.obj.execute_sql

    def counted(sql: str, *args: object, **kwargs: object) -> object:
        seen.append(sql)
        return execute(sql, *args, **kwargs)

    monkeypatch.setattr(db.obj, "execute_sql", counted)
    return seen


def test_an_up_to_date_database_is_checked_with_one_read(migrated: App, monkeypatch: pytest.MonkeyPatch) -> None:
    statements = _statements(monkeypatch)
    assert apply_migrations(migrated.migrations) == []
    reads = [sql for sql in statements if "migrations" in sql and sql.lstrip().upper().startswith("SELECT")]
    assert len(reads) == 1
    assert not [sql for sql in statements if not sql.lstrip().upper().startswith("SELECT")]


def test_a_step_added_later_is_still_found_and_applied(migrated: App) -> None:
    added = Migration("0999_added_later", lambda database: database.execute_sql("CREATE TABLE added_later (x)"))
    plan = [*migrated.migrations, ("later", (added,))]
    assert [(step.owner, step.name) for step in apply_migrations(iter(plan))] == [("later", "0999_added_later")]
    assert apply_migrations(plan) == []


def test_a_start_reads_the_migrations_table_once_for_the_newer_check_and_the_steps(
        migrated: App, monkeypatch: pytest.MonkeyPatch) -> None:
    """``App.migrate`` (every start) refuses a newer database and applies pending steps from one read."""
    statements = _statements(monkeypatch)
    assert migrated.migrate() == []
    reads = [sql for sql in statements if "migrations" in sql and sql.lstrip().upper().startswith("SELECT")]
    assert len(reads) == 1
