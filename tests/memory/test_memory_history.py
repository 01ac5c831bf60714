"""Issue 14 item 6: every change of a memory is an append-only history entry saying what changed,
who changed it and how it was decided — markers, judges, decay and the operator's writes alike."""

from __future__ import annotations

import pytest
from claudeops_memory import repository
from claudeops_memory.decay import decay_stale_memories
from claudeops_memory.history import (
    HistoryEntry,
    append_entries_from_json,
    memory_history,
    read_snapshot,
    rewrite_history_text,
)
from claudeops_memory.verdict import JudgeVerdict
from memory_helpers import LoadedApp

from claudeops import hookimpl


def _last(memory_id: int) -> HistoryEntry:
    return memory_history(memory_id)[-1]


class VerdictJudge:
    """A judge answering with a verdict record, as the judges of issue 14 item 4 do."""

    def __init__(self, verdict: JudgeVerdict) -> None:
        self.verdict = verdict

    @hookimpl
    def judge_memory_relation(self) -> JudgeVerdict:
        return self.verdict


def test_a_marker_creates_a_memory_with_its_session_as_the_actor(memory_app: LoadedApp) -> None:
    session = memory_app.started(tier=3)
    memory_app.emit(session, "[MEMORY:dependency:caddy] Must be started after WireGuard")

    [memory] = repository.list_memories()
    [entry] = memory_history(memory.id)
    assert (entry.kind, entry.actor, entry.session_id, entry.tier, entry.changed_at) == (
        "created", "session", session.id, 3, session.now())
    assert (entry.new_confidence, entry.new_active, entry.new_observation, entry.new_updated_at) == (
        0.7, True, "Must be started after WireGuard", memory.updated_at)
    assert (entry.old_confidence, entry.old_observation) == (None, None)


