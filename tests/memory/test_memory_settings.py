"""The ``[memory]`` settings: SPEC-0015's numbers by default, overridable, and checked at start-up."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from claudeops_memory.settings import MemorySettings

from claudeops.app import App
from claudeops.config import ConfigError


@pytest.fixture
def load(make_claudeops_app: Callable[..., App]) -> Callable[..., MemorySettings]:
    """The ``[memory]`` settings of an app loaded with ``environ`` (a bad one raises ``ConfigError``)."""
    return lambda **environ: make_claudeops_app(environ).config.section("memory")


def test_defaults_are_the_spec_numbers(load: Callable[..., MemorySettings]) -> None:
    assert load() == MemorySettings(budget_tokens=2000, min_confidence=0.3, default_confidence=0.7,
                                    reinforce_step=0.1, contradict_step=0.2, grace_days=30, decay_per_week=0.1,
                                    max_observation_chars=500)


def test_budget_has_the_spec_environment_variable_and_the_generic_one(load: Callable[..., MemorySettings]) -> None:
    assert load(CLAUDEOPS_MEMORY_BUDGET="4000").budget_tokens == 4000
    assert load(CLAUDEOPS_MEMORY_BUDGET_TOKENS="3000").budget_tokens == 3000


def test_the_spec_budget_variable_wins_when_both_are_set(load: Callable[..., MemorySettings]) -> None:
    """As for every alias in the core: the name the spec gives beats the generic one."""
    assert load(CLAUDEOPS_MEMORY_BUDGET="4000", CLAUDEOPS_MEMORY_BUDGET_TOKENS="3000").budget_tokens == 4000


@pytest.mark.parametrize(("variable", "value", "message"), [
    ("CLAUDEOPS_MEMORY_MIN_CONFIDENCE", "1.5", "'memory.min_confidence' must be between 0 and 1, not 1.5"),
    ("CLAUDEOPS_MEMORY_DEFAULT_CONFIDENCE", "0.2",
     "'memory.default_confidence' must be at least memory.min_confidence (0.3), not 0.2"),
    ("CLAUDEOPS_MEMORY_BUDGET", "-1", "'memory.budget_tokens' must be 0 or more, not -1"),
    ("CLAUDEOPS_MEMORY_DECAY_PER_WEEK", "0.001", "'memory.decay_per_week' must be 0 (no decay) or at least 0.01"),
    ("CLAUDEOPS_MEMORY_JUDGE_MIN_CERTAINTY", "1.2", "'memory.judge_min_certainty' must be between 0 and 1, not 1.2"),
    ("CLAUDEOPS_MEMORY_LEDGER_CUT_LIMIT", "-5", "'memory.ledger_cut_limit' must be 0 or more, not -5"),
    ("CLAUDEOPS_MEMORY_DUPLICATE_SIMILARITY", "101",
     "'memory.duplicate_similarity' must be between 0 and 100, not 101"),
])
def test_nonsense_settings_stop_start_up_with_one_line_naming_the_variable(load: Callable[..., MemorySettings],
                                                                          variable: str, value: str,
                                                                          message: str) -> None:
    with pytest.raises(ConfigError) as failure:
        load(**{variable: value})
    assert str(failure.value).startswith(f"env {variable}: {message}")
    assert "\n" not in str(failure.value)
