"""Issue 15 item 2: evergreen memories (pin, unpin) and decay set per category, with the outlook an
operator reads beside each memory (when it decays next, when it would fall under the floor)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from claudeops_memory import repository
from claudeops_memory.decay import decay_stale_memories, outlook_lines
from claudeops_memory.decay_policy import DecayPolicy
from claudeops_memory.history import memory_history
from claudeops_memory.pins import pin_memory, unpin_memory
from claudeops_memory.session_start import preview_memory_context, start_memory
from click.testing import CliRunner, Result
from memory_helpers import LoadedApp

from claudeops.app import App
from claudeops.cli.group import build_cli
from claudeops.config import ConfigError


def run(memory_app: LoadedApp, *args: str) -> Result:
    return CliRunner().invoke(build_cli(memory_app.app), ["memories", *args])


def _confidence(memory_id: int) -> tuple[float, bool]:
    memory = repository.get_memory(memory_id)
    assert memory is not None
    return memory.confidence, memory.active


# --------------------------------------------------------------------------- pinning


def test_a_pinned_memory_at_day_400_keeps_its_confidence(memory_app: LoadedApp) -> None:
    pinned = memory_app.remember("Certificate renewal is due every March", category="maintenance", days_ago=400)
    plain = memory_app.remember("Backup window starts at 02:00", category="maintenance", days_ago=400)
    pin_memory(pinned.id)

    result = decay_stale_memories(memory_app.clock.stamp())

    assert _confidence(pinned.id) == (0.7, True)
    assert _confidence(plain.id) == (0.0, False)
    assert result.decayed == 1
    assert [entry.kind for entry in memory_history(pinned.id)] == ["created", "pinned"]


def test_unpinning_starts_a_fresh_grace_period_from_that_moment(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Certificate renewal is due every March", days_ago=400)
    pin_memory(memory.id, now=memory_app.clock.stamp(days=300))
    unpin_memory(memory.id, now=memory_app.clock.stamp())

    memory_app.clock.advance(days=29)
    assert decay_stale_memories(memory_app.clock.stamp()).decayed == 0
    assert _confidence(memory.id) == (0.7, True)

    memory_app.clock.advance(days=15)  # 44 days after unpinning: two full weeks past the grace period
    decay_stale_memories(memory_app.clock.stamp())
    assert _confidence(memory.id) == (0.5, True)
    after = repository.get_memory(memory.id)
    assert after is not None and after.updated_at == memory.updated_at  # updated_at keeps SPEC's meaning


def test_pin_and_unpin_are_history_entries_by_the_operator(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Certificate renewal is due every March")
    assert pin_memory(memory.id).changed
    assert not pin_memory(memory.id).changed  # pinning a pinned memory changes nothing, writes nothing
    assert unpin_memory(memory.id).changed

    entries = memory_history(memory.id)
    assert [(entry.kind, entry.actor) for entry in entries] == [
        ("created", "operator"), ("pinned", "operator"), ("unpinned", "operator")]
    assert entries[1].old_confidence == entries[1].new_confidence == 0.7


def test_pinning_a_memory_that_does_not_exist_is_a_key_error(memory_app: LoadedApp) -> None:
    with pytest.raises(KeyError):
        pin_memory(4242)


def test_cli_pin_and_unpin(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Certificate renewal is due every March", days_ago=400)

    pinned = run(memory_app, "pin", str(memory.id))
    again = run(memory_app, "pin", str(memory.id))
    assert (pinned.exit_code, pinned.output) == (0, f"pinned memory #{memory.id}: it does not decay\n")
    assert again.output == f"memory #{memory.id} was already pinned\n"
    assert run(memory_app, "decay").output == "decayed 0 memories (0 deactivated)\n"
    [row] = json.loads(run(memory_app, "list", "--json").output)
    assert row["pinned_at"] is not None and row["unpinned_at"] is None
    assert run(memory_app, "list").output.splitlines()[1].split()[:3] == [str(memory.id), "0.70", "pinned"]

    unpinned = run(memory_app, "unpin", str(memory.id))
    assert unpinned.output == f"unpinned memory #{memory.id}: its grace period starts now\n"
    missing = run(memory_app, "pin", "4242")
    assert missing.exit_code == 2 and "no memory with id 4242" in missing.output


# --------------------------------------------------------------------------- per category


def test_grace_and_weekly_decay_can_be_set_per_category(load_memory_app: Callable[..., LoadedApp]) -> None:
    memory_app = load_memory_app(CLAUDEOPS_MEMORY_GRACE_DAYS_BY_CATEGORY="maintenance=120",
                                 CLAUDEOPS_MEMORY_DECAY_PER_WEEK_BY_CATEGORY="behavior=0.05,dependency=0")
    maintenance = memory_app.remember("Certificate renewal is due every March", category="maintenance", days_ago=100)
    timing = memory_app.remember("Takes 60s to start", category="timing", days_ago=44)
    behavior = memory_app.remember("Logs a warning at start", category="behavior", days_ago=44)
    dependency = memory_app.remember("Needs the NAS mounted", category="dependency", days_ago=400)

    start_memory(memory_app.settings, memory_app.clock.stamp())

    assert _confidence(maintenance.id) == (0.7, True)  # 100 days: still inside its 120-day grace period
    assert _confidence(timing.id) == (0.5, True)  # the spec's 30 days and 0.1/week
    assert _confidence(behavior.id) == (0.6, True)  # two weeks at 0.05
    assert _confidence(dependency.id) == (0.7, True)  # 0: never decays


def test_per_category_settings_in_the_config_file(make_claudeops_app: Callable[..., App], tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[memory]\ngrace_days_by_category = { maintenance = 120 }\n"
                      "decay_per_week_by_category = { behavior = 0.05 }\n")
    settings = make_claudeops_app({"CLAUDEOPS_CONFIG": str(config)}).config.section("memory")
    assert (settings.grace_days_by_category, settings.decay_per_week_by_category) == (
        {"maintenance": 120}, {"behavior": 0.05})


@pytest.mark.parametrize(("variable", "value", "message"), [
    ("CLAUDEOPS_MEMORY_GRACE_DAYS_BY_CATEGORY", "misc=3",
     "'memory.grace_days_by_category' must be a table of categories (timing, dependency, behavior, remediation, "
     "maintenance), not 'misc'"),
    ("CLAUDEOPS_MEMORY_GRACE_DAYS_BY_CATEGORY", "maintenance=-3",
     "'memory.grace_days_by_category' must be 0 or more days for maintenance, not 'maintenance = -3'"),
    ("CLAUDEOPS_MEMORY_DECAY_PER_WEEK_BY_CATEGORY", "timing=5",
     "'memory.decay_per_week_by_category' must be 0 (never decays) or between 0.01 and 1 for timing, "
     "not 'timing = 5.0'"),
    ("CLAUDEOPS_MEMORY_MAX_OBSERVATION_CHARS", "5000",
     "'memory.max_observation_chars' must be between 20 and 2000, not 5000"),
])
def test_nonsense_per_category_settings_stop_start_up_with_one_line(load_memory_app: Callable[..., LoadedApp],
                                                                    variable: str, value: str, message: str) -> None:
    with pytest.raises(ConfigError) as failure:
        load_memory_app(**{variable: value})
    assert str(failure.value) == f"env {variable}: {message}"


def test_a_table_setting_that_is_not_a_table_is_one_line(load_memory_app: Callable[..., LoadedApp]) -> None:
    with pytest.raises(ConfigError) as failure:
        load_memory_app(CLAUDEOPS_MEMORY_DECAY_PER_WEEK_BY_CATEGORY="timing")
    assert "must be a table of names to numbers" in str(failure.value) and "\n" not in str(failure.value)


# --------------------------------------------------------------------------- the outlook beside each memory


def test_the_outlook_says_when_a_memory_decays_next_and_falls_under_the_floor(memory_app: LoadedApp) -> None:
    # the clock is 2026-03-01 12:00; reinforced 10 days ago: grace ends 2026-03-21, weeks fall due from the 28th
    fresh = memory_app.remember("Takes 60s to start", days_ago=10)
    pinned = memory_app.remember("Certificate renewal is due every March", days_ago=10)
    pin_memory(pinned.id)
    inactive = memory_app.remember("Old fact", days_ago=10, active=False)
    memories = [repository.get_memory(memory_id) for memory_id in (fresh.id, pinned.id, inactive.id)]

    lines = outlook_lines([memory for memory in memories if memory], DecayPolicy.uniform(), memory_app.clock.stamp())

    # 0.7 → 0.6 on the 28th; under 0.3 at the fifth week (0.2), 2026-04-25
    assert lines[fresh.id] == "next decay 2026-03-28 (→ 0.60), under the 0.30 floor 2026-04-25"
    assert lines[pinned.id] == "pinned: does not decay"
    assert lines[inactive.id] == "inactive: does not decay"


def test_the_outlook_dates_are_when_decay_really_lowers_it(memory_app: LoadedApp) -> None:
    """The dates the operator is shown are the decay run's own: a day before, nothing; on it, the step."""
    memory = memory_app.remember("Takes 60s to start", days_ago=10)
    memory_app.clock.advance(days=26)  # 2026-03-27: a day before its first week is due
    assert decay_stale_memories(memory_app.clock.stamp()).decayed == 0
    memory_app.clock.advance(days=1)
    decay_stale_memories(memory_app.clock.stamp())
    assert _confidence(memory.id) == (0.6, True)
    memory_app.clock.advance(days=28)  # 2026-04-25
    decay_stale_memories(memory_app.clock.stamp())
    assert _confidence(memory.id) == (0.2, False)


def test_context_explain_shows_the_outlook_beside_the_block_never_in_it(memory_app: LoadedApp) -> None:
    memory = repository.create_memory(category="timing", service="jellyfin", observation="Takes 60s to start")
    pinned = memory_app.remember("Certificate renewal is due every March", days_ago=400)
    pin_memory(pinned.id)

    plain = run(memory_app, "context")  # the CLI's clock is the real one: the fresh memory was reinforced just now
    explained = run(memory_app, "context", "--explain")

    assert explained.exit_code == 0
    section, _, explanation = explained.output.partition("explanation: not part of the prompt")
    assert section.rstrip("- \n") == plain.output.rstrip("\n")
    assert "next decay" not in preview_memory_context(memory_app.settings, memory_app.clock.stamp()).text
    rows = {line.split()[1]: line for line in explanation.splitlines()[2:]}
    assert "next decay" in rows[f"#{memory.id}"] and "(→ 0.60), under the 0.30 floor" in rows[f"#{memory.id}"]
    assert rows[f"#{pinned.id}"].endswith("pinned: does not decay")
