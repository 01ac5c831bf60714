"""Issue 12 item 7: two runners recording the same new fact at once leave one row.

Two threads with their own connections play two cron runners on one database. A judge that makes
both wait for each other guarantees that both have read the candidates and judged them — outside
the write transaction — before either writes: exactly the moment a duplicate used to be born.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from claudeops_memory import repository
from claudeops_memory.history import memory_history
from memory_helpers import LoadedApp

from claudeops import hookimpl
from claudeops.session import Session
from claudeops.store import db

NEW_FACT = "[MEMORY:timing:jellyfin] Takes 90s to start since the upgrade"


class RendezvousJudge:
    """Answers ``distinct`` about the existing memory, once both runners have asked."""

    def __init__(self) -> None:
        self.both_judging = threading.Barrier(2, timeout=20)

    @hookimpl
    def judge_memory_relation(self, existing: str) -> str:
        if existing == "Library scans run nightly":
            self.both_judging.wait()
        return "distinct"


def _record_at_once(memory_app: LoadedApp, sessions: list[Session]) -> None:
    errors: list[BaseException] = []

    def runner(session: Session) -> None:
        try:
            with db.connection_context():  # this thread's own connection
                memory_app.handle(session, NEW_FACT)
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=runner, args=(session,)) for session in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []


def _two_runners_leave_one_row(memory_app: LoadedApp) -> None:
    memory_app.app.pm.register(RendezvousJudge(), name="rendezvous-judge")
    memory_app.remember("Library scans run nightly", service="jellyfin")
    sessions = [memory_app.started(), memory_app.started()]

    _record_at_once(memory_app, sessions)

    [fact] = [memory for memory in repository.list_memories() if memory.observation.startswith("Takes 90s")]
    assert fact.confidence == 0.8  # the second runner's observation reinforced the first's
    [created, reinforced] = memory_history(fact.id)
    assert (created.kind, reinforced.kind, reinforced.decided_by) == ("created", "reinforced", "exact repeat")
    assert {created.session_id, reinforced.session_id} == {session.id for session in sessions}


def test_two_runners_recording_the_same_new_fact_leave_one_row_on_sqlite(memory_app: LoadedApp) -> None:
    _two_runners_leave_one_row(memory_app)


@pytest.mark.postgres
def test_two_runners_recording_the_same_new_fact_leave_one_row_on_postgresql(
        load_memory_app: Callable[..., LoadedApp], empty_postgres_url: str) -> None:
    _two_runners_leave_one_row(load_memory_app(CLAUDEOPS_DATABASE_URL=empty_postgres_url))
