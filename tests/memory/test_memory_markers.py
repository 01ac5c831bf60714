"""SPEC-0015 "Memory Categories", "Memory Marker Format", "All Tiers Can Write Memories" and
"Memory Marker Regex": what a [MEMORY:...] marker in assistant text stores, and what it does not."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
from claudeops_memory import repository
from claudeops_memory.marker import MEMORY_PATTERN
from memory_helpers import LoadedApp


def _only_memory() -> repository.MemoryRecord:
    memories = repository.list_memories()
    assert len(memories) == 1
    return memories[0]


def test_regex_matches_well_formed_marker() -> None:
    match = MEMORY_PATTERN.match("[MEMORY:dependency:postgres] Dependents should wait 10s after postgres restart")
    assert match is not None
    assert match.groups() == ("dependency", "postgres", "Dependents should wait 10s after postgres restart")


def test_regex_rejects_malformed_marker() -> None:
    assert MEMORY_PATTERN.match("[MEMORY:unknown] Some observation") is None


def test_regex_is_the_spec_regex_verbatim() -> None:
    assert MEMORY_PATTERN.pattern == (
        r"\[MEMORY:(timing|dependency|behavior|remediation|maintenance)(?::([a-zA-Z0-9_-]+))?\]\s*(.+)")


def test_valid_category_accepted(memory_app: LoadedApp) -> None:
    memory_app.emit(memory_app.session(), "[MEMORY:timing] Backups take 20 minutes to finish")
    assert _only_memory().category == "timing"


def test_invalid_category_rejected(memory_app: LoadedApp, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        memory_app.emit(memory_app.session(), "[MEMORY:misc] Something worth remembering")

    assert repository.count_memories() == 0
    warnings = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    assert any("unknown memory category 'misc'" in message for message in warnings)


def test_general_memory_marker_no_service(memory_app: LoadedApp) -> None:
    session = memory_app.session(tier=2)
    memory_app.emit(session, "[MEMORY:remediation] DNS checks sometimes fail transiently during WireGuard "
                             "reconnects -- retry once before escalating")
    memory = _only_memory()
    assert (memory.category, memory.service, memory.confidence, memory.tier, memory.active) == (
        "remediation", None, 0.7, 2, True)
    assert memory.observation == ("DNS checks sometimes fail transiently during WireGuard reconnects -- "
                                  "retry once before escalating")


def test_service_specific_memory_marker(memory_app: LoadedApp) -> None:
    memory_app.emit(memory_app.session(),
                    "[MEMORY:timing:jellyfin] Takes 60s to start after restart -- wait before checking health")
    memory = _only_memory()
    assert (memory.category, memory.service, memory.confidence) == ("timing", "jellyfin", 0.7)
    assert memory.observation == "Takes 60s to start after restart -- wait before checking health"


def test_memory_linked_to_session(memory_app: LoadedApp) -> None:
    session = memory_app.session(session_id=42)
    memory_app.emit(session, "[MEMORY:behavior:adguard] Returns HTTP 302 redirect when healthy, not 200")
    memory = _only_memory()
    assert memory.session_id == 42
    assert memory.created_at == memory.updated_at == "2026-03-01T12:00:00Z"


def test_tier_1_creates_a_memory(memory_app: LoadedApp) -> None:
    memory_app.emit(memory_app.session(tier=1),
                    "[MEMORY:behavior:adguard] Returns HTTP 302 redirect when healthy, not 200")
    assert _only_memory().tier == 1


def test_tier_3_creates_a_memory(memory_app: LoadedApp) -> None:
    memory_app.emit(memory_app.session(tier=3), "[MEMORY:dependency:caddy] Must be started after WireGuard -- "
                                                "fails with no route to host otherwise")
    memory = _only_memory()
    assert (memory.tier, memory.service, memory.category) == (3, "caddy", "dependency")


def test_several_markers_in_one_text_block(memory_app: LoadedApp) -> None:
    memory_app.emit(memory_app.session(), "Checked everything.\n"
                                          "[MEMORY:timing:jellyfin] Takes 60s to start after restart\n"
                                          "Some prose in between.\n"
                                          "[MEMORY:maintenance:postgres] Needs a manual VACUUM FULL weekly "
                                          "[MEMORY:behavior] The NAS sleeps its disks after 10 minutes idle")
    stored = {(memory.service, memory.category, memory.observation) for memory in repository.list_memories()}
    assert stored == {("jellyfin", "timing", "Takes 60s to start after restart"),
                      ("postgres", "maintenance", "Needs a manual VACUUM FULL weekly"),
                      (None, "behavior", "The NAS sleeps its disks after 10 minutes idle")}


def test_bare_marker_does_not_take_the_next_line_as_its_observation(memory_app: LoadedApp) -> None:
    memory_app.emit(memory_app.session(), "[MEMORY:timing:jellyfin]\nThis line is prose, not a memory")
    assert repository.count_memories() == 0


def test_observation_is_one_trimmed_line(memory_app: LoadedApp) -> None:
    memory_app.emit(memory_app.session(), "[MEMORY:timing:jellyfin]    Takes 60s \t to   start   ")
    assert _only_memory().observation == "Takes 60s to start"


def test_blank_observation_is_warned_about_and_not_counted_as_recorded(memory_app: LoadedApp,
                                                                       caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="claudeops_memory"):
        answer = memory_app.handle(memory_app.session(), "[MEMORY:timing]   ")
    assert answer is False
    assert repository.count_memories() == 0
    assert "ignored a memory marker without an observation" in caplog.text


def test_a_stored_marker_is_counted_as_recorded(memory_app: LoadedApp) -> None:
    assert memory_app.handle(memory_app.session(), "[MEMORY:timing:jellyfin] Takes 60s to start") is not False


def test_long_observation_is_cut_with_a_warning(memory_app: LoadedApp, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        memory_app.emit(memory_app.session(), "[MEMORY:behavior:nas] " + "very long observation " * 60)

    observation = _only_memory().observation
    assert len(observation) == 500
    assert observation.endswith("…")
    assert any("cut from" in record.getMessage() for record in caplog.records)


def test_the_cut_warning_gives_the_length_the_agent_wrote_past_the_line_cut(
        memory_app: LoadedApp, caplog: pytest.LogCaptureFixture) -> None:
    """A 1 MB marker's line is first cut at 20,000 characters by the parser; the warning still says 1 MB."""
    text = "x" * 1_000_000
    with caplog.at_level(logging.WARNING):
        memory_app.emit(memory_app.session(), "[MEMORY:behavior:nas] " + text)
    assert len(_only_memory().observation) == 500
    [message] = [record.getMessage() for record in caplog.records if "cut from" in record.getMessage()]
    assert message.startswith("memory observation cut from 1000000 to 500 characters")


