"""The events table and the functions the dashboard and CLI read it through."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from claudeops_events.repository import (
    count_events,
    count_events_by_level,
    list_event_services,
    list_events,
    store_event,
)
from claudeops_events.since import parse_since

from claudeops.notable import NotableEvent
from claudeops.session_rows import SessionRow
from claudeops.store import db

NOW = datetime(2025, 6, 2, 12, 0, 0, tzinfo=UTC)


def add(level: str, message: str, created_at: str, service: str | None = None, session_id: int | None = None):
    return store_event(NotableEvent(level, message, created_at, service, session_id))


def test_the_migration_creates_the_table_with_indexes_for_the_dashboard_filters(app):
    columns = {column.name: column for column in db.get_columns("events")}
    assert list(columns) == ["id", "session_id", "level", "service", "message", "created_at", "kind"]
    assert columns["session_id"].null and columns["service"].null and not columns["message"].null
    indexed = {tuple(index.columns) for index in db.get_indexes("events")}
    assert {("created_at", "id"), ("level", "created_at"), ("service", "created_at"), ("session_id",)} <= indexed
    [foreign_key] = db.get_foreign_keys("events")
    assert (foreign_key.column, foreign_key.dest_table, foreign_key.dest_column) == ("session_id", "sessions", "id")


def test_the_migration_runs_once(app):
    assert app.open_store() is None  # a second open applies nothing and keeps the rows
    add("info", "kept", "2025-06-01T00:00:00Z")
    app.open_store()
    assert [event.message for event in list_events()] == ["kept"]


def test_events_are_listed_newest_first_and_ties_by_id(app):
    first = add("info", "a", "2025-06-01T10:00:00Z")
    second = add("info", "b", "2025-06-01T10:00:00Z")
    add("info", "older", "2025-06-01T09:00:00Z")
    add("info", "newer", "2025-06-01T11:00:00Z")
    assert [event.message for event in list_events()] == ["newer", "b", "a", "older"]
    assert second.id > first.id


def test_filters_combine_level_service_since_and_session(app, make_session):
    session = make_session(tier=2)
    add("critical", "nextcloud down", "2025-06-02T11:00:00Z", "nextcloud", session.id)
    add("critical", "old outage", "2025-05-20T11:00:00Z", "nextcloud")
    add("warning", "slow", "2025-06-02T11:30:00Z", "jellyfin", session.id)
    add("info", "all fine", "2025-06-02T11:45:00Z")
    assert [event.message for event in list_events(level="critical")] == ["nextcloud down", "old outage"]
    assert [event.message for event in list_events(service="Jellyfin")] == ["slow"]
    assert [event.message for event in list_events(since="2025-06-01T00:00:00Z")] == ["all fine", "slow",
                                                                                     "nextcloud down"]
    assert [event.message for event in list_events(session_id=session.id)] == ["slow", "nextcloud down"]
    assert [event.message for event in list_events(level="critical", since="2025-06-01")] == ["nextcloud down"]


def test_since_is_inclusive(app):
    add("info", "exactly then", "2025-06-01T00:00:00Z")
    assert [event.message for event in list_events(since="2025-06-01T00:00:00Z")] == ["exactly then"]


def test_the_level_filter_accepts_synonyms_and_rejects_unknown_words(app):
    add("critical", "down", "2025-06-01T00:00:00Z")
    assert [event.message for event in list_events(level="error")] == ["down"]
    with pytest.raises(ValueError, match="unknown level 'purple'"):
        list_events(level="purple")


def test_limit_and_offset_page_through_the_feed(app):
    for minute in range(5):
        add("info", f"m{minute}", f"2025-06-01T10:0{minute}:00Z")
    assert [event.message for event in list_events(limit=2)] == ["m4", "m3"]
    assert [event.message for event in list_events(limit=2, offset=2)] == ["m2", "m1"]
    assert [event.message for event in list_events(offset=4)] == ["m0"]
    assert count_events() == 5


def test_count_by_level_has_every_level_and_respects_since(app):
    add("critical", "x", "2025-06-02T11:00:00Z")
    add("critical", "y", "2025-05-01T11:00:00Z")
    add("warning", "z", "2025-06-02T11:00:00Z")
    assert count_events_by_level(None) == {"info": 0, "warning": 1, "critical": 2}
    assert count_events_by_level("2025-06-01T00:00:00Z") == {"info": 0, "warning": 1, "critical": 1}


def test_services_are_listed_once_sorted_without_events_that_have_none(app):
    add("info", "a", "2025-06-01T00:00:00Z", "sonarr")
    add("info", "b", "2025-06-01T00:00:00Z", "Jellyfin")
    add("info", "c", "2025-06-01T00:00:00Z", "sonarr")
    add("info", "d", "2025-06-01T00:00:00Z")
    assert list_event_services() == ["jellyfin", "sonarr"]


def test_levels_from_other_plugins_are_normalised_too(app):
    assert add("error", "x", "2025-06-01T00:00:00Z").level == "critical"


def test_deleting_a_session_keeps_its_events(app, make_session):
    session = make_session(tier=2)
    add("warning", "kept", "2025-06-01T00:00:00Z", None, session.id)
    SessionRow.delete().where(SessionRow.id == session.id).execute()
    [event] = list_events()
    assert (event.message, event.session_id) == ("kept", None)


@pytest.mark.parametrize(("text", "expected"), [
    ("30m", "2025-06-02T11:30:00Z"),
    ("24h", "2025-06-01T12:00:00Z"),
    ("7d", "2025-05-26T12:00:00Z"),
    ("2w", "2025-05-19T12:00:00Z"),
    ("90s", "2025-06-02T11:58:30Z"),
    (" 24H ", "2025-06-01T12:00:00Z"),
    ("2025-05-01", "2025-05-01T00:00:00Z"),
    ("2025-05-01T08:30:00", "2025-05-01T08:30:00Z"),
    ("2025-05-01T08:30:00Z", "2025-05-01T08:30:00Z"),
    ("2025-05-01T10:30:00+02:00", "2025-05-01T08:30:00Z"),
])
def test_since_accepts_ages_and_iso_times(text, expected):
    assert parse_since(text, NOW) == expected


@pytest.mark.parametrize("text", ["yesterday", "24", "h", "-3h", "2025-13-01", ""])
def test_a_bad_since_is_a_one_line_error(text):
    with pytest.raises(ValueError, match=r"^invalid time .*use an age such as 30m, 24h or 7d") as caught:
        parse_since(text, NOW)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("text", ["800000d", "99999999999d", "3000000w", "9" * 5000 + "d",
                                  "0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-05:00"])
def test_a_since_beyond_what_a_datetime_holds_is_a_one_line_error_not_an_overflow(text):
    with pytest.raises(ValueError, match=r"^time .* is out of range: use an age or a time between the years 1 "
                                         r"and 9999") as caught:
        parse_since(text, NOW)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("text", "expected"), [("0001-01-01", "0001-01-01T00:00:00Z"),
                                                ("9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z")])
def test_the_edges_of_the_range_are_still_accepted(text, expected):
    assert parse_since(text, NOW) == expected


def test_an_upgrade_counts_the_events_stored_before_as_findings_so_no_status_changes(tmp_path):
    from claudeops.app import App
    from claudeops.store import apply_migrations, close_store, portable_sql

    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(tmp_path)}, entry_points=False,
                   builtins=("claudeops.environment", "claudeops_events"))
    app.open_store(migrate=False)
    try:
        apply_migrations([(owner, [step for step in steps if step.name != "0003_add_kind"])
                          for owner, steps in app.migrations])
        for level, service in (("critical", "jellyfin"), ("warning", None)):
            db.execute_sql(portable_sql("INSERT INTO events (level, service, message, created_at) "
                                        "VALUES (?, ?, 'before', '2026-01-01T00:00:00Z')"), (level, service))
        assert [(done.owner, done.name) for done in apply_migrations(app.migrations)] == [("events", "0003_add_kind")]
        assert [(event.service, event.kind) for event in list_events()] == [(None, None), ("jellyfin", "finding")]
        [status] = app.hook.service_statuses()
        assert (status.service, status.status) == ("jellyfin", "down")
    finally:
        close_store()
