"""An import into empty tables builds their secondary indexes once, after the load, in the same transaction:
on SQLite and PostgreSQL, every index is there after the commit, and after a failure, as before."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import peewee
import pytest
from claudeops_memory import import_apply, sync_state
from claudeops_memory.bulk_indexes import BULK_TABLES, indexes_built_after_load, secondary_indexes
from claudeops_memory.export import export_memories
from claudeops_memory.importing import import_memories
from memory_helpers import LoadedApp, fill_varied_store, transfer_tables

from claudeops import portable_sql
from claudeops.store import db


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_target(request: pytest.FixtureRequest, load_memory_app: Callable[..., LoadedApp],
                 tmp_path: Path) -> Callable[[], LoadedApp]:
    """``empty_target()``: a new, migrated database of the parameter's kind, served from then on."""
    def build() -> LoadedApp:
        if request.param == "postgres":
            return load_memory_app(CLAUDEOPS_DATABASE_URL=request.getfixturevalue("empty_postgres_url"))
        (tmp_path / "target").mkdir()
        return load_memory_app(CLAUDEOPS_STATE_DIR=str(tmp_path / "target"))
    return build


def indexes() -> dict[str, list[tuple[str, str]]]:
    return {table: secondary_indexes(table) for table in BULK_TABLES}


@pytest.fixture
def indexes_at_each_insert(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, list[str]]]]:
    """(table, the names of its secondary indexes there at that moment) for each bulk insert of an import."""
    seen: list[tuple[str, list[str]]] = []
    insert = import_apply._insert

    def watched(table: str, *arguments: object) -> None:
        if table in BULK_TABLES:
            seen.append((table, [name for name, _ in secondary_indexes(table)]))
        insert(table, *arguments)  # type: ignore[arg-type]

    monkeypatch.setattr(import_apply, "_insert", watched)
    yield seen


def import_file(app: LoadedApp, path: Path) -> object:
    return import_memories(path, max_observation_chars=app.settings.max_observation_chars, now=app.clock.stamp())


def test_an_import_into_empty_tables_loads_them_without_indexes_and_commits_every_one(
        memory_app: LoadedApp, empty_target: Callable[[], LoadedApp], tmp_path: Path,
        indexes_at_each_insert: list[tuple[str, list[str]]]) -> None:
    stored = fill_varied_store(memory_app)
    export_memories(tmp_path / "a.jsonl", "jsonl", memory_app.clock.stamp())
    target = empty_target()
    before = indexes()

    outcome = import_file(target, tmp_path / "a.jsonl")

    assert outcome.counts == {"add": len(stored)}  # type: ignore[attr-defined]
    assert {table for table, _ in indexes_at_each_insert} == set(BULK_TABLES)
    assert all(names == [] for _, names in indexes_at_each_insert)  # loaded without them
    assert indexes() == before and len(before["memories"]) >= 9 and len(before["memory_changes"]) >= 4
    uid = next(iter(stored.values())).uid
    with pytest.raises(peewee.IntegrityError), db.atomic():  # the unique index on uid is back, and checks
        db.execute_sql(portable_sql("UPDATE memories SET uid = ? WHERE uid <> ?"), (uid, uid))


def test_an_import_into_tables_that_hold_rows_keeps_their_indexes(
        memory_app: LoadedApp, empty_target: Callable[[], LoadedApp], tmp_path: Path,
        indexes_at_each_insert: list[tuple[str, list[str]]]) -> None:
    memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    export_memories(tmp_path / "a.jsonl", "jsonl", memory_app.clock.stamp())
    target = empty_target()
    target.remember("Backups run at 02:00", service="nas")
    before = indexes()

    import_file(target, tmp_path / "a.jsonl")

    assert indexes_at_each_insert and all(names == [name for name, _ in before[table]]
                                          for table, names in indexes_at_each_insert)


def test_a_failed_import_into_empty_tables_leaves_them_empty_with_every_index(
        memory_app: LoadedApp, empty_target: Callable[[], LoadedApp], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    fill_varied_store(memory_app)
    export_memories(tmp_path / "a.jsonl", "jsonl", memory_app.clock.stamp())
    empty_target()
    before, rows = indexes(), transfer_tables()

    def fail(rows: object) -> None:  # after both tables were loaded without their indexes
        raise OSError("No space left on device")

    monkeypatch.setattr(sync_state, "record_change_origins", fail)
    with pytest.raises(OSError):
        import_file(memory_app, tmp_path / "a.jsonl")

    assert indexes() == before and transfer_tables() == rows


def test_indexes_are_dropped_only_inside_a_transaction(memory_app: LoadedApp) -> None:
    with pytest.raises(RuntimeError, match="inside the load's transaction"), indexes_built_after_load():
        pass
    assert all(indexes().values())
