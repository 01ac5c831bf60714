"""What a session start does to memory, and a preview of it that writes nothing.

A session first applies the staleness decay due now and only then plans its memory block, so
decay decides which memories qualify and with what confidence (:func:`start_memory`).

``claudeops memories context`` must print exactly that block without changing anything and
without redoing the decay (on a million memories no session decayed for a week that would be
hundreds of thousands of rows). :func:`preview_memory_context` therefore plans the block from the
table *as decay would leave it*, computed only where the block needs it, with the very formula the
decay run applies (:func:`~claudeops_memory.decay_outlook.outlook`):

* **Who qualifies.** Decay only lowers. The memories it would take under the floor now are those
  whose stored ``floor_at`` has come (an index range), plus those not scheduled yet (``''``: written
  since the last run, read one by one); the total is today's count minus them.
* **In which order.** Rows are read in today's order; a memory decay would lower is held back in
  a heap under its new confidence and released once no later row can outrank it (a later row's
  confidence after decay is at most its confidence today). Reading stops when the block is full.

When the stored schedule belongs to another policy (the settings changed since the last run), every
memory is read as unscheduled: correct, and as slow as a full decay, once.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from claudeops import db, portable_sql
from claudeops_memory.context import ContextRow, MemoryContext, plan_from_rows, plan_memory_context
from claudeops_memory.decay import DecayResult, decay_stale_memories, schedule_is_current
from claudeops_memory.decay_outlook import Cutoffs, DecayInputs, outlook
from claudeops_memory.decay_policy import DecayPolicy
from claudeops_memory.settings import MemorySettings

PREVIEW_COLUMNS = ("m.id, m.service, m.category, m.observation, m.confidence, m.updated_at, m.pinned_at, "
                   "m.unpinned_at, m.decay_due_at, d.base_updated_at, d.weeks_applied")
PREVIEW_FROM = "FROM memories m LEFT JOIN memory_decay d ON d.memory_id = m.id WHERE m.active = 1 AND m.confidence >= ?"
PREVIEW_SQL = f"SELECT {PREVIEW_COLUMNS} {PREVIEW_FROM} ORDER BY m.confidence DESC, m.id DESC LIMIT ? OFFSET ?"
UNSCHEDULED_SQL = (f"SELECT {PREVIEW_COLUMNS} FROM memories m LEFT JOIN memory_decay d ON d.memory_id = m.id "
                   "WHERE m.decay_due_at = '' AND +m.active = 1 AND +m.confidence >= ?")
"""The memories written since the last decay run: found through ``idx_memories_decay_due`` (the unary
``+`` keeps the planner off the confidence index, which would walk every qualifying memory)."""
QUALIFYING_COUNT_SQL = "SELECT COUNT(*) FROM memories WHERE active = 1 AND confidence >= ?"
FALLING_SQL = "SELECT COUNT(*) FROM memories WHERE floor_at > '' AND floor_at <= ?"
FIRST_PAGE, LAST_PAGE = 64, 1024
"""Rows per read: the first page holds a block of the default budget; later ones double."""


@dataclass(frozen=True)
class MemoryStart:
    """The decay a session start applied and the block it then planned."""

    decay: DecayResult
    context: MemoryContext


def start_memory(settings: MemorySettings, now: str) -> MemoryStart:
    """Decay stale memories at ``now``, then plan the block: what every session start does."""
    decay = decay_stale_memories(now, DecayPolicy.of(settings))
    return MemoryStart(decay, plan_memory_context(settings.budget_tokens, settings.min_confidence,
                                                  settings.ledger_cut_limit))


def preview_memory_context(settings: MemorySettings, now: str) -> MemoryContext:
    """The block :func:`start_memory` would plan at ``now``, computed without writing (module docstring)."""
    policy = DecayPolicy.of(settings)
    if not policy.decays:
        return plan_memory_context(settings.budget_tokens, settings.min_confidence)
    cutoffs = Cutoffs(policy, now)
    current = schedule_is_current(policy)
    if current:
        total = db.execute_sql(portable_sql(QUALIFYING_COUNT_SQL), (policy.floor,)).fetchone()[0]
        total -= db.execute_sql(portable_sql(FALLING_SQL), (now,)).fetchone()[0]
        unscheduled = db.execute_sql(portable_sql(UNSCHEDULED_SQL), (policy.floor,)).fetchall()
        total -= sum(1 for raw in unscheduled if not outlook(_Row.of(raw).inputs, cutoffs).active)
    else:
        total = sum(1 for row in _pages(policy.floor) if outlook(row.inputs, cutoffs).active)
    return plan_from_rows(_after_decay(_pages(policy.floor), cutoffs, current), total, settings.budget_tokens)


@dataclass(frozen=True, slots=True)
class _Row:
    """One qualifying memory as the preview reads it: what the block shows, what decay needs, when it is due."""

    shown: ContextRow
    inputs: DecayInputs
    due_at: str | None

    @classmethod
    def of(cls, raw: tuple[Any, ...]) -> _Row:
        memory_id, service, category, observation, confidence, updated_at, pinned_at, unpinned_at, due_at, base, \
            weeks = raw
        return cls((memory_id, service, category, observation, confidence),
                   DecayInputs(memory_id, category, confidence, True, updated_at, pinned_at, unpinned_at, base, weeks),
                   due_at)


def _pages(floor: float) -> Iterator[_Row]:
    """The qualifying memories in today's order, a page at a time (PostgreSQL's driver reads whole results)."""
    offset, size = 0, FIRST_PAGE
    while True:
        page = db.execute_sql(portable_sql(PREVIEW_SQL), (floor, size, offset)).fetchall()
        yield from (_Row.of(raw) for raw in page)
        if len(page) < size:
            return
        offset += size
        size = min(size * 2, LAST_PAGE)


def _after_decay(rows: Iterator[_Row], cutoffs: Cutoffs, current: bool) -> Iterator[ContextRow]:
    """``rows`` (today's order) as decay would leave them: confidences lowered, memories under the floor
    dropped, re-ranked by holding each in a heap until no later row can outrank it."""
    held: list[tuple[float, int, ContextRow]] = []
    for row in rows:
        memory_id, service, category, observation, confidence = row.shown
        while held and (held[0][0], held[0][1]) <= (-confidence, -memory_id):
            yield heapq.heappop(held)[2]
        if current and row.due_at and row.due_at > cutoffs.now:
            after = confidence  # its next week is not due yet
        else:
            decayed = outlook(row.inputs, cutoffs)
            if not decayed.active:
                continue
            after = decayed.confidence
        heapq.heappush(held, (-after, -memory_id, (memory_id, service, category, observation, after)))
    while held:
        yield heapq.heappop(held)[2]
