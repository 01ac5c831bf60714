"""One outage, one message (issue 17, item 2): replayed sessions report a service, the receiver on
127.0.0.1 gets what an operator would, through Apprise's ``json://`` scheme."""

from __future__ import annotations

from claudeops_notify.models import OutageRow
from claudeops_notify.repository import list_notifications
from notify_helpers import PUBLIC_URL, outcomes


def test_the_first_critical_for_a_service_sends_one_message_saying_what_was_found(replay_texts, alerts):
    [report] = replay_texts("Checked jellyfin.\n[EVENT:critical:jellyfin] HTTP 502 on 3 checks in a row")
    [message] = alerts()
    assert message["title"] == "jellyfin is down" and message["type"] == "failure"
    body = message["message"]
    assert body.startswith("**jellyfin** is **down** since 2026-01-01T12:00:00Z.")
    assert "**Found:** HTTP 502 on 3 checks in a row" in body
    assert "**Done:** Nothing was changed: tier 1 only observes." in body
    assert f"[session #{report.session_id}]({PUBLIC_URL}/sessions/{report.session_id})" in body
    assert outcomes() == [("jellyfin is down", "sent", None)]


def test_repeats_in_later_sessions_are_suppressed_as_duplicates(replay_texts, alerts, claudeops_clock):
    replay_texts("[EVENT:critical:jellyfin] HTTP 502")
    for _ in range(3):
        claudeops_clock.advance(minutes=15)
        replay_texts("[EVENT:critical:jellyfin] still HTTP 502")
    assert [message["title"] for message in alerts()] == ["jellyfin is down"]
    [first, *repeats] = outcomes()
    assert first[1] == "sent" and len(repeats) == 3
    assert all(outcome == "suppressed" and reason.startswith(
        "duplicate: jellyfin has been down since 2026-01-01T12:00:00Z (outage #1") for _, outcome, reason in repeats)


def test_the_next_info_event_sends_one_resolved_message_with_how_long_it_lasted(replay_texts, alerts,
                                                                              claudeops_clock):
    replay_texts("[EVENT:critical:jellyfin] HTTP 502")
    claudeops_clock.advance(hours=2, minutes=14)
    [report] = replay_texts("[EVENT:info:jellyfin] answers 200 again")
    claudeops_clock.advance(minutes=15)
    replay_texts("[EVENT:info:jellyfin] healthy")
    titles = [message["title"] for message in alerts()]
    assert titles == ["jellyfin is down", "jellyfin recovered after 2 h 14 min"]
    resolved = alerts()[1]
    assert resolved["type"] == "success"
    assert resolved["message"].startswith("**jellyfin** is **up** again since 2026-01-01T14:14:00Z; the outage began "
                                          "2026-01-01T12:00:00Z and lasted 2 h 14 min.")
    assert f"/sessions/{report.session_id})" in resolved["message"]
    assert OutageRow.get().resolved_at == "2026-01-01T14:14:00Z"


def test_a_service_that_gets_worse_gets_one_more_message(replay_texts, alerts, claudeops_clock):
    replay_texts("[EVENT:warning:jellyfin] answers in 4 s")
    claudeops_clock.advance(minutes=15)
    replay_texts("[EVENT:critical:jellyfin] HTTP 502")
    claudeops_clock.advance(minutes=15)
    replay_texts("[EVENT:critical:jellyfin] HTTP 502")
    assert [message["title"] for message in alerts()] == ["jellyfin is degraded", "jellyfin is now down (was degraded)"]


def test_each_service_has_its_own_outage(replay_texts, alerts):
    replay_texts("[EVENT:critical:jellyfin] HTTP 502\n[EVENT:warning:nextcloud] slow\n[EVENT:info:caddy] fine")
    assert sorted(message["title"] for message in alerts()) == ["jellyfin is down", "nextcloud is degraded"]


def test_a_service_that_flaps_is_damped_and_resolved_once_it_holds(replay_texts, alerts, claudeops_clock):
    """The rule of docs/notifications.md: back in trouble within flap_minutes (60) of recovering is flapping."""
    steps = ["[EVENT:critical:jellyfin] down", "[EVENT:info:jellyfin] up", "[EVENT:critical:jellyfin] down again",
             "[EVENT:info:jellyfin] up", "[EVENT:critical:jellyfin] down a third time", "[EVENT:info:jellyfin] up"]
    for text in steps:
        replay_texts(text)
        claudeops_clock.advance(minutes=10)
    assert [message["title"] for message in alerts()] == [
        "jellyfin is down", "jellyfin recovered after 10 min", "jellyfin is flapping: down again"]
    held = [reason for _, outcome, reason in outcomes() if outcome == "suppressed"]
    assert held == ["flapping: jellyfin recovered again; the resolution is sent once it has stayed up for 60 min",
                    "flapping: jellyfin is back in trouble for the 2nd time within 60 min of recovering (the first "
                    "return was notified); quiet until it is stable",
                    "flapping: jellyfin recovered again; the resolution is sent once it has stayed up for 60 min"]
    claudeops_clock.advance(minutes=30)  # jellyfin has been up for 40 min
    replay_texts("[EVENT:info:caddy] fine")
    assert len(alerts()) == 3
    claudeops_clock.advance(minutes=20)  # up for an hour: the first session after that says so, once
    replay_texts("[EVENT:info:caddy] fine")
    replay_texts("[EVENT:info:caddy] fine")
    last = alerts()[-1]
    assert last["title"] == "jellyfin recovered (stable again after flapping)" and len(alerts()) == 4
    assert "after flapping 2 times; the trouble began 2026-01-01T12:00:00Z and lasted 50 min." in last["message"]


def test_a_service_back_in_trouble_after_the_flap_window_is_a_new_outage(replay_texts, alerts, claudeops_clock):
    replay_texts("[EVENT:critical:jellyfin] down")
    claudeops_clock.advance(minutes=10)
    replay_texts("[EVENT:info:jellyfin] up")
    claudeops_clock.advance(hours=3)
    replay_texts("[EVENT:critical:jellyfin] down")
    assert [message["title"] for message in alerts()] == ["jellyfin is down", "jellyfin recovered after 10 min",
                                                          "jellyfin is down"]
    assert OutageRow.select().count() == 2


def test_only_down_notifies_when_events_is_critical(make_claudeops_app, replay_texts, alerts):
    make_claudeops_app({"CLAUDEOPS_NOTIFY_EVENTS": "critical"})
    replay_texts("[EVENT:warning:jellyfin] slow\n[EVENT:critical:nextcloud] down")
    assert [message["title"] for message in alerts()] == ["nextcloud is down"]


def test_nothing_is_recorded_without_urls(make_claudeops_app, replay_texts, http_receiver):
    make_claudeops_app({"CLAUDEOPS_NOTIFY_URLS": ""})
    replay_texts("[EVENT:critical:jellyfin] down")
    assert list_notifications() == [] and http_receiver.received == []
