"""SPEC-0015 "Staleness Decay": 0.1 per full week past a 30-day grace, once, however often it runs."""

from __future__ import annotations

from claudeops_memory import repository
from claudeops_memory.decay import decay_stale_memories
from claudeops_memory.decay_policy import DecayPolicy
from memory_helpers import LoadedApp


def _decay(memory_app: LoadedApp) -> tuple[int, int]:
    result = decay_stale_memories(memory_app.clock.stamp())
    return result.decayed, result.deactivated


def _confidence(memory_id: int) -> float:
    memory = repository.get_memory(memory_id)
    assert memory is not None
    return memory.confidence


def test_fresh_memory_not_decayed(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start after restart", days_ago=15)
    assert _decay(memory_app) == (0, 0)
    assert repository.get_memory(memory.id) == memory


def test_stale_memory_decayed(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start after restart", days_ago=44)
    assert _decay(memory_app) == (1, 0)
    assert _confidence(memory.id) == 0.5


def test_decay_deactivates_memory(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start after restart", confidence=0.4, days_ago=44)
    assert _decay(memory_app) == (1, 1)
    after = repository.get_memory(memory.id)
    assert after is not None and (after.confidence, after.active) == (0.2, False)


def test_decay_counts_only_full_weeks(memory_app: LoadedApp) -> None:
    almost = memory_app.remember("a", days_ago=36.99)
    one_week = memory_app.remember("b", days_ago=37)
    assert _decay(memory_app) == (1, 0)
    assert (_confidence(almost.id), _confidence(one_week.id)) == (0.7, 0.6)


def test_decay_is_idempotent_at_the_same_moment(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start after restart", days_ago=44)
    _decay(memory_app)
    assert _decay(memory_app) == (0, 0)
    assert _confidence(memory.id) == 0.5


def test_decay_is_idempotent_across_sessions(memory_app: LoadedApp) -> None:
    """A memory reaching 44 days old has lost exactly 0.2, with a session every 6 hours meanwhile."""
    memory = memory_app.remember("Takes 60s to start after restart", days_ago=0)
    for _ in range(44 * 4):
        memory_app.clock.advance(hours=6)
        memory_app.app.hook.before_session(session=memory_app.session())

    after = repository.get_memory(memory.id)
    assert after is not None
    assert after.confidence == 0.5
    assert after.updated_at == memory.updated_at  # decay is not a reinforcement


def test_decay_leaves_updated_at_alone(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start after restart", days_ago=60)
    _decay(memory_app)
    after = repository.get_memory(memory.id)
    assert after is not None and after.updated_at == memory.updated_at


def test_reinforcement_restarts_the_grace_period(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start after restart", service="jellyfin", days_ago=44)
    _decay(memory_app)  # 0.7 -> 0.5
    memory_app.emit(memory_app.session(), "[MEMORY:timing:jellyfin] Takes 60s to start after restart")  # 0.6
    memory_app.clock.advance(days=36)
    assert _decay(memory_app) == (0, 0)
    memory_app.clock.advance(days=8)  # 44 days after the reinforcement
    _decay(memory_app)
    assert _confidence(memory.id) == 0.4


def test_an_edit_restarts_the_count_from_the_edited_confidence(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start after restart", days_ago=44)
    _decay(memory_app)
    repository.update_memory(memory.id, confidence=0.9, now=memory_app.clock.stamp(days=37))
    _decay(memory_app)
    assert _confidence(memory.id) == 0.8


def test_inactive_memories_are_not_decayed(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start after restart", days_ago=60, active=False)
    assert _decay(memory_app) == (0, 0)
    assert _confidence(memory.id) == 0.7


def test_a_contradiction_between_runs_is_kept(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Must be started after WireGuard", service="caddy", category="dependency",
                                 confidence=0.9, days_ago=38)
    _decay(memory_app)  # one week: 0.8
    memory_app.emit(memory_app.session(), "[MEMORY:dependency:caddy] Can be started independently of WireGuard")
    memory_app.clock.advance(days=7)  # a second week
    _decay(memory_app)
    assert _confidence(memory.id) == 0.5  # 0.9 - 0.1 - 0.2 - 0.1


def test_decay_disabled_with_zero_rate(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start after restart", days_ago=90)
    assert decay_stale_memories(memory_app.clock.stamp(), DecayPolicy.uniform(decay_per_week=0)).decayed == 0
    assert _confidence(memory.id) == 0.7


def test_decay_runs_before_the_context_is_built(memory_app: LoadedApp) -> None:
    memory_app.remember("Stale fact about to fall below the threshold", confidence=0.4, days_ago=44)
    memory_app.remember("Fresh fact", days_ago=1)
    session = memory_app.session()
    memory_app.app.hook.before_session(session=session)

    [section] = [section for section in session.prompt_sections if section.name == "memory"]
    assert "Fresh fact" in section.text
    assert "Stale fact" not in section.text


def test_decay_at_session_start_records_how_many_memories_it_deactivated(memory_app: LoadedApp) -> None:
    memory_app.remember("Stale fact", confidence=0.4, days_ago=44)
    memory_app.remember("Older fact", days_ago=44)
    session = memory_app.session()
    memory_app.app.hook.before_session(session=session)

    assert [(event.level, event.message) for event in session.recorded_events] == [
        ("info", "staleness decay deactivated 1 memory (not reinforced for over 30 days)")]
