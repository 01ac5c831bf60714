"""What a session start does to memory, and a preview of it that keeps nothing.

A session first applies the staleness decay due now and only then plans its memory block, so
decay decides which memories qualify and with what confidence. ``claudeops memories context``
must print exactly that block; a preview that skipped decay would show a stale memory no
session would get. So both run :func:`start_memory`, and the preview runs it inside a
transaction it rolls back: the very same statements, on SQLite and PostgreSQL alike, and no
second formula for decayed confidences that could drift from the real one. On SQLite the
preview, like a session start, briefly holds the write lock.
"""

from __future__ import annotations

from dataclasses import dataclass

from claudeops import db
from claudeops_memory.context import MemoryContext, plan_memory_context
from claudeops_memory.decay import DecayResult, decay_stale_memories
from claudeops_memory.settings import MemorySettings


@dataclass(frozen=True)
class MemoryStart:
    """The decay a session start applied and the block it then planned."""

    decay: DecayResult
    context: MemoryContext


def start_memory(settings: MemorySettings, now: str) -> MemoryStart:
    """Decay stale memories at ``now``, then plan the block: what every session start does."""
    decay = decay_stale_memories(now, grace_days=settings.grace_days, decay_per_week=settings.decay_per_week,
                                 min_confidence=settings.min_confidence)
    return MemoryStart(decay, plan_memory_context(settings.budget_tokens, settings.min_confidence,
                                                  settings.ledger_cut_limit))


def preview_memory_start(settings: MemorySettings, now: str) -> MemoryStart:
    """What :func:`start_memory` would do at ``now``, with every change rolled back."""
    with db.atomic() as transaction:
        start = start_memory(settings, now)
        transaction.rollback()
    return start
