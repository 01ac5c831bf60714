"""How staleness decay treats each category: its grace period, its weekly loss, and the floor.

SPEC-0015 gives one grace period (30 days) and one weekly loss (0.1) for every memory. Facts that
recur quarterly (a certificate renewal, a backup window) are forgotten before they matter again,
so ``memory.grace_days_by_category`` and ``memory.decay_per_week_by_category`` may set other
values for some categories; every other category keeps ``memory.grace_days`` and
``memory.decay_per_week``. With neither table set, the policy is the spec's, unchanged.

The stored decay schedule (:mod:`claudeops_memory.decay`) is computed with a policy, so the
policy has a :attr:`~DecayPolicy.fingerprint`: a run with another policy reschedules every memory
before it decays anything.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from claudeops_memory.confidence import clamp_confidence
from claudeops_memory.settings import CATEGORIES, DECAY_PER_WEEK, GRACE_DAYS, MIN_CONFIDENCE, MemorySettings


@dataclass(frozen=True)
class CategoryDecay:
    """One category's decay: ``grace_days`` without reinforcement, then ``per_week`` per full week."""

    grace_days: int
    per_week: float

    @property
    def decays(self) -> bool:
        return self.per_week > 0

    @cached_property
    def max_weeks(self) -> int:
        """Weeks after which no confidence can lose anything more (it is 0): decay stops counting there."""
        return math.ceil(round(1.0 / self.per_week, 6)) if self.decays else 0


@dataclass(frozen=True)
class DecayPolicy:
    """Every category's :class:`CategoryDecay` and the floor (``min_confidence``) under which a memory is inactive."""

    default: CategoryDecay = field(default_factory=lambda: CategoryDecay(GRACE_DAYS, DECAY_PER_WEEK))
    by_category: Mapping[str, CategoryDecay] = field(default_factory=dict)
    min_confidence: float = MIN_CONFIDENCE

    @classmethod
    def uniform(cls, grace_days: int = GRACE_DAYS, decay_per_week: float = DECAY_PER_WEEK,
                min_confidence: float = MIN_CONFIDENCE) -> DecayPolicy:
        """The spec's policy: one grace period and one weekly loss for every category."""
        return cls(CategoryDecay(grace_days, decay_per_week), {}, min_confidence)

    @classmethod
    def of(cls, settings: MemorySettings) -> DecayPolicy:
        """The policy ``[memory]`` configures."""
        default = CategoryDecay(settings.grace_days, settings.decay_per_week)
        overridden = set(settings.grace_days_by_category) | set(settings.decay_per_week_by_category)
        by_category = {
            category: CategoryDecay(settings.grace_days_by_category.get(category, default.grace_days),
                                    settings.decay_per_week_by_category.get(category, default.per_week))
            for category in CATEGORIES if category in overridden}
        return cls(default, by_category, settings.min_confidence)

    def of_category(self, category: str) -> CategoryDecay:
        return self.by_category.get(category, self.default)

    @property
    def decays(self) -> bool:
        """Whether any memory can decay at all (``decay_per_week = 0`` everywhere turns decay off)."""
        return self.default.decays or any(rule.decays for rule in self.by_category.values())

    @property
    def floor(self) -> float:
        """The threshold as stored confidences are compared with it."""
        return clamp_confidence(self.min_confidence)

    @property
    def fingerprint(self) -> str:
        """What the stored schedule depends on, as text: equal policies, equal fingerprints."""
        rules = {category: [self.of_category(category).grace_days, self.of_category(category).per_week]
                 for category in CATEGORIES}
        return json.dumps({"categories": rules, "floor": self.floor}, sort_keys=True)
