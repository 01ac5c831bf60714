"""Issue 18 items 1 and 2: decay finds what is due through an index, works in bounded batches, keeps
its schedule right whoever writes, and ``memories context`` previews it without writing or redoing it."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from claudeops_memory import decay, repository
from claudeops_memory.decay import ANYTHING_DUE_SQL, BATCH_TARGET_SECONDS, STOP_AFTER_SECONDS, decay_stale_memories
from claudeops_memory.decay_policy import CategoryDecay, DecayPolicy
from claudeops_memory.history import memory_history
from claudeops_memory.pins import pin_memory, unpin_memory
from claudeops_memory.session_start import preview_memory_context, start_memory
from memory_helpers import LoadedApp, bulk_memories

from claudeops.store import db


def _schedule(memory_id: int) -> tuple[str | None, str | None]:
    return db.execute_sql("SELECT decay_due_at, floor_at FROM memories WHERE id = ?", (memory_id,)).fetchone()


def _dump() -> list[tuple]:
    tables = ("memories", "memory_decay", "memory_changes", "memory_decay_policy")
    return [db.execute_sql(f"SELECT * FROM {table} ORDER BY 1").fetchall() for table in tables]


def test_nothing_due_is_one_index_probe_not_a_scan(memory_app: LoadedApp) -> None:
    bulk_memories(200, memory_app.clock.stamp(days=3))
    decay_stale_memories(memory_app.clock.stamp())
    db.execute_sql("ANALYZE")

    plan = " | ".join(row[-1] for row in db.execute_sql("EXPLAIN QUERY PLAN " + ANYTHING_DUE_SQL, ("x",)))

    assert "USING COVERING INDEX idx_memories_decay_due" in plan and "SCAN" not in plan


def test_a_second_run_with_nothing_due_takes_no_batch_and_writes_nothing(memory_app: LoadedApp) -> None:
    memory_app.remember("Stale fact", days_ago=44)
    memory_app.remember("Fresh fact", days_ago=3)
    first = decay_stale_memories(memory_app.clock.stamp())
    before = _dump()

    again = decay_stale_memories(memory_app.clock.stamp())

    assert (first.decayed, first.scheduled) == (1, 2)
    assert (again.decayed, again.scheduled, again.batches) == (0, 0, 0)
    assert _dump() == before


def test_the_write_lock_is_held_in_bounded_batches(memory_app: LoadedApp) -> None:
    """The first decay of many memories: many short transactions, never one over the whole table,
    and still one history entry per memory lowered."""
    bulk_memories(6000, memory_app.clock.stamp(days=44))

    result = decay_stale_memories(memory_app.clock.stamp())

    assert (result.decayed, result.scheduled) == (6000, 6000)
    assert result.batches >= 3  # how long each held the lock is bench/memory_session_start.py's (no timed tests)
    assert BATCH_TARGET_SECONDS < STOP_AFTER_SECONDS <= 0.1
    assert db.execute_sql("SELECT COUNT(*) FROM memory_changes WHERE kind = 'decayed'").fetchone() == (6000,)
    assert db.execute_sql("SELECT MIN(confidence), MAX(confidence) FROM memories").fetchone() == (0.5, 0.5)


def test_a_write_by_anyone_reschedules_the_memory(memory_app: LoadedApp) -> None:
    """The schedule is a cache: the database clears it when what it was computed from changes, whatever
    code writes (here a plain UPDATE no Python of ours knows about)."""
    memory = memory_app.remember("Takes 60s to start", days_ago=20)
    decay_stale_memories(memory_app.clock.stamp())
    assert _schedule(memory.id)[0] == "2026-03-18T12:00:00Z"  # 20 days ago + 30 days grace + 1 week

    db.execute_sql("UPDATE memories SET updated_at = ? WHERE id = ?", (memory_app.clock.stamp(days=60), memory.id))
    assert _schedule(memory.id) == ("", "")
    decay_stale_memories(memory_app.clock.stamp())
    assert repository.get_memory(memory.id).confidence == 0.3  # type: ignore[union-attr]  # 4 weeks past grace

    db.execute_sql("UPDATE memories SET observation = 'Takes 61s to start' WHERE id = ?", (memory.id,))
    assert _schedule(memory.id) != ("", "")  # the text is not an input of decay


def test_pinning_and_unpinning_reschedule(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start", days_ago=20)
    decay_stale_memories(memory_app.clock.stamp())
    pin_memory(memory.id)
    decay_stale_memories(memory_app.clock.stamp())
    assert _schedule(memory.id) == (None, None)  # never: it is out of the index
    unpin_memory(memory.id, now=memory_app.clock.stamp())
    decay_stale_memories(memory_app.clock.stamp())
    assert _schedule(memory.id)[0] == "2026-04-07T12:00:00Z"  # from the unpinning: 30 days + 1 week


def test_a_new_policy_reschedules_every_memory_before_it_decays(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start", days_ago=20)
    decay_stale_memories(memory_app.clock.stamp())  # the spec's policy: nothing due for another 17 days

    shorter = DecayPolicy.uniform(grace_days=6)
    result = decay_stale_memories(memory_app.clock.stamp(), shorter)

    assert result.decayed == 1
    assert repository.get_memory(memory.id).confidence == 0.5  # type: ignore[union-attr]
    assert db.execute_sql("SELECT fingerprint FROM memory_decay_policy").fetchone() == (shorter.fingerprint,)


def test_a_new_policy_decays_a_category_that_did_not_decay_before(memory_app: LoadedApp) -> None:
    """Under a policy where its category does not decay a memory is scheduled "never" (``NULL``); a new policy
    in which it does must look at it again, not leave it out of the schedule for good."""
    memory = memory_app.remember("Needs the NAS mounted first", category="dependency", days_ago=44)
    frozen = DecayPolicy(CategoryDecay(30, 0.1), {"dependency": CategoryDecay(30, 0.0)}, 0.3)
    decay_stale_memories(memory_app.clock.stamp(), frozen)
    assert _schedule(memory.id) == (None, None)

    result = decay_stale_memories(memory_app.clock.stamp(), DecayPolicy.uniform())

    assert (result.decayed, repository.get_memory(memory.id).confidence) == (1, 0.5)  # type: ignore[union-attr]
    assert [entry.kind for entry in memory_history(memory.id)] == ["created", "decayed"]


def test_a_new_policy_does_not_rewrite_a_schedule_already_cleared(memory_app: LoadedApp) -> None:
    """The first run over a store never scheduled (every row ``''``) changes no row before it decays."""
    bulk_memories(50, memory_app.clock.stamp(days=3))
    changes = db.execute_sql("SELECT total_changes()").fetchone()[0]

    decay._adopt(DecayPolicy.uniform(), memory_app.clock.stamp())

    assert db.execute_sql("SELECT total_changes()").fetchone()[0] - changes == 1  # the policy row alone


# --------------------------------------------------------------------------- the preview


def _varied_store(memory_app: LoadedApp, rng: random.Random, count: int) -> None:
    """Memories of every kind decay meets: all ages, confidences, categories, pinned, unpinned, inactive."""
    categories = ("timing", "dependency", "behavior", "remediation", "maintenance")
    for number in range(count):
        memory = memory_app.remember(f"observation {number}", category=rng.choice(categories),
                                     service=rng.choice([None, "nas", "caddy", "jellyfin"]),
                                     confidence=round(rng.uniform(0.2, 1.0), 2), days_ago=rng.uniform(0, 120),
                                     active=None if rng.random() > 0.1 else False)
        if rng.random() < 0.1:
            pin_memory(memory.id, now=memory_app.clock.stamp(days=rng.uniform(0, 100)))
        if rng.random() < 0.05:
            pin_memory(memory.id, now=memory_app.clock.stamp(days=90))
            unpin_memory(memory.id, now=memory_app.clock.stamp(days=rng.uniform(0, 80)))


@pytest.mark.parametrize("seed", range(6))
def test_the_preview_is_exactly_the_block_a_session_start_plans_and_writes_nothing(
        load_memory_app: Callable[..., LoadedApp], seed: int) -> None:
    rng = random.Random(seed)
    environ = {"CLAUDEOPS_MEMORY_BUDGET": str(rng.choice([60, 200, 600, 2000]))}
    if seed % 2:
        environ["CLAUDEOPS_MEMORY_GRACE_DAYS_BY_CATEGORY"] = "maintenance=90,timing=10"
        environ["CLAUDEOPS_MEMORY_DECAY_PER_WEEK_BY_CATEGORY"] = "behavior=0.05,dependency=0"
    memory_app = load_memory_app(**environ)
    _varied_store(memory_app, rng, 120)
    if seed % 3:  # a schedule from an earlier session start, then time passes and some are written since
        decay_stale_memories(memory_app.clock.stamp(days=rng.uniform(1, 20)), DecayPolicy.of(memory_app.settings))
        _varied_store(memory_app, rng, 20)
    now = memory_app.clock.stamp()
    before = _dump()

    preview = preview_memory_context(memory_app.settings, now)

    assert _dump() == before
    started = start_memory(memory_app.settings, now).context
    assert (preview.text, preview.total, preview.ranked_ids) == (started.text, started.total, started.ranked_ids)


def test_decay_history_is_unchanged_by_the_batches(memory_app: LoadedApp) -> None:
    """One entry per memory per lowering, whatever batch it fell in."""
    memory = memory_app.remember("Stale fact", days_ago=44)
    for _ in range(3):
        decay_stale_memories(memory_app.clock.stamp())
    memory_app.clock.advance(days=7)
    decay_stale_memories(memory_app.clock.stamp())
    assert [entry.kind for entry in memory_history(memory.id)] == ["created", "decayed", "decayed"]


def test_a_batch_that_runs_long_commits_early_and_the_rest_stays_due(memory_app: LoadedApp,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow disk cannot stretch one batch: past its time it commits after the current chunk, and the
    memories it did not reach are decayed by the next batches, each exactly once."""
    from claudeops_memory import decay

    bulk_memories(100, memory_app.clock.stamp(days=44))
    monkeypatch.setattr(decay, "STOP_AFTER_SECONDS", 0.0)  # every batch is "late" after its first chunk

    result = decay_stale_memories(memory_app.clock.stamp())

    # one chunk each: a quarter of the first batch of 50 (13 rows), then batches too small to split (10 rows)
    assert (decay.chunk_size(decay.FIRST_BATCH), decay.chunk_size(int(13 * decay.MAX_GROWTH))) == (13, decay.MIN_CHUNK)
    assert result.batches == 1 + 9
    assert (result.decayed, result.scheduled) == (100, 100)
    assert db.execute_sql("SELECT COUNT(*) FROM memory_changes WHERE kind = 'decayed'").fetchone() == (100,)
    assert decay_stale_memories(memory_app.clock.stamp()).decayed == 0
