"""claudeops events list: filters, JSON, one-line errors."""

from __future__ import annotations

import json

import pytest
from claudeops_events.repository import store_event

from claudeops.clock import now_timestamp, to_timestamp, utc_now
from claudeops.notable import FINDING, NotableEvent


@pytest.fixture
def app(claudeops_app, make_session):
    """The suite's app with three events: two of a session, just now, and an operator's from 2020."""
    session = make_session(tier=2)
    store_event(NotableEvent("critical", "nextcloud down", now_timestamp(), "nextcloud", session.id, FINDING))
    store_event(NotableEvent("warning", "jellyfin slow", now_timestamp(), "jellyfin", session.id))
    store_event(NotableEvent("info", "operator reset sonarr", "2020-01-01T00:00:00Z", "sonarr"))
    return claudeops_app


def test_list_shows_every_event_newest_first_one_per_line(app, invoke_cli):
    result = invoke_cli("events", "list")
    assert result.exit_code == 0, result.output
    header, *lines = result.output.splitlines()
    assert header.split() == ["TIME", "LEVEL", "SERVICE", "SESSION", "MESSAGE"]  # a header row, as memories list has
    assert len(lines) == 3
    assert "warning" in lines[0] and "jellyfin" in lines[0] and "jellyfin slow" in lines[0] and "#1" in lines[0]
    assert lines[2].startswith("2020-01-01T00:00:00Z  info") and "operator" in lines[2]


def test_list_filters_by_level_service_and_since(app, invoke_cli):
    assert "nextcloud down" in invoke_cli("events", "list", "--level", "critical").output
    assert "jellyfin" not in invoke_cli("events", "list", "--level", "error").output
    assert invoke_cli("events", "list", "--service", "jellyfin").output.count("\n") == 2  # header and one event
    recent = invoke_cli("events", "list", "--since", "24h").output
    assert "sonarr" not in recent and "nextcloud" in recent


def test_list_json_is_an_array_of_event_objects(app, invoke_cli):
    events = json.loads(invoke_cli("events", "list", "--json", "--service", "nextcloud").output)
    assert events == [{"id": 1, "session_id": 1, "level": "critical", "service": "nextcloud",
                       "message": "nextcloud down", "created_at": events[0]["created_at"], "kind": "finding"}]
    assert events[0]["created_at"] <= to_timestamp(utc_now())


def test_list_says_so_when_nothing_matches(app, invoke_cli):
    assert invoke_cli("events", "list", "--service", "plex").output == "No events match.\n"


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--since", "yesterday", "invalid time 'yesterday'"),
    ("--level", "purple", "unknown level 'purple'"),
    ("--since", "800000d", "time '800000d' is out of range"),
    ("--since", "0001-01-01T00:00:00+01:00", "time '0001-01-01T00:00:00+01:00' is out of range"),
])
def test_a_bad_filter_is_a_one_line_usage_error(app, option, value, message, invoke_cli):
    result = invoke_cli("events", "list", option, value)
    assert result.exit_code == 2
    error_lines = [line for line in result.output.splitlines() if line.startswith("Error")]
    assert len(error_lines) == 1 and message in error_lines[0] and option in error_lines[0]
    assert "Traceback" not in result.output
