"""The ``[memory]`` section of ``config.toml``: budget, thresholds and the lifecycle arithmetic.

The defaults are SPEC-0015's numbers. They live in one dataclass so the CLI, the session hook
and ``claudeops config show`` agree, and so an operator can tune them without touching code. The
ones a function also takes as a default argument are named here once, and those functions use
these names, so a default cannot drift from the setting.
"""

from __future__ import annotations

from dataclasses import dataclass

from claudeops import Config, setting

CATEGORIES: tuple[str, ...] = ("timing", "dependency", "behavior", "remediation", "maintenance")
"""SPEC-0015 "Memory Categories", in the order the prompt and the CLI list them."""

SECTION = "memory"

BUDGET_TOKENS = 2000
"""Most tokens the injected block may use (SPEC-0015 "Token Budget Enforcement")."""
MIN_CONFIDENCE = 0.3
"""Memories below this are inactive (SPEC-0015 "Confidence Scoring")."""
DEFAULT_CONFIDENCE = 0.7
"""Confidence of a new memory (SPEC-0015 "Default confidence on creation")."""
GRACE_DAYS = 30
"""Days without reinforcement before staleness decay starts (SPEC-0015 "Staleness Decay")."""
DECAY_PER_WEEK = 0.1
"""Confidence lost per full week past the grace period (SPEC-0015 "Staleness Decay")."""
MAX_OBSERVATION_CHARS = 500
"""Longest observation stored."""
MAX_OBSERVATION_CHARS_LIMIT = 2000
"""The most ``memory.max_observation_chars`` may allow: the judge compares a new observation with every
candidate of its group, and its time must stay bounded for any text the configuration lets in
(a 2,000-character pair takes about a millisecond; ``bench/memory_judge_scale.py``)."""
JUDGES = ("offline", "claude")
"""``memory.judge``: the built-in offline judge, or a small Claude model asked through the Messages API."""
JUDGE_MIN_CERTAINTY = 0.85
"""Below this a judge's ``reinforce`` or ``contradict`` is stored as ``distinct`` and flagged for review.
The offline judge's own default (``judge.certainty.DEFAULT_MIN_CERTAINTY``, where the figures it was
chosen on are): from 0.85 it made no wrong reinforcement on its calibration block."""
JUDGE_TIMEOUT_SECONDS = 10.0
"""How long the Claude judge may take: a marker waits for it, and a typical answer takes 2-5 s."""
LEDGER_CUT_LIMIT = 100
"""Memories cut by the budget that a session's injection ledger names."""
DUPLICATE_SIMILARITY = 90
"""rapidfuzz ``token_sort_ratio`` from which two memories are offered for review as duplicates."""


@dataclass
class MemorySettings:
    """The ``[memory]`` section."""

    budget_tokens: int = setting(BUDGET_TOKENS, "Most tokens (characters / 4) the injected memory block may use",
                                 env="CLAUDEOPS_MEMORY_BUDGET")
    min_confidence: float = setting(MIN_CONFIDENCE, "Memories below this confidence are inactive and never injected")
    default_confidence: float = setting(DEFAULT_CONFIDENCE,
                                        "Confidence of a memory the agent records for the first time")
    reinforce_step: float = setting(0.1, "Confidence added when the agent records the same fact again")
    contradict_step: float = setting(0.2, "Confidence removed from a memory the agent contradicts")
    grace_days: int = setting(GRACE_DAYS, "Days after the last reinforcement before staleness decay starts")
    decay_per_week: float = setting(DECAY_PER_WEEK, "Confidence removed per full week past the grace period")
    grace_days_by_category: dict[str, int] = setting(
        {}, "grace_days for some categories only, e.g. { maintenance = 120 } for facts that recur quarterly "
            "(the others use grace_days)")
    decay_per_week_by_category: dict[str, float] = setting(
        {}, "decay_per_week for some categories only, e.g. { maintenance = 0.05 } (0: never decays; the "
            "others use decay_per_week)")
    max_observation_chars: int = setting(MAX_OBSERVATION_CHARS,
                                         f"Longer observations are cut to this length (with a warning); at most "
                                         f"{MAX_OBSERVATION_CHARS_LIMIT}")
    judge: str = setting("offline", "Relation judge for markers that cite no memory: offline (built in, no network) "
                                    "or claude (one Messages API call per marker; needs ANTHROPIC_API_KEY)")
    judge_model: str = setting("", "Model the Claude judge asks (empty: the tier 1 model)")
    judge_timeout_seconds: float = setting(JUDGE_TIMEOUT_SECONDS,
                                           "Seconds the Claude judge may take before the offline judge answers instead")
    judge_min_certainty: float = setting(JUDGE_MIN_CERTAINTY, "A judge's reinforce or contradict below this certainty "
                                                              "is stored as distinct and flagged for review")
    ledger_cut_limit: int = setting(LEDGER_CUT_LIMIT,
                                    "How many of the memories that qualified but did not fit the budget a "
                                    "session's injection ledger names, by rank (the rest are counted)")
    duplicate_similarity: int = setting(DUPLICATE_SIMILARITY,
                                        "Two active memories of one service and category whose texts are at least "
                                        "this similar (0-100, word order ignored) are offered for review as "
                                        "duplicates")


