"""``claudeops doctor`` on the database and the disk: it only looks (unless ``--fix``), pending
migrations are a note, a database from a newer claudeops fails it, and low free space is reported."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from claudeops_events.models import MIGRATIONS as EVENT_MIGRATIONS
from click.testing import CliRunner

from claudeops import counted
from claudeops.app import App
from claudeops.cli.group import build_cli
from claudeops.exit_codes import EXIT_FAILED, EXIT_NEWER_DATABASE, EXIT_OK
from claudeops.session_rows import CORE_MIGRATIONS
from claudeops.store import close_store, db

CORE_ONLY = ("claudeops.environment", "claudeops.escalation")
WITH_EVENTS = (*CORE_ONLY, "claudeops_events")


@pytest.fixture(autouse=True)
def credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every other check passes, so the exit code is the database's and the disk's."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")


def load(state_dir: Path, builtins: tuple[str, ...] = CORE_ONLY) -> App:
    return App.load(None, {"CLAUDEOPS_STATE_DIR": str(state_dir)}, entry_points=False, builtins=builtins)


def doctor(app: App, *args: str) -> tuple[int, dict[str, list[str]]]:
    """Doctor's exit code and its lines by check name (``{"database": ["ok   database: …"]}``)."""
    result = CliRunner().invoke(build_cli(app), ["doctor", *args], catch_exceptions=False)
    close_store()
    lines: dict[str, list[str]] = {}
    for line in result.output.splitlines():
        lines.setdefault(line[5:].partition(":")[0], []).append(line)
    return result.exit_code, lines


def migrated(state_dir: Path, builtins: tuple[str, ...] = CORE_ONLY) -> None:
    load(state_dir, builtins).open_store()
    close_store()


def record_migration(state_dir: Path, owner: str, name: str) -> None:
    """What a newer claudeops (or plugin) would have left in the migrations table."""
    load(state_dir).open_store(migrate=False)
    db.execute_sql("INSERT INTO claudeops_migrations (owner, name, applied_at) VALUES (?, ?, ?)",
                   (owner, name, "2030-01-01T00:00:00Z"))
    close_store()


def test_a_fresh_state_dir_passes_and_is_left_as_it_was(tmp_path):
    state_dir = tmp_path / "fresh"
    code, lines = doctor(load(state_dir))
    assert code == EXIT_OK
    assert lines["state dir"] == [f"ok   state dir: {state_dir} does not exist yet; the first run creates it "
                                  f"({tmp_path} is writable)"]
    assert lines["database"] == [f"ok   database: sqlite:///{state_dir}/claudeops.db does not exist yet; the first "
                                 "command that needs it creates and migrates it (or `claudeops doctor --fix` now)"]
    assert not state_dir.exists()  # no empty database (nor folder) left behind


def test_doctor_fix_creates_and_migrates_the_database(tmp_path):
    state_dir = tmp_path / "fresh"
    code, lines = doctor(load(state_dir), "--fix")
    assert code == EXIT_OK and lines["database"][0].startswith(f"ok   database: sqlite:///{state_dir}/claudeops.db: "
                                                               f"applied {len(CORE_MIGRATIONS)} migrations")
    assert doctor(load(state_dir))[1]["database"] == [
        f"ok   database: sqlite:///{state_dir}/claudeops.db is reachable and migrated"]


def test_pending_migrations_are_a_note_not_a_failure(tmp_path):
    migrated(tmp_path / "s")  # the core's; the events plugin's are pending
    code, lines = doctor(load(tmp_path / "s", WITH_EVENTS))
    assert code == EXIT_OK
    pending = counted(len(EVENT_MIGRATIONS), "migration")
    assert lines["database"] == [f"ok   database: sqlite:///{tmp_path}/s/claudeops.db is reachable; {pending} "
                                 "pending, applied by the next command that opens it (or `claudeops doctor --fix` now)"]


def test_a_database_from_a_newer_claudeops_fails_doctor_with_its_own_exit_code(tmp_path):
    migrated(tmp_path / "s")
    record_migration(tmp_path / "s", "core", "0099_from_the_future")
    code, lines = doctor(load(tmp_path / "s"))
    assert code == EXIT_NEWER_DATABASE
    [line] = lines["database"]
    assert line.startswith(f"FAIL database: the database sqlite:///{tmp_path}/s/claudeops.db was written by a newer "
                           "claudeops: it has migration core/0099_from_the_future, which claudeops ")


def test_migrations_of_a_plugin_not_loaded_are_a_note(tmp_path):
    migrated(tmp_path / "s", WITH_EVENTS)
    code, lines = doctor(load(tmp_path / "s"))  # the events plugin disabled or uninstalled since
    assert code == EXIT_OK
    assert lines["database"][1] == (f"ok   database: {counted(len(EVENT_MIGRATIONS), 'migration')} of 'events', a "
                                    "plugin not loaded (disabled or not installed), left alone")


def test_a_plugins_migrations_under_their_former_owner_name_are_not_mistaken_for_newer_ones(tmp_path):
    """Before core migration 0004 the events plugin recorded its steps as ``claudeops_events``."""
    migrated(tmp_path / "s", WITH_EVENTS)
    load(tmp_path / "s").open_store(migrate=False)
    db.execute_sql("UPDATE claudeops_migrations SET owner = 'claudeops_events' WHERE owner = 'events'")
    db.execute_sql("DELETE FROM claudeops_migrations WHERE owner = 'core' AND name = '0004_owners_named_by_section'")
    close_store()
    assert doctor(load(tmp_path / "s", WITH_EVENTS))[0] == EXIT_OK
    record_migration(tmp_path / "s", "claudeops_events", "0099_from_the_future")
    code, lines = doctor(load(tmp_path / "s", WITH_EVENTS))
    assert code == EXIT_NEWER_DATABASE and "migration events/0099_from_the_future" in lines["database"][0]


def test_low_free_space_in_the_state_dir_fails_doctor(small_disk):
    env = {**os.environ, "CLAUDEOPS_STATE_DIR": str(small_disk.path / "state"), "ANTHROPIC_API_KEY": "sk-test"}
    result = small_disk.run([sys.executable, "-m", "claudeops", "doctor"], env=env)
    [line] = [line for line in result.stdout.splitlines() if line.startswith("FAIL")]
    assert line.startswith(f"FAIL disk space: only 2.0 MiB free in {small_disk.path}, less than 100.0 MiB")
    assert result.returncode == EXIT_FAILED


def test_the_free_space_line_says_how_much_there_is(tmp_path):
    code, lines = doctor(load(tmp_path / "s"))
    [line] = lines["disk space"]
    assert line.startswith("ok   disk space: ") and line.endswith(f" free in {tmp_path}")
    assert code == EXIT_OK