def test_an_exact_repeat_reinforces_and_says_so(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start after restart", service="jellyfin", days_ago=3)
    session = memory_app.started()

    memory_app.emit(session, "[MEMORY:timing:jellyfin] takes 60s to start  after restart")

    entry = _last(memory.id)
    assert (entry.kind, entry.decided_by, entry.certainty) == ("reinforced", "exact repeat", None)
    assert (entry.old_confidence, entry.new_confidence) == (0.7, 0.8)
    assert (entry.old_updated_at, entry.new_updated_at) == (memory.updated_at, session.now())
    assert entry.old_observation is entry.new_observation is None  # the text did not change


def test_the_offline_judge_is_named_in_the_history(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start after restart", service="jellyfin")

    memory_app.emit(memory_app.started(), "[MEMORY:timing:jellyfin] Takes about 60 seconds to start after a restart")

    assert (_last(memory.id).kind, _last(memory.id).decided_by) == ("reinforced", "offline judge")


def test_a_judged_contradiction_records_the_judge_its_certainty_and_reason_and_asks_for_review(
        memory_app: LoadedApp) -> None:
    memory_app.app.pm.register(VerdictJudge(JudgeVerdict("contradict", 0.9, "opposite start order", "mine")),
                               name="verdict-judge")
    old = memory_app.remember("Must be started after WireGuard", service="caddy", category="dependency")

    memory_app.emit(memory_app.started(), "[MEMORY:dependency:caddy] Can be started independently of WireGuard")

    [new] = [memory for memory in repository.list_memories() if memory.id != old.id]
    entry = _last(old.id)
    assert (entry.kind, entry.decided_by, entry.certainty, entry.reason) == (
        "contradicted", "mine judge", 0.9, "opposite start order")
    assert (entry.related_memory_id, entry.needs_review, entry.old_confidence, entry.new_confidence) == (
        new.id, True, 0.7, 0.5)
    assert _last(new.id).kind == "created"


def test_a_bare_string_from_a_third_party_judge_is_credited_to_that_plugin(memory_app: LoadedApp) -> None:
    class WordJudge:
        @hookimpl
        def judge_memory_relation(self) -> str:
            return "reinforce"

    memory_app.app.pm.register(WordJudge(), name="word-judge")
    memory = memory_app.remember("Takes 60s to start after restart", service="jellyfin")

    memory_app.emit(memory_app.started(), "[MEMORY:timing:jellyfin] Slow to start")

    assert (_last(memory.id).decided_by, _last(memory.id).certainty) == ("word-judge judge", 1.0)


def test_an_unsure_verdict_stores_a_new_memory_and_flags_it_for_review(memory_app: LoadedApp) -> None:
    memory_app.app.pm.register(VerdictJudge(JudgeVerdict("reinforce", 0.4, "same numbers, other words", "mine")),
                               name="verdict-judge")
    old = memory_app.remember("Takes 60s to start after restart", service="jellyfin")

    memory_app.emit(memory_app.started(), "[MEMORY:timing:jellyfin] Takes about a minute after a restart")

    assert repository.get_memory(old.id) == old  # an unsure reinforce is not acted on
    [new] = [memory for memory in repository.list_memories() if memory.id != old.id]
    [entry] = memory_history(new.id)
    assert (entry.kind, entry.needs_review, entry.related_memory_id) == ("created", True, old.id)
    assert (entry.decided_by, entry.certainty, entry.reason) == ("mine judge", 0.4, "same numbers, other words")


def test_a_repeat_within_the_session_writes_no_entry(memory_app: LoadedApp) -> None:
    session = memory_app.started()
    memory_app.emit(session, "[MEMORY:timing:jellyfin] Takes 60s to start after restart")
    memory_app.emit(session, "[MEMORY:timing:jellyfin] Takes 60s to start after restart")

    [memory] = repository.list_memories()
    assert [entry.kind for entry in memory_history(memory.id)] == ["created"]


def test_reactivating_a_forgotten_memory_is_recorded(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start after restart", service="jellyfin", confidence=0.2)

    memory_app.emit(memory_app.started(), "[MEMORY:timing:jellyfin] Takes 60s to start after restart")

    entry = _last(memory.id)
    assert (entry.kind, entry.old_active, entry.new_active, entry.new_confidence) == ("reactivated", False, True, 0.7)


# --------------------------------------------------------------------------- decay


def test_decay_writes_one_entry_per_memory_each_time_it_lowers_it(memory_app: LoadedApp) -> None:
    stale = memory_app.remember("Stale fact", days_ago=44)
    fresh = memory_app.remember("Fresh fact", days_ago=3)
    now = memory_app.clock.stamp()

    for _ in range(3):  # three session starts at the same moment: one lowering
        decay_stale_memories(now)
    memory_app.clock.advance(days=7)
    decay_stale_memories(memory_app.clock.stamp())

    decays = [entry for entry in memory_history(stale.id) if entry.kind == "decayed"]
    assert [(entry.actor, entry.old_confidence, entry.new_confidence, entry.changed_at) for entry in decays] == [
        ("decay", 0.7, 0.5, now), ("decay", 0.5, 0.4, memory_app.clock.stamp())]
    assert decays[0].reason == "not reinforced for over 30 days"
    assert [entry.kind for entry in memory_history(fresh.id)] == ["created"]


def test_entries_from_json_take_only_the_tables_own_columns(memory_app: LoadedApp) -> None:
    """The column names of a set-based append become SQL: a name that is not a column is refused before
    any statement runs, whatever it holds."""
    memory = memory_app.remember("Stale fact", days_ago=44)
    before = memory_history(memory.id)
    for constant, varying in (({"kind": "decayed"}, {"memory_id) SELECT 1; --": 0}),
                              ({"kind = 'x'": "decayed"}, {"memory_id": 0}), ({"uid": "x"}, {"memory_id": 0})):
        with pytest.raises(ValueError, match="not columns of memory_changes"):
            append_entries_from_json(constant, varying, f"[[{memory.id}]]")
    assert memory_history(memory.id) == before


def test_decay_that_deactivates_records_the_new_state(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Stale fact", confidence=0.4, days_ago=44)

    decay_stale_memories(memory_app.clock.stamp())

    entry = _last(memory.id)
    assert (entry.kind, entry.old_active, entry.new_active, entry.new_confidence) == ("decayed", True, False, 0.2)


# --------------------------------------------------------------------------- the operator's writes


def test_operator_writes_are_recorded(memory_app: LoadedApp) -> None:
    memory = repository.create_memory(category="maintenance", service="postgres",
                                      observation="Needs manual VACUUM FULL weekly", confidence=0.9)
    repository.update_memory(memory.id, observation="Needs VACUUM FULL every Sunday")
    repository.update_memory(memory.id, confidence=0.2)
    repository.adjust_confidence([memory.id], 0.3)
    repository.delete_memories([memory.id])

    entries = memory_history(memory.id)
    assert [(entry.kind, entry.actor, entry.old_confidence, entry.new_confidence) for entry in entries] == [
        ("created", "operator", None, 0.9), ("edited", "operator", 0.9, 0.9),
        ("deactivated", "operator", 0.9, 0.2), ("reactivated", "operator", 0.2, 0.5),
        ("deleted", "operator", 0.5, None)]
    assert (entries[1].old_observation, entries[1].new_observation) == ("Needs manual VACUUM FULL weekly",
                                                                         "Needs VACUUM FULL every Sunday")
    row, _ = read_snapshot(entries[-1].snapshot or "")
    assert (row.id, row.observation, row.confidence, row.active) == (memory.id, "Needs VACUUM FULL every Sunday",
                                                                     0.5, True)


def test_a_deletion_keeps_the_decay_already_applied(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Stale fact", days_ago=44)
    decay_stale_memories(memory_app.clock.stamp())

    repository.delete_memories([memory.id])

    _, decay = read_snapshot(_last(memory.id).snapshot or "")
    assert decay == (memory.updated_at, 2)


# --------------------------------------------------------------------------- redaction, the documented rewrite


def test_rewriting_history_text_reaches_every_stored_text_and_is_recorded(memory_app: LoadedApp) -> None:
    # a word the redactor does not know (it already keeps real secrets out): the rewrite itself is tested
    memory = repository.create_memory(category="behavior", observation="Login works with the word opensesame")
    repository.update_memory(memory.id, observation="Login works with the word opensesame on port 8080")
    repository.delete_memories([memory.id])

    changed = rewrite_history_text(lambda text: text.replace("opensesame", "[REDACTED]"), memory_app.clock.stamp(),
                                   "redacted: password assignment")

    entries = memory_history(memory.id)
    assert changed == {memory.id: 3}
    stored = " ".join(f"{entry.old_observation} {entry.new_observation} {entry.snapshot}" for entry in entries)
    assert "opensesame" not in stored and "[REDACTED]" in stored
    assert (entries[-1].kind, entries[-1].actor, entries[-1].reason) == ("redacted", "redaction",
                                                                         "redacted: password assignment")
    assert rewrite_history_text(lambda text: text, memory_app.clock.stamp(), "nothing") == {}


def test_history_survives_other_writers(memory_app: LoadedApp) -> None:
    """An entry is never changed by later writes: the first entry of a memory stays as written."""
    memory = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    first = memory_history(memory.id)[0]
    repository.update_memory(memory.id, observation="Takes 90s to start after restart", confidence=0.9)
    memory_app.emit(memory_app.started(), "[MEMORY:timing:jellyfin] Takes 90s to start after restart")

    assert memory_history(memory.id)[0] == first
    assert [entry.kind for entry in memory_history(memory.id)] == ["created", "edited", "reinforced"]
