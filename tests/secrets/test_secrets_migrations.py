"""What earlier versions stored verbatim is redacted by migrations: sessions' result and error and
their transcript files (core), memories' observations, events' and cooldown actions' messages
(each plugin its own), so that afterwards not one byte of any secret is left in the database file
(an updated row's old bytes are zeroed, not left in the page) — and applying them again changes
nothing."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from secrets_helpers import SECRETS, leaked, leaks_in_files

from claudeops.app import App
from claudeops.plugins import DEFAULT_PLUGINS
from claudeops.redaction import REDACTED
from claudeops.store import apply_migrations, close_store, db, portable_sql

NEW = {("core", "0007_redact_secrets"), ("memory", "010_redact_secrets"), ("memory", "011_flag_instructions"),
       ("events", "0002_redact_secrets"), ("cooldowns", "0002_redact_secrets")}
ALL_SECRETS = " ".join(secret.text for secret in SECRETS)


def as_released_before(app: App) -> list[tuple[str, list]]:
    """Each owner's steps up to its first redaction step: the schema a database written before had."""
    before = []
    for owner, steps in app.migrations:
        names = [step.name for step in steps]
        first_new = min((names.index(name) for name in names if (owner, name) in NEW), default=len(steps))
        before.append((owner, list(steps[:first_new])))
    return before


def redaction_and_later(app: App) -> set[tuple[str, str]]:
    """What an upgrade of such a database applies: the redaction steps and any step after them."""
    released = {(owner, step.name) for owner, steps in as_released_before(app) for step in steps}
    return {(owner, step.name) for owner, steps in app.migrations for step in steps} - released


def make_old_database(state: Path, database_url: str | None = None) -> App:
    """A database migrated by the previous release, holding every secret in every text column it has,
    and a finished session's transcript file holding them too (and a running one's)."""
    environ = {"CLAUDEOPS_STATE_DIR": str(state)}
    if database_url:
        environ["CLAUDEOPS_DATABASE_URL"] = database_url
    app = App.load(None, environ, entry_points=False, builtins=DEFAULT_PLUGINS)
    app.open_store(migrate=False)
    apply_migrations(as_released_before(app))
    transcript = state / "transcripts" / "1.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text(json.dumps({"type": "assistant", "text": ALL_SECRETS}) + "\n" +
                          json.dumps({"type": "result", "result": ALL_SECRETS}) + "\n")
    running = state / "transcripts" / "2.jsonl"
    running.write_text(json.dumps({"type": "assistant", "text": ALL_SECRETS}) + "\n")
    for statement, values in [
        ("INSERT INTO sessions (id, tier, model, trigger, status, started_at, result, error, transcript_path) "
         "VALUES (1, 1, 'haiku', 'scheduled', 'failed', '2026-01-01T00:00:00Z', ?, ?, ?)",
         (ALL_SECRETS, ALL_SECRETS, str(transcript))),
        ("INSERT INTO sessions (id, tier, model, trigger, status, started_at, transcript_path) "
         "VALUES (2, 1, 'haiku', 'scheduled', 'running', '2026-01-01T00:00:00Z', ?)", (str(running),)),
        ("INSERT INTO memories (service, category, observation, created_at, updated_at, session_id) "
         "VALUES ('vault', 'behavior', ?, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 1)", (ALL_SECRETS,)),
        ("INSERT INTO events (session_id, level, service, message, created_at) "
         "VALUES (1, 'warning', 'vault', ?, '2026-01-01T00:00:00Z')", (ALL_SECRETS,)),
        ("INSERT INTO cooldown_actions (service, action, success, message, tier, session_id, created_at) "
         "VALUES ('vault', 'restart', true, ?, 2, 1, '2026-01-01T00:00:00Z')", (ALL_SECRETS,)),
    ]:
        db.execute_sql(portable_sql(statement), values)
    return app


@pytest.fixture
def old_database(tmp_path: Path) -> Iterator[App]:
    yield make_old_database(tmp_path / "state")
    close_store()


def stored_texts() -> list[str]:
    query = ("SELECT result || error FROM sessions WHERE id = 1 UNION ALL SELECT observation FROM memories "
             "UNION ALL SELECT message FROM events UNION ALL SELECT message FROM cooldown_actions")
    return [text for (text,) in db.execute_sql(query).fetchall()]


def test_the_migrations_leave_no_byte_of_any_secret_in_the_database_or_a_finished_transcript(old_database: App):
    state = old_database.state_dir
    assert set(leaks_in_files(state)) >= {"claudeops.db-wal", "transcripts/1.jsonl"}  # the test's premise

    applied = {(step.owner, step.name) for step in apply_migrations(old_database.migrations)}
    assert applied == redaction_and_later(old_database) and applied >= NEW
    texts = stored_texts()
    assert len(texts) == 4 and all(REDACTED in text and leaked(text) == [] for text in texts)
    close_store()  # the last connection checkpoints the WAL into the file

    assert leaks_in_files(state) == {"transcripts/2.jsonl": [secret.kind for secret in SECRETS]}  # still running
    finished = (state / "transcripts" / "1.jsonl").read_text().splitlines()
    assert [json.loads(line)["type"] for line in finished] == ["assistant", "result"] and REDACTED in finished[0]


def test_applying_them_again_changes_nothing(old_database: App):
    apply_migrations(old_database.migrations)
    before = db.execute_sql("SELECT result, error FROM sessions ORDER BY id").fetchall()
    for owner, steps in old_database.migrations:
        for step in steps:
            if (owner, step.name) in NEW and step.name != "011_flag_instructions":  # that one creates a table
                step.apply(db.obj)
    assert db.execute_sql("SELECT result, error FROM sessions ORDER BY id").fetchall() == before
    assert apply_migrations(old_database.migrations) == []


def test_a_redaction_migration_runs_on_a_copy_of_the_database_it_was_written_for(old_database: App, tmp_path):
    """The SPEC-0015 columns of memories are what they were: redaction changes values, not the schema."""
    apply_migrations(old_database.migrations)
    close_store()
    connection = sqlite3.connect(old_database.state_dir / "claudeops.db")
    columns = [row[1] for row in connection.execute("PRAGMA table_info(memories)")]
    connection.close()
    assert columns == ["id", "service", "category", "observation", "confidence", "active", "created_at",
                       "updated_at", "session_id", "tier", "uid"]  # uid: ours, added after them by 012


@pytest.mark.postgres
def test_the_migrations_redact_what_a_postgresql_database_holds(tmp_path, empty_postgres_url):
    app = make_old_database(tmp_path / "state", empty_postgres_url)
    assert all(leaked(text) for text in stored_texts())
    assert {(step.owner, step.name) for step in apply_migrations(app.migrations)} == redaction_and_later(app)
    texts = stored_texts()
    assert len(texts) == 4 and all(REDACTED in text and leaked(text) == [] for text in texts)
    assert apply_migrations(app.migrations) == []
    close_store()
