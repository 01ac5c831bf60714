"""Fixtures for the whole suite: isolation from the developer's machine, and the servers tests
share across subjects (the fake Messages API, an HTTP receiver for notifications and pings, a
private PostgreSQL).

Fixtures live only in ``conftest.py`` files: this one for what several subjects use, one per
subject folder for the rest (see docs/testing.md). Apps are built with the ``claudeops.testing``
fixtures the project ships for plugin authors.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from fake_api import FakeAPI
from http_receiver import HTTPReceiver
from postgres_server import empty_public_schema, find_pg_bin, temporary_postgres

from claudeops.redaction import use_secret_settings


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
    use_secret_settings([])  # the secret settings of the app of an earlier test are not this test's


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


@dataclass(frozen=True)
class SmallDisk:
    """A real, small filesystem for one test: a tmpfs of ``size`` mounted on ``path``.

    It exists only inside a private mount namespace (``unshare --mount --map-root-user``, which
    needs no root), so commands that should see it run through :meth:`run`, and nothing on the
    host is ever mounted or left behind. The test process itself sees ``path`` as the empty
    folder the tmpfs covers.
    """

    path: Path
    size: str

    def run(self, argv: Sequence[str], *, env: dict[str, str] | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
        script = 'mount -t tmpfs -o "size=$1" tmpfs "$2" && shift 2 && exec "$@"'
        return subprocess.run(["unshare", "--mount", "--map-root-user", "sh", "-c", script, "sh", self.size,
                               str(self.path), *argv], env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def small_disk(tmp_path_factory: pytest.TempPathFactory) -> SmallDisk:
    """A 2 MiB tmpfs for commands run through ``small_disk.run`` (see :class:`SmallDisk`), one per test
    module: a full-disk story is told once and its steps asserted by several tests."""
    disk = SmallDisk(tmp_path_factory.mktemp("small-disk"), "2m")
    if shutil.which("unshare") is None:
        pytest.skip("unshare (util-linux) is not installed: no private tmpfs for a full-disk test")
    probe = disk.run(["true"])
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a private tmpfs here (user namespaces off?): {probe.stderr.strip()}")
    return disk


HOLD_THE_WRITE_LOCK = """
import sqlite3, sys, time
other = sqlite3.connect(sys.argv[1], isolation_level=None)
other.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
other.execute("COMMIT")
"""


@pytest.fixture
def short_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> float:
    """SQLite's busy timeout of the databases opened from now on, cut from 5 s to 0.1 s, so a test holds
    the write lock past it (the case a run must wait out) without waiting 5 s."""
    monkeypatch.setattr("claudeops.store.BUSY_TIMEOUT_SECONDS", 0.1)
    return 0.1


@pytest.fixture
def hold_write_lock(claudeops_state_dir: Path) -> Iterator[Callable[[float], subprocess.Popen[str]]]:
    """Factory: ``hold_write_lock(seconds)`` makes another process (an operator's ``sqlite3`` shell, a
    dashboard edit, a run) hold the write lock of the test app's database for ``seconds``, from now."""
    holders: list[subprocess.Popen[str]] = []

    def hold(seconds: float) -> subprocess.Popen[str]:
        holder = subprocess.Popen([sys.executable, "-c", HOLD_THE_WRITE_LOCK, str(claudeops_state_dir / "claudeops.db"),
                                   str(seconds)], stdout=subprocess.PIPE, text=True)
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        holders.append(holder)
        return holder

    yield hold
    for holder in holders:
        holder.kill()
        holder.wait()
