"""Issue 18 item 1 and issue 4: how a decay run writes its batches — two runners never lower a memory
twice, and on SQLite a batch lowers its memories set-based (one statement per chunk, not per row), with
exactly the confidences the Python formula computes."""

from __future__ import annotations

import dataclasses
import random
import sqlite3
import threading
from collections.abc import Callable

import pytest
from claudeops_memory import decay
from claudeops_memory.confidence import clamp_confidence
from claudeops_memory.decay import decay_stale_memories
from claudeops_memory.decay_policy import CategoryDecay, DecayPolicy
from claudeops_memory.pins import pin_memory
from claudeops_memory.settings import CATEGORIES
from memory_helpers import LoadedApp, bulk_memories

from claudeops.store import db, portable_sql


def _decay_at_once(memory_app: LoadedApp, runners: int) -> list[decay.DecayResult]:
    """``runners`` threads, each with its own connection, start a decay run at the same moment."""
    start = threading.Barrier(runners, timeout=20)
    results: list[decay.DecayResult] = []
    errors: list[BaseException] = []

    def runner() -> None:
        try:
            with db.connection_context():
                start.wait()
                results.append(decay_stale_memories(memory_app.clock.stamp()))
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=runner) for _ in range(runners)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    return results


def _two_runners_lower_each_memory_once(memory_app: LoadedApp, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(decay, "FIRST_BATCH", 20)  # many small batches, so the two runs interleave
    monkeypatch.setattr(decay, "MAX_GROWTH", 1.0)
    bulk_memories(400, memory_app.clock.stamp(days=44))

    results = _decay_at_once(memory_app, runners=2)

    assert sum(result.decayed for result in results) == 400  # split between them, never both
    entries = db.execute_sql("SELECT memory_id, COUNT(*) FROM memory_changes WHERE kind = 'decayed' "
                             "GROUP BY memory_id").fetchall()
    assert len(entries) == 400 and {count for _, count in entries} == {1}
    assert db.execute_sql("SELECT MIN(confidence), MAX(confidence), MIN(weeks_applied), MAX(weeks_applied) "
                          "FROM memories JOIN memory_decay ON memory_id = id").fetchone() == (0.5, 0.5, 2, 2)


def test_two_runners_decaying_at_once_lower_each_memory_once_on_sqlite(
        memory_app: LoadedApp, monkeypatch: pytest.MonkeyPatch) -> None:
    _two_runners_lower_each_memory_once(memory_app, monkeypatch)


@pytest.mark.postgres
def test_two_runners_decaying_at_once_lower_each_memory_once_on_postgresql(
        load_memory_app: Callable[..., LoadedApp], empty_postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _two_runners_lower_each_memory_once(load_memory_app(CLAUDEOPS_DATABASE_URL=empty_postgres_url), monkeypatch)


@pytest.mark.postgres
def test_a_runner_adopting_the_policy_while_another_commits_it_does_not_fail_on_postgresql(
        load_memory_app: Callable[..., LoadedApp], empty_postgres_url: str) -> None:
    """Both read "no policy yet" and both write the one policy row: the second waits for the first's
    commit and must then update that row, not fail on its key (as a DELETE and INSERT did)."""
    memory_app = load_memory_app(CLAUDEOPS_DATABASE_URL=empty_postgres_url)
    policy = DecayPolicy.uniform()
    inserted, done = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def first_runner() -> None:
        with db.connection_context(), db.atomic():
            db.execute_sql(portable_sql("INSERT INTO memory_decay_policy (id, fingerprint, scheduled_at) "
                                        "VALUES (1, ?, ?)"), (policy.fingerprint, memory_app.clock.stamp()))
            inserted.set()
            done.wait(timeout=1.0)  # the second runner is blocked on the row meanwhile

    def second_runner() -> None:
        try:
            with db.connection_context():
                inserted.wait(timeout=20)
                decay._adopt(policy, memory_app.clock.stamp())
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=first_runner), threading.Thread(target=second_runner)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert errors == []
    assert db.execute_sql("SELECT COUNT(*) FROM memory_decay_policy").fetchone() == (1,)


def test_a_batch_lowers_its_memories_in_one_statement_per_chunk(memory_app: LoadedApp) -> None:
    """One ``UPDATE`` per chunk, not per row: the schedule trigger makes each statement that changes a
    confidence keep a journal of the pages it touches, which per row tripled the first decay's time."""
    bulk_memories(300, memory_app.clock.stamp(days=44))
    statements: list[str] = []
    db.connection().set_trace_callback(statements.append)
    try:
        result = decay_stale_memories(memory_app.clock.stamp())
    finally:
        db.connection().set_trace_callback(None)

    # the trace names a statement (with its values) when it starts and again as each row runs the trigger
    lowering = {statement for statement in statements if statement.startswith("UPDATE memories SET confidence")}
    assert result.decayed == 300
    assert 0 < len(lowering) <= result.batches * decay.CHUNKS_PER_BATCH < 300
    for table in "memory_changes", "memory_decay":  # the history entries and the ledger alike (its stamp trigger
        # names the statement again per row, so distinct statements are counted, as for the lowering above)
        inserts = {statement for statement in statements if statement.startswith(f"INSERT INTO {table} ")}
        assert 0 < len(inserts) <= result.batches * decay.CHUNKS_PER_BATCH, table


def _typed_dump() -> list[list[tuple[tuple[str, object], ...]]]:
    """Every row decay writes, each value with its Python type (1 and 1.0 compare equal, but are not the same)."""
    tables = ("memories", "memory_decay", "memory_changes")
    return [[tuple((type(value).__name__, value) for value in row)
             for row in db.execute_sql(f"SELECT * FROM {table} ORDER BY 1").fetchall()] for table in tables]


def test_the_set_based_writes_store_exactly_what_the_statements_per_row_do(
        memory_app: LoadedApp, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite's JSON-fed statements (history, memories, ledger, schedules) against PostgreSQL's statement per
    row, run on SQLite from the same store: every row of every table the same, value and type."""
    rng = random.Random(18)
    for number in range(400):
        memory = memory_app.remember(f"observation {number}", category=rng.choice(CATEGORIES),
                                     confidence=round(rng.uniform(0.2, 1.0), 2), days_ago=rng.uniform(0, 150),
                                     active=None if rng.random() > 0.1 else False)
        if rng.random() < 0.05:
            pin_memory(memory.id, now=memory_app.clock.stamp(days=rng.uniform(0, 100)))
    policy = DecayPolicy(CategoryDecay(30, 0.1), {"maintenance": CategoryDecay(90, 0.1),
                                                  "behavior": CategoryDecay(30, 0.05)}, 0.3)
    decay_stale_memories(memory_app.clock.stamp(days=20))  # a ledger entry for some, and another policy: all due
    stored = sqlite3.connect(":memory:")
    db.connection().backup(stored)

    set_based = decay_stale_memories(memory_app.clock.stamp(), policy)
    written_set_based = _typed_dump()
    stored.backup(db.connection())  # the store as it was before that run
    monkeypatch.setattr(decay, "_write_lowered_sqlite", decay._write_lowered_rows)
    monkeypatch.setattr(decay, "_write_kept_sqlite", decay._write_kept_rows)
    per_row = decay_stale_memories(memory_app.clock.stamp(), policy)

    assert set_based == dataclasses.replace(per_row, batches=set_based.batches, longest_batch_seconds=
                                            set_based.longest_batch_seconds, longest_batch_cpu_seconds=
                                            set_based.longest_batch_cpu_seconds)
    assert set_based.scheduled - set_based.decayed > 100 and set_based.decayed - set_based.deactivated > 10
    assert _typed_dump() == written_set_based


def test_set_based_lowering_stores_exactly_the_computed_confidence(memory_app: LoadedApp) -> None:
    """Every confidence of the grid, lowered by one to ten weeks, is stored exactly as the Python formula
    rounds it (the values travel to SQLite as JSON text), and deactivated exactly under the floor."""
    grid = [round(hundredths / 100, 2) for hundredths in range(101)]
    for weeks in range(1, 11):
        bulk_memories(len(grid), memory_app.clock.stamp(days=30 + 7 * weeks), confidences=grid.__getitem__)

    decay_stale_memories(memory_app.clock.stamp())

    stored = db.execute_sql("SELECT confidence, active FROM memories ORDER BY id").fetchall()
    expected = [(clamp_confidence(confidence - 0.1 * weeks), clamp_confidence(confidence - 0.1 * weeks) >= 0.3)
                for weeks in range(1, 11) for confidence in grid]
    assert [(confidence, bool(active)) for confidence, active in stored] == [
        (confidence, active if before >= 0.3 else False)
        for (confidence, active), before in zip(expected, grid * 10, strict=True)]
    types = db.execute_sql("SELECT DISTINCT typeof(confidence), typeof(active) FROM memories").fetchall()
    assert types == [("real", "integer")]  # JSON numbers, stored as the columns' own types
    schedules = db.execute_sql("SELECT active, decay_due_at IS NULL, floor_at IS NULL, COUNT(*) FROM memories "
                               "GROUP BY 1, 2, 3").fetchall()
    assert {(active, due_null) for active, due_null, _, _ in schedules} == {(0, 1), (1, 0)}  # JSON null is NULL


def test_a_run_gives_the_connection_back_as_it_found_it(memory_app: LoadedApp) -> None:
    """The run's own page cache and checkpointing are the run's: the session's connection keeps its settings."""
    bulk_memories(200, memory_app.clock.stamp(days=44))
    settings = "PRAGMA cache_size", "PRAGMA wal_autocheckpoint", "PRAGMA temp_store"
    before = [db.execute_sql(pragma).fetchone() for pragma in settings]

    assert decay_stale_memories(memory_app.clock.stamp()).decayed == 200

    assert [db.execute_sql(pragma).fetchone() for pragma in settings] == before


def test_a_batch_keeps_its_statement_journal_in_memory(memory_app: LoadedApp, monkeypatch: pytest.MonkeyPatch) -> None:
    """A batch's set-based UPDATE fires the schedule trigger, so SQLite journals every page it touches for the
    statement; in a temporary file (the default past 64 KiB) that was an eighth of the first decay of 100k."""
    seen: list[int] = []
    write_lowered = decay._write_lowered

    def spy(*args: object) -> None:
        seen.append(db.execute_sql("PRAGMA temp_store").fetchone()[0])
        write_lowered(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(decay, "_write_lowered", spy)
    bulk_memories(300, memory_app.clock.stamp(days=44))

    assert decay_stale_memories(memory_app.clock.stamp()).decayed == 300

    assert seen and set(seen) == {2}  # MEMORY
