"""The memories' change stamp (migration ``015_memory_change_stamp``): what the dashboard keeps while it
stays the same must be read anew after any write to the memories, their flags or decay ledger, whoever
writes —
here another process with a plain ``sqlite3`` connection, as an operator's shell would — and only
then: a run committing its events and sessions leaves it alone."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from claudeops_memory import repository
from claudeops_memory.change_stamp import by_memories, memory_stamp
from memory_helpers import LoadedApp

from claudeops import db

WRITE = "import sqlite3, sys; connection = sqlite3.connect(sys.argv[1]); connection.execute(sys.argv[2]); " \
        "connection.commit()"
NOW = "2026-03-01T12:00:00Z"


def write_from_another_process(app: LoadedApp, statement: str) -> None:
    subprocess.run([sys.executable, "-c", WRITE, str(Path(app.app.state_dir) / "claudeops.db"), statement],
                   check=True)


@pytest.fixture
def one_memory(memory_app: LoadedApp) -> int:
    with db.connection_context():
        return repository.create_memory(category="timing", observation="Jellyfin takes 30 s to start",
                                        service="jellyfin", confidence=0.8, session_id=None).id


@pytest.mark.parametrize("statement", [
    "INSERT INTO memories (category, observation, confidence, active, created_at, updated_at, tier) "
    f"VALUES ('behavior', 'written in a shell', 0.5, 1, '{NOW}', '{NOW}', 1)",
    "UPDATE memories SET observation = 'edited in a shell'",
    "UPDATE memories SET confidence = 0.9",
    "UPDATE memories SET active = 0",
    "DELETE FROM memories",
    f"INSERT INTO memory_flags (memory_id, reason, flagged_at) SELECT id, 'reads as an order', '{NOW}' FROM memories",
    f"INSERT OR REPLACE INTO memory_decay (memory_id, base_updated_at, weeks_applied) SELECT id, '{NOW}', 3 "
    "FROM memories",
])
def test_a_write_to_the_memories_by_another_process_moves_the_stamp(memory_app: LoadedApp, one_memory: int,
                                                                     statement: str) -> None:
    with db.connection_context():
        before = memory_stamp()
        write_from_another_process(memory_app, statement)
        assert memory_stamp() != before


def test_a_flag_taken_back_moves_the_stamp(memory_app: LoadedApp, one_memory: int) -> None:
    write_from_another_process(memory_app, f"INSERT INTO memory_flags VALUES ({one_memory}, 'an order', '{NOW}')")
    with db.connection_context():
        before = memory_stamp()
        write_from_another_process(memory_app, "DELETE FROM memory_flags")
        assert memory_stamp() != before


def test_a_write_elsewhere_leaves_the_stamp_and_what_was_kept(memory_app: LoadedApp, one_memory: int) -> None:
    """A run records sessions and events many times a minute: the memories table stays kept."""
    reads = []

    def listed() -> list[str]:
        reads.append(1)
        return [memory.observation for memory in repository.list_memories()]

    with db.connection_context():
        before = memory_stamp()
        assert by_memories.get("stamp test", listed) == ["Jellyfin takes 30 s to start"]
        write_from_another_process(memory_app, "CREATE TABLE elsewhere (value TEXT)")
        write_from_another_process(memory_app, "INSERT INTO elsewhere VALUES ('an event')")
        assert memory_stamp() == before
        assert by_memories.get("stamp test", listed) == ["Jellyfin takes 30 s to start"]
        assert len(reads) == 1
        write_from_another_process(memory_app, "UPDATE memories SET observation = 'Jellyfin takes 45 s'")
        assert by_memories.get("stamp test", listed) == ["Jellyfin takes 45 s"]
        assert len(reads) == 2


def test_duplicate_pairs_are_scored_again_once_another_process_adds_a_near_duplicate(memory_app: LoadedApp,
                                                                                     one_memory: int) -> None:
    """The scored pairs (a second at 100k) are kept while the memories stay the same, and only then."""
    from claudeops_memory.review import duplicate_pairs

    with db.connection_context():
        assert duplicate_pairs(90) == []
        write_from_another_process(
            memory_app, "INSERT INTO memories (service, category, observation, confidence, active, created_at, "
            f"updated_at, tier) VALUES ('jellyfin', 'timing', 'jellyfin takes 30 s to start', 0.5, 1, '{NOW}', "
            f"'{NOW}', 1)")
        [(first, second, score)] = duplicate_pairs(90)
    assert (first.id, second.observation, score) == (one_memory, "jellyfin takes 30 s to start", 100)
