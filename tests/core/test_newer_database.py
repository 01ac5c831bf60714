"""A database written by a newer claudeops is refused before anything changes (exit 65), by ``run`` and
every command that would migrate it; a plugin's migrations are no reason to refuse when the plugin
is merely not loaded."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from claudeops.exit_codes import EXIT_NEWER_DATABASE, EXIT_OK

HEALTHY = Path(__file__).resolve().parents[2] / "examples" / "sessions" / "healthy-tier1.jsonl"


def database() -> Path:
    return Path(os.environ["CLAUDEOPS_STATE_DIR"]) / "claudeops.db"


def rows(sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(database()) as connection:
        return connection.execute(sql).fetchall()


@pytest.fixture
def newer_database(run_claudeops) -> list[tuple[object, ...]]:
    """A database migrated by this version, then by a newer one that added a step of the core's."""
    assert run_claudeops("db", "migrate").code == EXIT_OK
    with sqlite3.connect(database()) as connection:
        connection.execute("INSERT INTO claudeops_migrations VALUES ('core', '0099_from_the_future', "
                           "'2030-01-01T00:00:00Z')")
    return rows("SELECT * FROM claudeops_migrations ORDER BY owner, name")


def test_run_refuses_a_database_a_newer_claudeops_wrote_and_changes_nothing(newer_database, run_claudeops):
    code, _, stderr = run_claudeops("run", "--replay", str(HEALTHY))
    assert code == EXIT_NEWER_DATABASE
    assert stderr.splitlines() == [
        f"claudeops: error: the database sqlite:///{database()} was written by a newer claudeops: it has migration "
        f"core/0099_from_the_future, which claudeops 0.1.0 and its plugins do not know; upgrade claudeops (and "
        "plugins), or point database_url at another database; nothing was changed"]
    assert rows("SELECT count(*) FROM sessions") == [(0,)]
    assert rows("SELECT * FROM claudeops_migrations ORDER BY owner, name") == newer_database


@pytest.mark.parametrize("command", [["db", "migrate"], ["sessions", "list"], ["memories", "list"]])
def test_every_command_that_migrates_refuses_it_too(newer_database, command, run_claudeops):
    code, _, stderr = run_claudeops(*command)
    assert code == EXIT_NEWER_DATABASE and "was written by a newer claudeops" in stderr


def test_db_status_lists_the_unknown_step_and_exits_65(newer_database, run_claudeops):
    code, stdout, stderr = run_claudeops("db", "status")
    assert code == EXIT_NEWER_DATABASE
    assert "unknown (newer)       core/0099_from_the_future" in stdout.splitlines()
    assert stderr == ("claudeops: error: 1 migration(s) unknown to this version: the database was written by a "
                      "newer claudeops\n")


def test_the_migrations_of_a_disabled_plugin_are_left_alone_and_the_run_goes_on(run_claudeops, monkeypatch):
    assert run_claudeops("db", "migrate").code == EXIT_OK  # every plugin's migrations
    monkeypatch.setenv("CLAUDEOPS_DISABLE_PLUGINS", "claudeops_memory")
    code, _, stderr = run_claudeops("run", "--replay", str(HEALTHY))
    assert code == EXIT_OK, stderr
    assert rows("SELECT status FROM sessions") == [("completed",)]
