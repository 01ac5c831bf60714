"""Staleness decay: memories lose confidence for every full week without reinforcement past the grace.

A memory last reinforced (``updated_at``) more than ``grace_days`` ago loses ``decay_per_week``
for each *full* week beyond that, and is deactivated once below the threshold (SPEC-0015
"Staleness Decay": 44 days old → 2 weeks → −0.2).

The decay runs at every session start and from ``claudeops memories decay``, possibly every few
minutes, so it must be idempotent: the ``memory_decay`` ledger remembers how many weeks each
memory has already lost since its current ``updated_at``, and a run applies only
``weeks due − weeks applied``. Running twice at the same moment changes nothing; a memory 44
days old has lost exactly 0.2 however many runs happened in between. ``updated_at`` itself is
never touched (it means "last reinforcement"), and a reinforcement or edit, which refreshes it,
makes the old ledger row irrelevant.

"Weeks due" is computed in SQL by comparing ``updated_at`` text with cut-off timestamps
computed here (``updated_at <= now − grace − w weeks`` for w = 1, 2, …), which is exact
(no floating-point day arithmetic) and the same SQL on SQLite and PostgreSQL. Weeks beyond
the point where any confidence reaches 0 need no cut-off of their own.

The whole run is one transaction of three statements (history, decay, ledger), never a loop per
row. The history gets one ``decayed`` entry per memory each run lowers, whatever number of weeks
the step covers, written from the same expressions as the UPDATE just before it runs; a run that
finds nothing due writes nothing, so session starts do not fill the history.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta

import peewee

from claudeops import db, from_timestamp, to_timestamp
from claudeops_memory.confidence import active_sql, confidence_sql
from claudeops_memory.history import DECAY
from claudeops_memory.models import ACTIVE, Memory, MemoryChangeRow, MemoryDecay
from claudeops_memory.settings import DECAY_PER_WEEK, GRACE_DAYS, MIN_CONFIDENCE


@dataclass(frozen=True)
class DecayResult:
    """What one decay run did."""

    decayed: int
    deactivated: int


def week_cutoffs(now: str, grace_days: int, decay_per_week: float) -> list[str]:
    """``cutoffs[w - 1]`` is the latest ``updated_at`` that owes at least ``w`` weeks of decay."""
    moment = from_timestamp(now)
    weeks = math.ceil(round(1.0 / decay_per_week, 6))
    return [to_timestamp(moment - timedelta(days=grace_days, weeks=week)) for week in range(1, weeks + 1)]


def weeks_due(updated_at: str, now: str, grace_days: int, decay_per_week: float) -> int:
    """Full weeks past the grace period a memory last reinforced at ``updated_at`` is at ``now``
    (capped where any confidence reaches 0): the number :func:`_weeks_due` computes in SQL."""
    if decay_per_week <= 0:
        return 0
    return sum(1 for cutoff in week_cutoffs(now, grace_days, decay_per_week) if updated_at <= cutoff)


def _weeks_due(cutoffs: list[str]) -> peewee.ColumnBase:
    """SQL: how many full weeks past the grace period the row's ``updated_at`` is (capped)."""
    branches = [(Memory.updated_at <= cutoff, week) for week, cutoff in reversed(list(enumerate(cutoffs, 1)))]
    return peewee.Case(None, branches, 0)


def _weeks_applied() -> peewee.ColumnBase:
    """SQL: weeks of decay already applied since the row's current ``updated_at``."""
    ledger = MemoryDecay.alias("ledger")
    applied = (ledger.select(ledger.weeks_applied)
               .where((ledger.memory_id == Memory.id) & (ledger.base_updated_at == Memory.updated_at)))
    return peewee.fn.COALESCE(applied, 0)


def decay_stale_memories(now: str, *, grace_days: int = GRACE_DAYS, decay_per_week: float = DECAY_PER_WEEK,
                         min_confidence: float = MIN_CONFIDENCE) -> DecayResult:
    """Apply the decay due at ``now`` to every active memory, once; returns what changed."""
    if decay_per_week <= 0:
        return DecayResult(0, 0)
    cutoffs = week_cutoffs(now, grace_days, decay_per_week)
    due, applied = _weeks_due(cutoffs), _weeks_applied()
    owed = (ACTIVE, Memory.updated_at <= cutoffs[0], due > applied)
    new_confidence = confidence_sql(Memory.confidence - (due - applied) * decay_per_week)
    with db.atomic():
        _record_decay(owed, new_confidence, active_sql(new_confidence, min_confidence), now, grace_days)
        decayed = (Memory.update({Memory.confidence: new_confidence,
                                  Memory.active: active_sql(new_confidence, min_confidence)})
                   .where(*owed).execute())
        if not decayed:
            return DecayResult(0, 0)
        still_owed = Memory.select(Memory.id, Memory.updated_at, due).where(*owed)
        kept = (MemoryDecay.insert_from(still_owed, [MemoryDecay.memory_id, MemoryDecay.base_updated_at,
                                                     MemoryDecay.weeks_applied])
                .on_conflict(conflict_target=[MemoryDecay.memory_id],
                             preserve=[MemoryDecay.base_updated_at, MemoryDecay.weeks_applied])
                .as_rowcount().execute())
    return DecayResult(decayed, decayed - kept)


def _record_decay(owed: tuple[peewee.Expression, ...], new_confidence: peewee.ColumnBase,
                  new_active: peewee.ColumnBase, now: str, grace_days: int) -> None:
    """One ``decayed`` history entry per memory about to be lowered, old and new values side by side."""
    reason = f"not reinforced for over {grace_days} days"
    rows = Memory.select(Memory.id, peewee.Value(now), peewee.Value("decayed"), peewee.Value(DECAY.kind),
                         peewee.Value("decay"), peewee.Value(reason), Memory.confidence, new_confidence,
                         Memory.active, new_active, Memory.updated_at, Memory.updated_at).where(*owed)
    MemoryChangeRow.insert_from(rows, [
        MemoryChangeRow.memory_id, MemoryChangeRow.changed_at, MemoryChangeRow.kind, MemoryChangeRow.actor,
        MemoryChangeRow.decided_by, MemoryChangeRow.reason, MemoryChangeRow.old_confidence,
        MemoryChangeRow.new_confidence, MemoryChangeRow.old_active, MemoryChangeRow.new_active,
        MemoryChangeRow.old_updated_at, MemoryChangeRow.new_updated_at]).as_rowcount().execute()
