"""Memories held back for an operator: why each was flagged, and the rules that keep it inactive.

A memory marker whose text reads as an instruction to the agent (:func:`claudeops.find_directives`)
is stored, but inactive, with a row here saying why; SPEC-0015's injection rules (only active
memories are injected) then keep it out of every prompt. The ``memories`` table keeps exactly
the spec's columns: the note lives in ``memory_flags``, one row per flagged memory, deleted with
it.

A flagged memory becomes active only when an operator activates it explicitly (``memories edit
ID --active``, ``"active": true`` in the API, the dashboard's Activate button), which removes
the flag; a confidence change alone, a bulk adjustment or the agent recording the same text
again leaves it inactive. What a review queue lists: :func:`list_flagged`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import peewee

from claudeops import BaseModel, db, is_row_id, portable_sql
from claudeops_memory.models import Memory, MemoryRecord

FLAGS_TABLE = """\
CREATE TABLE memory_flags (
    memory_id INTEGER PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
    reason TEXT NOT NULL,
    flagged_at TEXT NOT NULL
)"""


class MemoryFlag(BaseModel):
    """Why a memory is held back (``reason``, one line) and since when."""

    memory_id = peewee.IntegerField(primary_key=True)
    reason = peewee.TextField()
    flagged_at = peewee.TextField()

    class Meta:
        table_name = "memory_flags"


@dataclass(frozen=True)
class FlaggedMemory:
    """A flagged memory and its note, for a review queue."""

    memory: MemoryRecord
    reason: str
    flagged_at: str


NOT_FLAGGED_SQL = "id NOT IN (SELECT memory_id FROM memory_flags)"
"""A ``WHERE`` term for hand-written statements: only memories without a flag."""


def flag_memory(memory_id: int, reason: str, now: str) -> None:
    """Record why ``memory_id``, just stored, is held back (the caller keeps it inactive, in the same
    transaction)."""
    MemoryFlag.insert(memory_id=memory_id, reason=reason, flagged_at=now).execute()


def unflag_memory(memory_id: int) -> bool:
    """An operator activated the memory: its flag goes. Whether there was one."""
    return bool(MemoryFlag.delete().where(MemoryFlag.memory_id == memory_id).execute())


def flag_reasons(ids: Iterable[int]) -> dict[int, str]:
    """The flag notes of those of ``ids`` that are flagged."""
    wanted = [memory_id for memory_id in set(ids) if is_row_id(memory_id)]
    reasons: dict[int, str] = {}
    for chunk in peewee.chunked(wanted, 500):  # hand-written: a dashboard page asks on every read of its rows
        statement = f"SELECT memory_id, reason FROM memory_flags WHERE memory_id IN ({', '.join('?' * len(chunk))})"
        reasons.update(db.execute_sql(portable_sql(statement), chunk).fetchall())
    return reasons


def is_flagged(memory_id: int) -> bool:
    return is_row_id(memory_id) and MemoryFlag.select().where(MemoryFlag.memory_id == memory_id).exists()


def list_flagged() -> list[FlaggedMemory]:
    """Every flagged memory with its note, oldest flag first: what an operator has to look at."""
    notes = {flag.memory_id: flag for flag in MemoryFlag.select()}
    memories = Memory.select().where(Memory.id.in_(MemoryFlag.select(MemoryFlag.memory_id)))
    flagged = [FlaggedMemory(MemoryRecord.from_model(row), notes[row.id].reason, notes[row.id].flagged_at)
               for row in memories]
    return sorted(flagged, key=lambda item: (item.flagged_at, item.memory.id))
