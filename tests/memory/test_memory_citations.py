"""Issue 14 items 1 and 3: the agent cites the memory it confirms or replaces, and a citation is a
checked decision — it counts only for a memory injected into that very session, still stored and
active, about the marker's service; otherwise a warning says why and the marker is judged."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest
from claudeops_memory import repository
from claudeops_memory.citation import read_citation
from claudeops_memory.history import memory_history
from claudeops_memory.models import Memory
from memory_helpers import LoadedApp

from claudeops import hookimpl
from claudeops.session import Outcome, Session


class RecordingJudge:
    """A judge that answers one word and remembers every question, to prove a marker was judged."""

    def __init__(self, answer: str = "distinct") -> None:
        self.answer = answer
        self.questions: list[tuple[str, str]] = []

    @hookimpl
    def judge_memory_relation(self, existing: str, new: str) -> str:
        self.questions.append((existing, new))
        return self.answer


@pytest.fixture
def judge(memory_app: LoadedApp) -> RecordingJudge:
    recording = RecordingJudge()
    memory_app.app.pm.register(recording, name="recording-judge")
    return recording


def _all_text() -> str:
    """Every text stored about memories: the table and the whole history."""
    rows = [memory.observation for memory in repository.list_memories()]
    for memory_id in {row.id for row in Memory.select(Memory.id)}:
        for entry in memory_history(memory_id):
            rows += [entry.old_observation or "", entry.new_observation or "", entry.snapshot or ""]
    return "\n".join(rows)


# --------------------------------------------------------------------------- reading the citation


def test_a_citation_is_read_off_the_end_of_the_observation() -> None:
    cited = read_citation("Takes about a minute to start after a restart (confirms #12)")
    assert (cited.text, cited.citation.verb, cited.citation.memory_id) == (  # type: ignore[union-attr]
        "Takes about a minute to start after a restart", "confirms", 12)
    assert read_citation("Needs 3 minutes now ( Replaces  #7 )").citation.verb == "replaces"  # type: ignore[union-attr]


def test_two_citations_cite_nothing_and_neither_is_kept_in_the_text() -> None:
    cited = read_citation("Slow (confirms #3) start (replaces #4)")
    assert (cited.text, cited.citation) == ("Slow start", None)
    assert cited.problem is not None and "cite one" in cited.problem


def test_an_id_no_row_can_have_is_no_citation() -> None:
    assert read_citation("Slow start (confirms #0)").citation is None
    assert read_citation("Slow start (confirms #99999999999999999999)").citation is None


# --------------------------------------------------------------------------- confirms


def test_confirms_citation_reinforces_the_cited_memory_without_asking_the_judge(memory_app: LoadedApp,
                                                                                judge: RecordingJudge) -> None:
    cited = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    session = memory_app.started()

    memory_app.emit(session, f"[MEMORY:timing:jellyfin] Takes about a minute to start after a restart "
                             f"(confirms #{cited.id})")

    [memory] = repository.list_memories()
    assert (memory.id, memory.confidence, memory.observation) == (cited.id, 0.8, "Takes 60s to start after restart")
    assert memory.updated_at == session.now()
    assert judge.questions == []
    last = memory_history(cited.id)[-1]
    assert (last.kind, last.decided_by, last.session_id, last.tier) == ("reinforced", "citation", session.id, 1)
    assert (last.old_confidence, last.new_confidence) == (0.7, 0.8)
    assert last.reason == (f"(confirms #{cited.id}) in the agent's marker: "
                           "'Takes about a minute to start after a restart'")
    assert "#" not in _all_text()


def test_a_confirmed_memory_is_reinforced_once_per_session(memory_app: LoadedApp) -> None:
    cited = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    session = memory_app.started()

    for _ in range(2):
        memory_app.emit(session, f"[MEMORY:timing:jellyfin] Still takes a minute (confirms #{cited.id})")

    assert repository.get_memory(cited.id).confidence == 0.8  # type: ignore[union-attr]
    assert [entry.kind for entry in memory_history(cited.id)] == ["created", "reinforced"]
    assert session.markers_recorded == 1


def test_a_second_confirmation_in_a_session_is_logged_not_dropped_in_silence(
        memory_app: LoadedApp, caplog: pytest.LogCaptureFixture) -> None:
    cited = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    session = memory_app.started()
    memory_app.emit(session, f"[MEMORY:timing:jellyfin] Still takes a minute (confirms #{cited.id})")

    with caplog.at_level(logging.INFO, logger="claudeops_memory"):
        memory_app.emit(session, f"[MEMORY:timing:jellyfin] Library scan at 4am (confirms #{cited.id})")

    assert f"memory #{cited.id} was already reinforced in this session; 'Library scan at 4am'" in caplog.text


# --------------------------------------------------------------------------- replaces


def test_replaces_citation_weakens_the_memory_and_stores_its_successor(memory_app: LoadedApp,
                                                                       judge: RecordingJudge) -> None:
    old = memory_app.remember("Takes 60s to start after restart", service="jellyfin", confidence=0.8)
    session = memory_app.started(tier=2)

    memory_app.emit(session, f"[MEMORY:timing:jellyfin] Takes 3 minutes to start since the 10.9 upgrade "
                             f"(replaces #{old.id})")

    weakened = repository.get_memory(old.id)
    [successor] = [memory for memory in repository.list_memories() if memory.id != old.id]
    assert (weakened.confidence, weakened.active) == (0.6, True)  # type: ignore[union-attr]
    assert weakened.updated_at == old.updated_at  # type: ignore[union-attr]
    assert (successor.observation, successor.confidence, successor.session_id, successor.tier) == (
        "Takes 3 minutes to start since the 10.9 upgrade", 0.7, session.id, 2)
    assert judge.questions == []
    replaced = memory_history(old.id)[-1]
    assert (replaced.kind, replaced.related_memory_id, replaced.decided_by, replaced.needs_review) == (
        "replaced", successor.id, "citation", True)
    [created] = memory_history(successor.id)
    assert (created.kind, created.related_memory_id, created.decided_by) == ("created", old.id, "citation")
    assert "#" not in _all_text()


def test_replacing_a_weak_memory_deactivates_it(memory_app: LoadedApp) -> None:
    old = memory_app.remember("Returns HTTP 302 when healthy", service="adguard", category="behavior",
                              confidence=0.4)
    session = memory_app.started()

    memory_app.emit(session, f"[MEMORY:behavior:adguard] Returns HTTP 200 when healthy since v0.108 "
                             f"(replaces #{old.id})")

    weakened = repository.get_memory(old.id)
    assert (weakened.confidence, weakened.active) == (0.2, False)  # type: ignore[union-attr]


def test_a_memory_is_replaced_once_per_session(memory_app: LoadedApp) -> None:
    old = memory_app.remember("Takes 60s to start after restart", service="jellyfin", confidence=0.9)
    session = memory_app.started()

    memory_app.emit(session, f"[MEMORY:timing:jellyfin] Takes 3 minutes to start (replaces #{old.id})\n"
                             f"[MEMORY:timing:jellyfin] Takes 3 minutes to start now (replaces #{old.id})")

    assert repository.get_memory(old.id).confidence == 0.7  # type: ignore[union-attr]
    assert repository.count_memories() == 2
    assert session.markers_recorded == 1


def test_a_replacement_is_reported_as_a_warning_event(memory_app: LoadedApp) -> None:
    old = memory_app.remember("Must be started after WireGuard", service="caddy", category="dependency")
    session = memory_app.started()

    memory_app.emit(session, f"[MEMORY:dependency:caddy] Starts fine without WireGuard (replaces #{old.id})")

    [event] = session.recorded_events
    assert event.level == "warning" and f"memory #{old.id}" in event.message and "replaced by" in event.message


# --------------------------------------------------------------------------- citations that do not count


def _ignored(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if "ignored the citation" in record.getMessage()]


def test_citing_a_memory_not_injected_into_this_session_is_ignored_and_judged(
        memory_app: LoadedApp, judge: RecordingJudge, caplog: pytest.LogCaptureFixture) -> None:
    session = memory_app.started()  # its block was planned before the memory existed
    later = memory_app.remember("Takes 60s to start after restart", service="jellyfin")

    with caplog.at_level(logging.WARNING):
        memory_app.emit(session, f"[MEMORY:timing:jellyfin] Takes 90s to start (confirms #{later.id})")

    assert _ignored(caplog) and f"memory #{later.id} was not in this session's Operational Memory" in _ignored(
        caplog)[0]
    assert judge.questions == [("Takes 60s to start after restart", "Takes 90s to start")]
    assert repository.get_memory(later.id).confidence == 0.7  # type: ignore[union-attr]
    assert sorted(memory.observation for memory in repository.list_memories()) == [
        "Takes 60s to start after restart", "Takes 90s to start"]


def test_citing_a_memory_of_another_service_is_ignored(memory_app: LoadedApp, judge: RecordingJudge,
                                                       caplog: pytest.LogCaptureFixture) -> None:
    other = memory_app.remember("Takes 60s to start after restart", service="plex")
    session = memory_app.started()

    with caplog.at_level(logging.WARNING):
        memory_app.emit(session, f"[MEMORY:timing:jellyfin] Takes 60s to start (replaces #{other.id})")

    assert f"memory #{other.id} is about plex, not jellyfin" in _ignored(caplog)[0]
    assert repository.get_memory(other.id).confidence == 0.7  # type: ignore[union-attr]
    assert [entry.kind for entry in memory_history(other.id)] == ["created"]


def test_citing_a_deleted_memory_is_ignored(memory_app: LoadedApp, judge: RecordingJudge,
                                            caplog: pytest.LogCaptureFixture) -> None:
    gone = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    session = memory_app.started()
    repository.delete_memories([gone.id])

    with caplog.at_level(logging.WARNING):
        memory_app.emit(session, f"[MEMORY:timing:jellyfin] Takes 60s to start (confirms #{gone.id})")

    assert f"memory #{gone.id} no longer exists" in _ignored(caplog)[0]
    [new] = repository.list_memories()
    assert new.observation == "Takes 60s to start" and new.id != gone.id


def test_citing_a_hallucinated_id_is_ignored(memory_app: LoadedApp, judge: RecordingJudge,
                                             caplog: pytest.LogCaptureFixture) -> None:
    session = memory_app.started()

    with caplog.at_level(logging.WARNING):
        memory_app.emit(session, "[MEMORY:timing:jellyfin] Takes 60s to start (confirms #4242)")

    assert "memory #4242 was not in this session's Operational Memory" in _ignored(caplog)[0]
    [new] = repository.list_memories()
    assert new.observation == "Takes 60s to start"


def test_replacing_a_memory_with_its_own_text_is_no_replacement(memory_app: LoadedApp,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    old = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    session = memory_app.started()

    with caplog.at_level(logging.WARNING):
        memory_app.emit(session, f"[MEMORY:timing:jellyfin] Takes 60s to start after restart (replaces #{old.id})")

    assert "is the text of memory" in _ignored(caplog)[0]
    assert repository.get_memory(old.id).confidence == 0.8  # type: ignore[union-attr]  # an exact repeat


# --------------------------------------------------------------------------- a replayed session


def _entries(memory_id: int) -> list[tuple[Any, ...]]:
    return [(entry.kind, entry.actor, entry.session_id, entry.decided_by, entry.related_memory_id,
             entry.old_confidence, entry.new_confidence) for entry in memory_history(memory_id)]


def test_replayed_session_citing_memories_leaves_exactly_these_rows_and_entries(
        memory_app: LoadedApp, judge: RecordingJudge, run_scripted_session: Callable[..., Outcome]) -> None:
    """Done-when of issue 14: a confirmation, a replacement, and four citations that must not count — a
    memory not injected, one of another service, a deleted one, a hallucinated id — through the runner."""
    confirmed = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    replaced = memory_app.remember("Must be started after WireGuard", service="caddy", category="dependency",
                                   confidence=0.8)
    foreign = memory_app.remember("Answers 302 when healthy", service="adguard", category="behavior")
    deleted = memory_app.remember("Nightly backup at 02:00", service="nas", category="maintenance")
    weak = memory_app.remember("Scrub takes 6 hours", service="nas", category="maintenance", confidence=0.2)
    started: list[Session] = []

    class DeleteAfterInjection:
        @hookimpl(trylast=True)  # after the memory plugin has planned (and recorded) the block
        def before_session(self, session: Session) -> None:
            started.append(session)
            repository.delete_memories([deleted.id])

    memory_app.app.pm.register(DeleteAfterInjection(), name="delete-after-injection")
    outcome = run_scripted_session(["Checked the services.\n" + "\n".join([
        f"[MEMORY:timing:jellyfin] Takes about a minute to start after a restart (confirms #{confirmed.id})",
        f"[MEMORY:dependency:caddy] Starts fine without WireGuard since 2.8 (replaces #{replaced.id})",
        f"[MEMORY:behavior:pihole] Answers 302 when it is healthy (confirms #{foreign.id})",
        f"[MEMORY:maintenance:nas] Nightly backup runs at 02:00 (confirms #{deleted.id})",
        f"[MEMORY:maintenance:nas] A scrub takes about 6 hours (confirms #{weak.id})",
        "[MEMORY:timing:sonarr] Indexer sync takes 5 minutes (confirms #9999)"])], tier=2)

    assert outcome.status == "completed"
    [session] = started
    rows = {(memory.service, memory.observation): memory for memory in repository.list_memories()}
    assert {key: (row.confidence, row.active, row.session_id, row.tier) for key, row in rows.items()} == {
        ("jellyfin", "Takes 60s to start after restart"): (0.8, True, None, 1),
        ("caddy", "Must be started after WireGuard"): (0.6, True, None, 1),
        ("caddy", "Starts fine without WireGuard since 2.8"): (0.7, True, session.id, 2),
        ("adguard", "Answers 302 when healthy"): (0.7, True, None, 1),
        ("pihole", "Answers 302 when it is healthy"): (0.7, True, session.id, 2),
        ("nas", "Nightly backup runs at 02:00"): (0.7, True, session.id, 2),
        ("nas", "Scrub takes 6 hours"): (0.2, False, None, 1),
        ("nas", "A scrub takes about 6 hours"): (0.7, True, session.id, 2),
        ("sonarr", "Indexer sync takes 5 minutes"): (0.7, True, session.id, 2),
    }
    successor = rows[("caddy", "Starts fine without WireGuard since 2.8")].id
    assert _entries(confirmed.id) == [("created", "operator", None, None, None, None, 0.7),
                                      ("reinforced", "session", session.id, "citation", None, 0.7, 0.8)]
    assert _entries(replaced.id) == [("created", "operator", None, None, None, None, 0.8),
                                     ("replaced", "session", session.id, "citation", successor, 0.8, 0.6)]
    assert _entries(successor) == [("created", "session", session.id, "citation", replaced.id, None, 0.7)]
    assert _entries(foreign.id) == [("created", "operator", None, None, None, None, 0.7)]
    assert _entries(deleted.id) == [("created", "operator", None, None, None, None, 0.7),
                                    ("deleted", "operator", None, None, None, 0.7, None)]
    assert _entries(weak.id) == [("created", "operator", None, None, None, None, 0.2)]
    for key in [("pihole", "Answers 302 when it is healthy"), ("nas", "Nightly backup runs at 02:00"),
                ("sonarr", "Indexer sync takes 5 minutes")]:  # no candidate: nothing was decided
        assert _entries(rows[key].id) == [("created", "session", session.id, None, None, None, 0.7)], key
    # judged distinct from the backup memory: the entry says which judge decided it is a new fact
    assert _entries(rows[("nas", "A scrub takes about 6 hours")].id) == [
        ("created", "session", session.id, "recording-judge judge", None, None, 0.7)]
    nightly = rows[("nas", "Nightly backup runs at 02:00")].id
    assert memory_history(rows[("nas", "A scrub takes about 6 hours")].id)[0].reason == (
        f"a new fact beside #{nightly} distinct")
    # the uncited nas markers met only each other: the weak memory is inactive, the cited one deleted
    assert judge.questions == [("Nightly backup runs at 02:00", "A scrub takes about 6 hours")]
    assert "#" not in _all_text()
