"""``claudeops.cached``: an answer is kept while the data is unchanged, once for every thread of the
process, and every change is seen — one of this connection, of another connection, of another
process, a database file put in place of the one opened — as is the passing of time for answers
keyed by ``time_bucket``."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import claudeops.data_cache
from claudeops import StampedCache, cached, data_stamp, time_bucket
from claudeops.app import App
from claudeops.store import ConnectionPerThread, close_store, db, open_store


@pytest.fixture
def database(claudeops_state_dir: Path) -> Path:
    """A store whose threads keep their connection, as ``claudeops web`` opens it, with one table to count."""
    path = claudeops_state_dir / "claudeops.db"
    open_store(f"sqlite:///{path}", connection_per_thread=True)
    assert isinstance(db.obj, ConnectionPerThread)
    with db.connection_context():
        db.execute_sql("CREATE TABLE things (name TEXT)")
    yield path
    close_store()


class Reader:
    """Counts the things, and how often it really read them."""

    def __init__(self) -> None:
        self.reads = 0

    def __call__(self) -> int:
        self.reads += 1
        return int(db.execute_sql("SELECT count(*) FROM things").fetchone()[0])

    def ask(self, key: str = "things") -> int:
        with db.connection_context():
            return cached(key, self)


def test_an_unchanged_answer_is_read_once(database: Path) -> None:
    reader = Reader()
    assert [reader.ask() for _ in range(5)] == [0] * 5
    assert reader.reads == 1
    assert reader.ask("another question") == 0 and reader.reads == 2


def test_a_write_of_the_same_connection_is_seen(database: Path) -> None:
    reader = Reader()
    assert reader.ask() == 0
    with db.connection_context():  # this thread's kept connection: data_version does not move for it
        db.execute_sql("INSERT INTO things VALUES ('one')")
    assert reader.ask() == 1


def test_a_write_of_another_connection_is_seen(database: Path) -> None:
    reader = Reader()
    assert reader.ask() == 0
    with sqlite3.connect(database) as other:
        other.execute("INSERT INTO things VALUES ('one')")
    assert reader.ask() == 1
    worker = threading.Thread(target=lambda: (db.connect(), db.execute_sql("INSERT INTO things VALUES ('two')"),
                                              db.close()))
    worker.start()
    worker.join()
    assert reader.ask() == 2


def test_a_write_of_another_process_is_seen(database: Path) -> None:
    reader = Reader()
    assert reader.ask() == 0
    subprocess.run([sys.executable, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                    "c.execute(\"INSERT INTO things VALUES ('one')\"); c.commit()", str(database)], check=True)
    assert reader.ask() == 1


def test_a_database_put_in_place_of_the_open_one_is_read(database: Path, tmp_path: Path) -> None:
    """A backup restored over the file: the kept connection would still read the old inode."""
    reader = Reader()
    assert reader.ask() == 0
    restored = tmp_path / "restored.db"
    shutil.copy(database, restored)
    other = sqlite3.connect(restored)
    with other:
        other.executemany("INSERT INTO things VALUES (?)", [("a",), ("b",), ("c",)])
    other.close()  # the last connection folds its WAL into the file
    restored.replace(database)
    assert reader.ask() == 3


def test_time_keyed_answers_last_one_bucket(database: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reader = Reader()
    now = ["2026-11-25T06:00:01Z"]
    monkeypatch.setattr(claudeops.data_cache, "now_timestamp", lambda: now[0])

    def ask() -> int:
        with db.connection_context():
            return cached(("things", time_bucket(5)), reader)

    ask(), ask()
    now[0] = "2026-11-25T06:00:04Z"
    ask()
    assert reader.reads == 1
    now[0] = "2026-11-25T06:00:05Z"
    ask()
    assert reader.reads == 2


def test_one_answer_serves_every_thread_of_the_process(database: Path) -> None:
    """A costly answer (the review queue: seconds at 100k) is computed once, not once per worker thread."""
    reader = Reader()
    assert reader.ask() == 0
    answers: list[int] = []
    workers = [threading.Thread(target=lambda: answers.append(reader.ask())) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert answers == [0] * 4 and reader.reads == 1


def test_an_answer_is_given_back_to_its_owner_only(database: Path) -> None:
    """Two applications in one process (tests, plugins) with other settings never share an answer."""
    reader, first, second = Reader(), object(), object()
    with db.connection_context():
        assert [cached("things", reader, owner=first), cached("things", reader, owner=second),
                cached("things", reader, owner=second)] == [0, 0, 0]
    assert reader.reads == 2


def test_nothing_is_kept_without_a_stamp(claudeops_state_dir: Path) -> None:
    """An in-memory database (like PostgreSQL, no stamp): every call computes."""
    open_store("sqlite:///:memory:")
    try:
        assert data_stamp() is None
        reader = Reader()
        db.execute_sql("CREATE TABLE things (name TEXT)")
        assert [cached("things", reader) for _ in range(3)] == [0, 0, 0]
        assert reader.reads == 3
    finally:
        close_store()


def test_a_cache_with_a_stamp_of_its_own_reads_again_only_when_that_stamp_moves() -> None:
    """``StampedCache``: a plugin keeps answers read from its own tables while their stamp stays, whatever
    else is committed; an answer computed while the stamp moved is not kept; no stamp, nothing kept."""
    stamp: list[int | None] = [1]
    reads: list[int] = []

    def read() -> int:
        reads.append(1)
        if len(reads) == 2:
            stamp[0] = 3  # a write lands while the answer is being computed
        return len(reads)

    cache = StampedCache(lambda: stamp[0])
    assert [cache.get("answer", read) for _ in range(3)] == [1, 1, 1]
    stamp[0] = 2
    assert cache.get("answer", read) == 2  # computed while the stamp moved to 3: given, not kept
    assert cache.get("answer", read) == 3
    assert cache.get("answer", read) == 3
    stamp[0] = None
    assert [cache.get("answer", read) for _ in range(2)] == [4, 5]


def test_a_kept_connection_serves_the_next_use_of_its_thread(database: Path) -> None:
    """``claudeops web`` opens the database once per worker thread, not per request."""
    with db.connection_context():
        first = db.connection()
    with db.connection_context():
        assert db.connection() is first


def test_an_app_opens_kept_connections_only_when_asked(make_claudeops_app: type[App]) -> None:
    make_claudeops_app()
    assert not isinstance(db.obj, ConnectionPerThread)
