"""A throwaway PostgreSQL server for the ``postgres`` tests, started from Debian's binaries.

The ``postgres_url`` fixture (``tests/conftest.py``) starts one per test session, or uses the
server ``CLAUDEOPS_TEST_POSTGRES_URL`` points at. Without either, the tests are skipped on a
developer machine and fail under CI (``CI=true``), where .ci/setup installs the ``postgresql``
package: a database we claim to support is never silently untested.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

STARTUP_SECONDS = 60


def find_pg_bin() -> Path | None:
    """The newest Debian PostgreSQL server binary directory, if one is installed."""
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda path: int(path.split("/")[4]))
    return Path(candidates[-1]).parent if candidates else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _as_server_user(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root; as root, run it as the ``postgres`` account."""
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", "postgres", "--", *command]


def _make_owned_by_server_user(path: Path) -> None:
    if os.geteuid() == 0:
        account = pwd.getpwnam("postgres")
        for item in (path, *path.rglob("*")):
            os.chown(item, account.pw_uid, account.pw_gid)


@contextlib.contextmanager
def temporary_postgres(base: Path) -> Iterator[str]:
    """Start a private cluster on 127.0.0.1 under ``base``; yield its URL; stop it afterwards."""
    bin_dir = find_pg_bin()
    if bin_dir is None:
        raise FileNotFoundError("PostgreSQL server binaries not found (apt-get install postgresql)")
    base.mkdir(parents=True, exist_ok=True)
    base.chmod(0o777)
    _make_owned_by_server_user(base)
    data, port = base / "data", free_port()
    subprocess.run(_as_server_user([str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
                                    "--no-sync"]), check=True, capture_output=True, timeout=STARTUP_SECONDS)
    options = f"-k {base} -p {port} -c listen_addresses=127.0.0.1 -c fsync=off"
    subprocess.run(_as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l",
                                    str(base / "server.log"), "-w", "-t", str(STARTUP_SECONDS), "start"]),
                   check=True, capture_output=True, timeout=STARTUP_SECONDS + 10)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_server_user([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
                       capture_output=True, timeout=STARTUP_SECONDS)
        shutil.rmtree(base, ignore_errors=True)


def empty_public_schema(url: str) -> None:
    """Drop everything in the ``public`` schema of the database at ``url`` (tests share one server)."""
    import psycopg2  # the postgres extra: imported only by the tests that use a server

    with contextlib.closing(psycopg2.connect(url)) as connection:
        connection.autocommit = True
        with connection.cursor() as cursor:
            cursor.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