def test_observation_limit_is_configurable(load_memory_app: Callable[..., LoadedApp]) -> None:
    loaded = load_memory_app(CLAUDEOPS_MEMORY_MAX_OBSERVATION_CHARS="40")
    loaded.emit(loaded.session(), "[MEMORY:behavior:nas] " + "word " * 30)
    assert len(_only_memory().observation) == 40


def test_service_names_are_lower_cased_so_they_reinforce_each_other(memory_app: LoadedApp) -> None:
    memory_app.emit(memory_app.session(), "[MEMORY:timing:Jellyfin] Takes 60s to start after restart")
    memory_app.emit(memory_app.session(), "[MEMORY:timing:jellyfin] Takes 60s to start after restart")
    memory = _only_memory()
    assert (memory.service, memory.confidence) == ("jellyfin", 0.8)


def test_service_named_general_is_a_general_memory(memory_app: LoadedApp) -> None:
    memory_app.emit(memory_app.session(), "[MEMORY:remediation:general] Retry DNS checks once")
    assert _only_memory().service is None


def test_marker_without_category_is_reported_as_malformed(memory_app: LoadedApp,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        memory_app.emit(memory_app.session(), "[MEMORY] remember this\n[MEMORY:timing:two words] x")
    assert repository.count_memories() == 0
    assert sum("malformed memory marker" in record.getMessage() for record in caplog.records) == 2
