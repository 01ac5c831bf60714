"""A run that fails before its first session still pings ``/fail`` with its one-line reason (audit of
issue 17, item 5): no credentials, a database that cannot be opened or reached, a database a newer
claudeops wrote. A lock held by another live run is no failure of the schedule: that run pings
for itself, so the refused one sends nothing (docs/notifications.md § Dead-man's switch).

Through the real command line in this process (``main``), which maps each failure to its exit code.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
from http_receiver import HTTPReceiver

from claudeops.exit_codes import EXIT_FAILED, EXIT_LOCKED, EXIT_NEWER_DATABASE, EXIT_OK, EXIT_USAGE
from claudeops.runner.lock import RunLock

CHECK = "/ping/7d1e0c44-not-started"


@pytest.fixture(autouse=True)
def pinged(http_receiver: HTTPReceiver, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAUDEOPS_HEALTH_PING_URL", http_receiver.base_url + CHECK)
    monkeypatch.setenv("CLAUDEOPS_HEALTH_TIMEOUT_SECONDS", "2")
    monkeypatch.setenv("CLAUDEOPS_LOCK_PATIENCE_SECONDS", "0")
    for name in ("CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"):
        monkeypatch.delenv(name, raising=False)


def pings(receiver: HTTPReceiver) -> list[tuple[str, str, str]]:
    return [(request.method, request.path.split("?")[0], request.body) for request in receiver.requests()]


def the_fail_ping(receiver: HTTPReceiver, stderr: str) -> str:
    """The one ping sent: a ``/fail`` whose body is the line the operator saw."""
    [(method, path, body)] = pings(receiver)
    assert (method, path) == ("POST", f"{CHECK}/fail")
    assert body and "\n" not in body and body in stderr
    return body


def test_a_run_without_credentials_pings_fail(http_receiver, run_claudeops):
    code, _, stderr = run_claudeops("run", "--tier", "1")
    assert code == EXIT_USAGE, stderr
    assert "ANTHROPIC_API_KEY" in the_fail_ping(http_receiver, stderr)


def test_a_database_that_cannot_be_opened_pings_fail(http_receiver, fake_api, run_claudeops, tmp_path, monkeypatch):
    folder = tmp_path / "a-folder-not-a-database"
    folder.mkdir()
    monkeypatch.setenv("CLAUDEOPS_DATABASE_URL", f"sqlite:///{folder}")
    code, _, stderr = run_claudeops("run", "--tier", "1")
    assert code == EXIT_FAILED, stderr
    assert "database" in the_fail_ping(http_receiver, stderr)


def test_a_database_server_that_cannot_be_reached_pings_fail(http_receiver, fake_api, run_claudeops, monkeypatch):
    monkeypatch.setenv("CLAUDEOPS_DATABASE_URL", "postgresql://claudeops@127.0.0.1:9/claudeops")
    code, _, stderr = run_claudeops("run", "--tier", "1")
    assert code == EXIT_FAILED, stderr
    assert "database" in the_fail_ping(http_receiver, stderr)


def test_a_database_a_newer_claudeops_wrote_pings_fail(http_receiver, fake_api, run_claudeops):
    assert run_claudeops("db", "migrate").code == EXIT_OK
    with sqlite3.connect(Path(os.environ["CLAUDEOPS_STATE_DIR"]) / "claudeops.db") as connection:
        connection.execute("INSERT INTO claudeops_migrations (owner, name, applied_at) "
                           "VALUES ('core', '9999_from_the_future', '2030-01-01T00:00:00Z')")
    code, _, stderr = run_claudeops("run", "--tier", "1")
    assert code == EXIT_NEWER_DATABASE, stderr
    assert "newer claudeops" in the_fail_ping(http_receiver, stderr)
    assert fake_api.messages() == []


def test_a_lock_held_by_a_live_run_sends_no_ping(http_receiver, fake_api, run_claudeops):
    state_dir = Path(os.environ["CLAUDEOPS_STATE_DIR"])
    state_dir.mkdir(parents=True, exist_ok=True)
    with RunLock(state_dir):
        code, _, stderr = run_claudeops("run", "--tier", "1")
    assert code == EXIT_LOCKED, stderr
    assert pings(http_receiver) == [] and fake_api.messages() == []


def test_a_lock_file_that_cannot_be_opened_pings_fail(http_receiver, fake_api, run_claudeops):
    state_dir = Path(os.environ["CLAUDEOPS_STATE_DIR"])
    (state_dir / "run.lock").mkdir(parents=True)  # a folder where the lock file belongs
    code, _, stderr = run_claudeops("run", "--tier", "1")
    assert code == EXIT_FAILED, stderr
    assert "cannot open the run lock" in the_fail_ping(http_receiver, stderr)