def validate(config: Config) -> None:
    """Reject values that would make the lifecycle meaningless, with a one-line error naming where each was set."""
    settings: MemorySettings = config.section(SECTION)
    for name in ("min_confidence", "default_confidence", "reinforce_step", "contradict_step", "decay_per_week",
                 "judge_min_certainty"):
        config.require(0.0 <= getattr(settings, name) <= 1.0, f"{SECTION}.{name}", "between 0 and 1")
    # below the threshold, every new memory would be inactive from the start
    config.require(settings.default_confidence >= settings.min_confidence, f"{SECTION}.default_confidence",
                   f"at least {SECTION}.min_confidence ({settings.min_confidence})")
    config.require(not 0.0 < settings.decay_per_week < 0.01, f"{SECTION}.decay_per_week",
                   "0 (no decay) or at least 0.01")
    for name in ("budget_tokens", "grace_days", "ledger_cut_limit"):
        config.require(getattr(settings, name) >= 0, f"{SECTION}.{name}", "0 or more")
    config.require(0 <= settings.duplicate_similarity <= 100, f"{SECTION}.duplicate_similarity", "between 0 and 100")
    config.require(20 <= settings.max_observation_chars <= MAX_OBSERVATION_CHARS_LIMIT,
                   f"{SECTION}.max_observation_chars", f"between 20 and {MAX_OBSERVATION_CHARS_LIMIT}")
    _validate_by_category(config, settings)
    config.require(settings.judge in JUDGES, f"{SECTION}.judge", " or ".join(JUDGES))
    config.require(not any(char.isspace() for char in settings.judge_model), f"{SECTION}.judge_model",
                   "a model alias or name without blanks (empty: the tier 1 model)")
    config.require(settings.judge_timeout_seconds > 0, f"{SECTION}.judge_timeout_seconds", "more than 0")


def _validate_by_category(config: Config, settings: MemorySettings) -> None:
    """Per-category decay settings: known categories, and the values the general settings accept."""
    for name, table in (("grace_days_by_category", settings.grace_days_by_category),
                        ("decay_per_week_by_category", settings.decay_per_week_by_category)):
        for category, value in table.items():
            config.require(category in CATEGORIES, f"{SECTION}.{name}",
                           f"a table of categories ({', '.join(CATEGORIES)})", item=category)
            if name == "grace_days_by_category":
                config.require(value >= 0, f"{SECTION}.{name}", f"0 or more days for {category}",
                               item=f"{category} = {value}")
            else:
                config.require(value == 0 or 0.01 <= value <= 1, f"{SECTION}.{name}",
                               f"0 (never decays) or between 0.01 and 1 for {category}", item=f"{category} = {value}")
