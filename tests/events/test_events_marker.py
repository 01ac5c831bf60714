"""[EVENT:<level>] and [EVENT:<level>:<service>] markers: parsing, levels, storage, malformed input."""

from __future__ import annotations

import logging
import re

import pytest
from claudeops_events.marker import PROMPT_SECTION
from claudeops_events.repository import list_events

from claudeops.clock import to_timestamp
from claudeops.hookspecs import hookimpl
from claudeops.notable import FINDING, NotableEvent


def test_event_with_a_level_only_is_stored_without_a_service(app, make_session, feed_text):
    session = make_session(tier=2)
    feed_text(session, "Checked everything.\n[EVENT:info] All 14 services healthy")
    [event] = list_events()
    assert (event.level, event.service, event.message, event.session_id) == ("info", None, "All 14 services healthy",
                                                                            session.id)


def test_event_with_a_service_is_stored_with_that_service_in_lower_case(app, make_session, feed_text):
    feed_text(make_session(tier=2), "[EVENT:warning:Jellyfin] Responses take 4.2 s")
    [event] = list_events()
    assert (event.level, event.service, event.message) == ("warning", "jellyfin", "Responses take 4.2 s")


@pytest.mark.parametrize(("service", "stored_as"), [
    ("nextcloud-app", "nextcloud-app"),
    ("jellyfin.service", "jellyfin.service"),
    ("'jellyfin'", "jellyfin"),
    ('"Jellyfin"', "jellyfin"),
    (" sonarr ", "sonarr"),
    (" 'nextcloud' ", "nextcloud"),
    ("s" * 100, "s" * 100),
    ("", None),
    (" ", None),
])
def test_a_service_is_a_name_of_letters_digits_and_dot_dash_underscore_or_none(app, service, stored_as, make_session,
                                                                               feed_text):
    feed_text(make_session(tier=2), f"[EVENT:warning:{service}] slow")
    assert [(event.service, event.message) for event in list_events()] == [(stored_as, "slow")]


@pytest.mark.parametrize("service", ["a:b", "y" * 5000, "s" * 101, "home assistant", "media/jellyfin", "'jellyfin"])
def test_a_service_that_is_not_a_bounded_name_is_a_malformed_event(app, caplog, service, make_session, feed_text):
    """`[EVENT:critical:a:b]` used to store the service `a:b`, and a 5,000-character word was a service too."""
    with caplog.at_level(logging.WARNING, logger="claudeops_events"):
        feed_text(make_session(tier=2), f"[EVENT:critical:{service}] down")
    assert list_events() == []
    [warning] = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    assert "malformed event marker" in warning and "up to 100 letters, digits, '_', '.' or '-'" in warning


def test_several_events_in_one_text_block_are_all_stored(app, make_session, feed_text):
    feed_text(make_session(tier=2), "Report:\n[EVENT:info] disk 40% [EVENT:critical:nextcloud] HTTP 502\n"
                                    "text between\n[EVENT:warning:sonarr] queue stuck")
    assert sorted((event.level, event.service, event.message) for event in list_events()) == [
        ("critical", "nextcloud", "HTTP 502"), ("info", None, "disk 40%"), ("warning", "sonarr", "queue stuck")]


@pytest.mark.parametrize(("written", "stored"), [
    ("info", "info"), ("warning", "warning"), ("critical", "critical"),
    ("warn", "warning"), ("degraded", "warning"),
    ("error", "critical"), ("fatal", "critical"), ("failed", "critical"), ("down", "critical"),
    ("ok", "info"), ("healthy", "info"), ("success", "info"),
    ("WARNING", "warning"), ("Error", "critical"),
])
def test_level_synonyms_are_normalised(app, written, stored, make_session, feed_text):
    feed_text(make_session(tier=2), f"[EVENT:{written}:jellyfin] something")
    assert [event.level for event in list_events()] == [stored]


