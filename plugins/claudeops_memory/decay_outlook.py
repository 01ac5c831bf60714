"""One memory's staleness decay, computed in Python: what is due now, when the next week falls due, and
when decay would take it under the floor.

The one formula of decay. The decay run applies it (:mod:`claudeops_memory.decay`), the preview of
a session start uses it without writing (``memories context``), and the dashboard and
``memories context --explain`` show its dates, so none of them can drift from another.

A memory decays from its *base*: its last reinforcement or edit (``updated_at``), or the moment it
was last unpinned when that is later (an unpinned memory gets a fresh grace period). It owes one
week of decay for each full week past its category's grace period, counted by comparing the base
with cut-off timestamps (``base <= now − grace − w weeks``), which is exact; the decay ledger
(``memory_decay``) says how many weeks it has already lost since that base, and only the
difference is taken, so applying the outlook twice at the same moment changes nothing. Weeks past
the point where any confidence reaches 0 are not counted. A pinned or inactive memory, or one of
a category whose weekly loss is 0, does not decay.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache

from claudeops import from_timestamp, to_timestamp
from claudeops_memory.confidence import clamp_confidence
from claudeops_memory.decay_policy import CategoryDecay, DecayPolicy


@dataclass(frozen=True, slots=True)
class DecayInputs:
    """What decay reads of one memory: its row's decay columns and its ledger entry (if any)."""

    id: int
    category: str
    confidence: float
    active: bool
    updated_at: str
    pinned_at: str | None
    unpinned_at: str | None
    ledger_base: str | None
    ledger_weeks: int | None

    @property
    def base(self) -> str:
        """Where the grace period starts: the last reinforcement or edit, or the last unpinning if later."""
        return decay_base(self.updated_at, self.unpinned_at)

    @property
    def weeks_applied(self) -> int:
        """Weeks of decay already taken since :attr:`base` (a ledger row about an older base counts for nothing)."""
        return (self.ledger_weeks or 0) if self.ledger_base == self.base else 0


def decay_base(updated_at: str, unpinned_at: str | None) -> str:
    return unpinned_at if unpinned_at is not None and unpinned_at > updated_at else updated_at


@dataclass(frozen=True, slots=True)
class Outlook:
    """A memory after the decay due at one moment, and what is coming.

    ``lowered``: the decay due now changes it (``weeks`` more than the ledger had). ``next_decay_at``
    is when its next week falls due and ``floor_at`` when decay (with no reinforcement meanwhile)
    takes it under the floor; ``None`` when that never happens (pinned, inactive, a category that
    does not decay, nothing left to lose).
    """

    confidence: float
    active: bool
    weeks: int
    lowered: bool
    next_decay_at: str | None
    floor_at: str | None


class Cutoffs:
    """The cut-off timestamps of each category at one moment, computed once per run, not per row."""

    def __init__(self, policy: DecayPolicy, now: str) -> None:
        self.policy = policy
        self.now = now
        self.floor = policy.floor
        moment = from_timestamp(now)
        self._ascending: dict[CategoryDecay, list[str]] = {}
        for rule in {policy.of_category(category) for category in (*policy.by_category, "")}:
            weeks = range(rule.max_weeks, 0, -1)  # oldest cut-off first, for bisect
            self._ascending[rule] = [to_timestamp(moment - timedelta(days=rule.grace_days, weeks=week))
                                     for week in weeks]

    def weeks_due(self, rule: CategoryDecay, base: str) -> int:
        """Full weeks past the grace period at the moment, capped at the rule's :attr:`~CategoryDecay.max_weeks`:
        how many cut-offs ``base`` is at or before."""
        ascending = self._ascending[rule]
        return len(ascending) - bisect_left(ascending, base)


def outlook(memory: DecayInputs, cutoffs: Cutoffs) -> Outlook:
    """``memory`` after the decay due at ``cutoffs.now``, with its next decay and its floor dates."""
    rule = cutoffs.policy.of_category(memory.category)
    if not memory.active or memory.pinned_at is not None or not rule.decays:
        return Outlook(memory.confidence, memory.active, memory.weeks_applied, False, None, None)
    base = memory.base
    applied = (memory.ledger_weeks or 0) if memory.ledger_base == base else 0  # weeks_applied, base read once
    due = cutoffs.weeks_due(rule, base)
    confidence, active, weeks = memory.confidence, True, applied
    if due > applied:
        confidence = clamp_confidence(memory.confidence - (due - applied) * rule.per_week)
        active = confidence >= cutoffs.floor
        weeks = due
    lowered = weeks > applied
    if not active or weeks >= rule.max_weeks:
        return Outlook(confidence, active, weeks, lowered, None, None)
    # naive UTC: to_timestamp then formats it without converting (a million memories on a first run)
    grace_ends = from_timestamp(base).replace(tzinfo=None) + timedelta(days=rule.grace_days)
    floor_week = _floor_week(rule, weeks, confidence, cutoffs.floor)
    return Outlook(confidence, active, weeks, lowered, to_timestamp(grace_ends + timedelta(weeks=weeks + 1)),
                   None if floor_week is None else to_timestamp(grace_ends + timedelta(weeks=floor_week)))


@lru_cache(maxsize=4096)
def _floor_week(rule: CategoryDecay, weeks: int, confidence: float, floor: float) -> int | None:
    """The week past the grace period in which a memory at ``confidence`` with ``weeks`` applied falls under
    ``floor``, the way a decay run then computes it; ``None`` when no week can (a floor of 0) or it is under
    already (the threshold was raised since it was last written: its next week of decay deactivates it).

    Cached: its inputs take a few thousand values (confidences are rounded to 2 decimals, weeks are few),
    and the first decay of a large store asks it for every memory."""
    if confidence < floor:
        return None
    for more in range(1, rule.max_weeks - weeks + 1):
        if clamp_confidence(confidence - more * rule.per_week) < floor:
            return weeks + more
    return None


def describe_outlook(memory_pinned: bool, memory_active: bool, confidence: float, category: str, after: Outlook,
                     policy: DecayPolicy) -> str:
    """One line an operator reads beside a memory: when it decays next and when it would fall under the floor."""
    if memory_pinned:
        return "pinned: does not decay"
    if not memory_active:
        return "inactive: does not decay"
    rule = policy.of_category(category)
    if not rule.decays:
        return f"does not decay ({category} memories are set not to)"
    parts = []
    if after.lowered:
        parts.append(f"decay due now: {confidence:.2f} → {after.confidence:.2f}"
                     + ("" if after.active else f", under the {policy.floor:.2f} floor"))
    if after.next_decay_at is not None:
        lowered = clamp_confidence(after.confidence - rule.per_week)
        parts.append(f"next decay {after.next_decay_at[:10]} (→ {lowered:.2f})")
        parts.append(f"under the {policy.floor:.2f} floor {after.floor_at[:10]}" if after.floor_at
                     else "never under the floor")
    elif after.active:
        parts.append("nothing left to decay")
    return ", ".join(parts)
