"""Events and cooldowns through the real runner and SDK parser (a scripted session replayed):
markers are stored as they arrive, and a refused restart reaches the model as the tool result."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claudeops_cooldowns.repository import list_actions
from claudeops_events.repository import list_events

from claudeops.runner.script import bash


@pytest.fixture
def run_scripted(run_scripted_session, clock):
    """``run_scripted(steps, tier, clock)``: one session of ``steps``, not escalating; its report."""
    return lambda steps, tier, clock: run_scripted_session(steps, tier, trigger="test", escalate=False, clock=clock)


def tool_results(report) -> list[str]:
    """The tool results of the session's transcript (the replay puts refusals there, as the CLI does)."""
    frames = [json.loads(line) for line in Path(report.transcript_path).read_text().splitlines()]
    return [str(block["content"]) for frame in frames if frame["type"] == "user"
            for block in frame["message"]["content"] if block.get("type") == "tool_result"]


def test_a_refused_restart_reaches_the_model_and_is_an_event_of_the_session(app, make_session, feed_text, clock,
                                                                            run_scripted):
    feed_text(make_session(tier=2, clock=clock), "[COOLDOWN:restart:jellyfin] success — one\n"
                                                 "[COOLDOWN:restart:jellyfin] success — two")
    report = run_scripted(["Jellyfin is down again.", bash("docker restart jellyfin", "jellyfin"),
                           "[EVENT:warning:jellyfin] down, restart refused by cooldown"], 2, clock)
    assert (report.status, report.tools_denied) == ("completed", 1)
    [result] = tool_results(report)
    assert "Refused by claudeops cooldowns" in result and "allowed from 2025-06-01T16:00:00Z" in result
    assert [(event.level, event.service, event.session_id) for event in list_events()] == [
        ("warning", "jellyfin", report.session_id), ("warning", "jellyfin", report.session_id)]
    assert [event.message for event in report.events] == [
        "cooldown blocked restart of jellyfin (2/2 in 4 h, allowed again from 2025-06-01T16:00:00Z): "
        "docker restart jellyfin",
        "down, restart refused by cooldown"]


def test_markers_of_a_session_are_stored_as_they_arrive(app, clock, run_scripted):
    report = run_scripted([bash("docker restart sonarr", "sonarr"),
                           "[COOLDOWN:restart:sonarr] success — healthy after 20 s\n"
                           "[EVENT:info:sonarr] restarted, queue moving again"], 2, clock)
    assert report.tools_denied == 0
    [action] = list_actions()
    assert (action.service, action.action, action.tier, action.session_id) == ("sonarr", "restart", 2,
                                                                               report.session_id)
    assert [event.message for event in list_events()] == ["restarted, queue moving again"]


def test_tier_1_restarts_are_refused_in_a_session(app, clock, run_scripted):
    report = run_scripted([bash("sudo docker restart jellyfin", "jellyfin"), "done"], 1, clock)
    assert report.tools_denied == 1
    # the runner's read-only gate answers first; the plugin's own tier-1 refusal is the second line of defence
    assert tool_results(report)[0].startswith(
        "tier 1 is read-only: refused `docker restart jellyfin`: `restart` is not a read-only sub-command of docker")


def test_a_cooldown_marker_counts_for_the_very_next_tool_call_of_the_same_response(app, clock, run_scripted):
    """The SDK buffers messages: the gate waits until the marker written before a call is stored."""
    report = run_scripted([bash("docker restart plex", "plex"), "[COOLDOWN:restart:plex] success — 1",
                           bash("docker restart plex", "plex"), "[COOLDOWN:restart:plex] success — 2",
                           bash("docker restart plex", "plex")], 2, clock)
    assert report.tools_denied == 1
    assert "Refused by claudeops cooldowns" in tool_results(report)[2]