def test_an_unknown_level_is_stored_as_info_with_a_debug_log(app, caplog, make_session, feed_text):
    with caplog.at_level(logging.DEBUG, logger="claudeops_events"):
        feed_text(make_session(tier=2), "[EVENT:purple:jellyfin] odd level")
    assert [event.level for event in list_events()] == ["info"]
    assert any(record.levelno == logging.DEBUG and "purple" in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("text", [
    "[EVENT] no level at all",
    "[EVENT:] empty level",
    "[EVENT: ] blank level",
    "[EVENT:warning]",
    "[EVENT:warning:jellyfin]    ",
    "[EVENT:warning:jellyfin no closing bracket",
])
def test_a_malformed_event_logs_a_warning_and_stores_nothing(app, caplog, text, make_session, feed_text):
    with caplog.at_level(logging.WARNING, logger="claudeops_events"):
        feed_text(make_session(tier=2), f"before\n{text}\nafter")
    assert list_events() == []
    [warning] = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert "malformed event marker" in warning.getMessage()
    assert text.strip() in warning.getMessage()


def test_a_malformed_event_does_not_stop_the_good_ones_next_to_it(app, caplog, make_session, feed_text):
    with caplog.at_level(logging.WARNING, logger="claudeops_events"):
        feed_text(make_session(tier=2), "[EVENT] oops [EVENT:warning:sonarr] queue stuck\n[EVENT:info] fine")
    assert sorted(event.message for event in list_events()) == ["fine", "queue stuck"]


def test_an_event_with_a_blank_level_is_not_counted_as_a_recorded_marker(app, caplog, make_session, feed_text):
    session = make_session(tier=2)
    with caplog.at_level(logging.WARNING, logger="claudeops_events"):
        feed_text(session, "[EVENT: ] blank level\n[EVENT:\t:jellyfin] blank too\n[EVENT:info] fine")
    assert session.markers_recorded == 1
    assert [event.message for event in list_events()] == ["fine"]
    assert len([record for record in caplog.records if "malformed event marker" in record.getMessage()]) == 2


def test_created_at_is_the_time_the_marker_was_seen(app, make_session, feed_text, clock):
    session = make_session(tier=2, clock=clock)
    feed_text(session, "[EVENT:info] first")
    first_seen = to_timestamp(clock())
    clock.advance(minutes=7)
    feed_text(session, "[EVENT:warning] seven minutes later")
    second_seen = to_timestamp(clock())
    clock.advance(hours=1)  # the session ends much later; the events keep their own times
    assert {event.message: event.created_at for event in list_events()} == {
        "first": first_seen, "seven minutes later": second_seen}
    assert first_seen != second_seen


def test_markers_go_through_record_event_so_every_implementation_sees_them(app, make_session, feed_text):
    seen: list[NotableEvent] = []

    class Collector:
        @hookimpl
        def record_event(self, event):
            seen.append(event)

    app.pm.register(Collector(), name="collector")
    session = make_session(tier=2)
    feed_text(session, "[EVENT:down:nextcloud] HTTP 502 on 3 checks")
    assert seen == [NotableEvent("critical", "HTTP 502 on 3 checks", to_timestamp(session.clock()), "nextcloud",
                                 session.id, kind=FINDING)]  # the kind notifications route on
    assert len(list_events()) == 1


def test_notable_events_of_other_plugins_land_in_the_same_table(app, make_session, feed_text):
    session = make_session(tier=2)
    feed_text(session, "[ESCALATE] nextcloud DB locked")
    app.hook.record_event(event=NotableEvent("critical", "session #9 failed: API error 529", "2025-06-01T13:00:00Z"))
    assert [(event.level, event.session_id, event.message) for event in list_events()] == [
        ("critical", None, "session #9 failed: API error 529"),
        ("warning", session.id, "tier 2 requested escalation: nextcloud DB locked"),
    ]


def test_the_examples_in_the_prompt_section_are_valid_markers(app, make_session, feed_text):
    examples = [line.strip() for line in PROMPT_SECTION.splitlines() if re.match(r"\s+\[EVENT:[a-z]+", line)]
    assert len(examples) == 3
    feed_text(make_session(tier=2), "\n".join(examples))
    assert len(list_events()) == 3
