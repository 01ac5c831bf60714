"""Fixtures for the whole suite: isolation from the developer's machine, and the servers tests
share across subjects (the fake Messages API, an HTTP receiver for notifications and pings, a
private PostgreSQL).

Fixtures live only in ``conftest.py`` files: this one for what several subjects use, one per
subject folder for the rest (see docs/testing.md). Apps are built with the ``claudeops.testing``
fixtures the project ships for plugin authors.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fake_api import FakeAPI
from http_receiver import HTTPReceiver
from postgres_server import empty_public_schema, find_pg_bin, temporary_postgres


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs in an empty working directory with its own state dir and no CLAUDEOPS_*."""
    for name in list(os.environ):
        if name.startswith("CLAUDEOPS_") or name.startswith("ANTHROPIC_"):
            monkeypatch.delenv(name)
    state = tmp_path / "state"
    monkeypatch.setenv("CLAUDEOPS_STATE_DIR", str(state))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)


@pytest.fixture
def fake_api(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeAPI]:
    """A running fake Messages API, with this process's environment pointed at it (and an isolated HOME)."""
    api = FakeAPI().start()
    home = tmp_path / "home"
    home.mkdir()
    for name, value in api.env(home).items():
        monkeypatch.setenv(name, value)
    yield api
    api.close()


@pytest.fixture
def http_receiver() -> Iterator[HTTPReceiver]:
    """A real HTTP server on 127.0.0.1 recording what claudeops sends (notifications, pings)."""
    receiver = HTTPReceiver().start()
    yield receiver
    receiver.close()


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """URL of a PostgreSQL server for this test session (see ``postgres_server``)."""
    given = os.environ.get("CLAUDEOPS_TEST_POSTGRES_URL")
    if given:
        yield given
        return
    if find_pg_bin() is None:
        message = "PostgreSQL is not installed (apt-get install postgresql, or set CLAUDEOPS_TEST_POSTGRES_URL)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    # Not under tmp_path: pytest's temp root is private to root, and the server runs as ``postgres``.
    with temporary_postgres(Path(tempfile.mkdtemp(prefix="claudeops-pg-"))) as url:
        yield url


@pytest.fixture
def empty_postgres_url(postgres_url: str) -> str:
    """``postgres_url`` with its ``public`` schema emptied, so the test's migrations start from nothing."""
    empty_public_schema(postgres_url)
    return postgres_url
