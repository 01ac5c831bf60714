"""Sliding windows, limits, when a cooldown ends, and the [cooldowns] settings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from claudeops_cooldowns.repository import (
    clear_service,
    cooldown_state,
    count_actions,
    list_actions,
    record_action,
    service_cooldown,
)
from claudeops_cooldowns.settings import REDEPLOYMENT, RESTART, CooldownSettings, Rule, rules_from

from claudeops.clock import to_timestamp
from claudeops.config import ConfigError

T0 = datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC)
RULES = rules_from(CooldownSettings())


def restart(service: str, at: datetime, success: bool = True, action: str = RESTART):
    return record_action(service=service, action=action, success=success, message="done", tier=2, session_id=None,
                         created_at=to_timestamp(at))


def state(service: str, now: datetime, action: str = RESTART):
    return service_cooldown(service, action, RULES[action], now)


def test_the_defaults_are_two_restarts_per_4_hours_and_one_redeployment_per_24_hours():
    assert {RESTART: Rule(2, timedelta(hours=4)), REDEPLOYMENT: Rule(1, timedelta(hours=24))} == RULES


def test_an_action_exactly_4_hours_old_no_longer_counts(app):
    restart("jellyfin", T0)
    assert state("jellyfin", T0 + timedelta(hours=4) - timedelta(seconds=1)).count == 1
    assert state("jellyfin", T0 + timedelta(hours=4)).count == 0
    assert state("jellyfin", T0 + timedelta(hours=4, microseconds=500_000)).count == 0


def test_a_redeployment_exactly_24_hours_old_no_longer_counts(app):
    restart("nextcloud", T0, action=REDEPLOYMENT)
    assert state("nextcloud", T0 + timedelta(hours=23, minutes=59, seconds=59), REDEPLOYMENT).in_cooldown
    assert not state("nextcloud", T0 + timedelta(hours=24), REDEPLOYMENT).in_cooldown


def test_below_the_limit_a_service_is_not_in_cooldown(app):
    restart("jellyfin", T0)
    current = state("jellyfin", T0 + timedelta(minutes=30))
    assert (current.count, current.limit, current.in_cooldown, current.until, current.remaining) == (1, 2, False,
                                                                                                     None, 1)


def test_at_the_limit_the_cooldown_lasts_until_the_oldest_counted_action_leaves_the_window(app):
    restart("jellyfin", T0)
    restart("jellyfin", T0 + timedelta(hours=1))
    current = state("jellyfin", T0 + timedelta(hours=2))
    assert (current.count, current.in_cooldown, current.until) == (2, True, "2025-06-01T16:00:00Z")
    assert not state("jellyfin", T0 + timedelta(hours=4)).in_cooldown  # from `until` on, it may act again


def test_over_the_limit_the_cooldown_lasts_until_the_count_drops_below_it(app):
    for hour in (0, 1, 2):
        restart("jellyfin", T0 + timedelta(hours=hour))
    current = state("jellyfin", T0 + timedelta(hours=3))
    assert (current.count, current.until) == (3, "2025-06-01T17:00:00Z")
    assert state("jellyfin", T0 + timedelta(hours=4, minutes=30)).in_cooldown  # one left the window, two remain
    assert not state("jellyfin", T0 + timedelta(hours=5)).in_cooldown


def test_failed_attempts_count_too(app):
    restart("jellyfin", T0, success=False)
    restart("jellyfin", T0 + timedelta(minutes=5), success=False)
    assert state("jellyfin", T0 + timedelta(minutes=10)).in_cooldown


def test_services_and_actions_are_counted_separately(app):
    restart("jellyfin", T0)
    restart("jellyfin", T0)
    assert not state("sonarr", T0).in_cooldown
    assert not state("jellyfin", T0, REDEPLOYMENT).in_cooldown


def test_service_names_are_compared_without_case(app):
    restart("Jellyfin", T0)
    restart("jellyfin", T0)
    assert state("JELLYFIN", T0).in_cooldown


def test_a_systemd_unit_and_quotes_name_the_same_service(app):
    restart("jellyfin.service", T0)
    restart("'Jellyfin'", T0)
    assert state("jellyfin", T0).in_cooldown
    assert [a.service for a in list_actions(service="JELLYFIN.SERVICE")] == ["jellyfin", "jellyfin"]
    assert clear_service('"jellyfin.service"', to_timestamp(T0)) == 2


def test_an_action_that_names_no_service_is_refused(app):
    with pytest.raises(ValueError, match=r"no service name in '\.service'"):
        restart(".service", T0)
    assert list_actions() == []


def test_a_limit_of_zero_forbids_the_action_outright(app):
    forbidden = service_cooldown("jellyfin", RESTART, Rule(0, timedelta(hours=4)), T0)
    assert (forbidden.in_cooldown, forbidden.until) == (True, None)


def test_cooldown_state_lists_every_service_and_action_with_its_last_action(app):
    restart("sonarr", T0 - timedelta(days=3))
    restart("jellyfin", T0 - timedelta(hours=1))
    restart("jellyfin", T0 - timedelta(minutes=30))
    restart("jellyfin", T0 - timedelta(hours=2), action=REDEPLOYMENT)
    states = cooldown_state(RULES, T0)
    assert [(s.service, s.action, s.count, s.limit, s.window_hours, s.in_cooldown, s.until, s.last_action_at)
            for s in states] == [
        ("jellyfin", REDEPLOYMENT, 1, 1, 24.0, True, "2025-06-02T10:00:00Z", "2025-06-01T10:00:00Z"),
        ("jellyfin", RESTART, 2, 2, 4.0, True, "2025-06-01T15:00:00Z", "2025-06-01T11:30:00Z"),
        ("sonarr", RESTART, 0, 2, 4.0, False, None, "2025-05-29T12:00:00Z"),
    ]


def test_cooldown_state_uses_the_configured_rules(make_claudeops_app):
    app = make_claudeops_app({"CLAUDEOPS_COOLDOWNS_RESTART_LIMIT": "3",
                              "CLAUDEOPS_COOLDOWNS_RESTART_WINDOW_HOURS": "1"})
    restart("jellyfin", T0)
    [current] = cooldown_state(rules_from(app.config.section("cooldowns")), T0)
    assert (current.limit, current.window_hours, current.in_cooldown) == (3, 1.0, False)


def test_cleared_actions_stop_counting_but_stay_in_the_history(app):
    restart("jellyfin", T0)
    restart("jellyfin", T0)
    restart("sonarr", T0)
    assert clear_service("Jellyfin", to_timestamp(T0)) == 2
    assert not state("jellyfin", T0).in_cooldown
    assert state("sonarr", T0).count == 1
    assert [(a.service, a.cleared_at) for a in list_actions(service="jellyfin")] == [
        ("jellyfin", "2025-06-01T12:00:00Z"), ("jellyfin", "2025-06-01T12:00:00Z")]
    assert clear_service("jellyfin", to_timestamp(T0)) == 0


def test_actions_are_listed_newest_first_with_their_session_and_tier(app, make_session):
    session = make_session(tier=3)
    record_action(service="jellyfin", action=RESTART, success=False, message="still 502", tier=3,
                  session_id=session.id, created_at="2025-06-01T12:05:00Z")
    restart("sonarr", T0)
    actions = list_actions()
    assert [a.service for a in actions] == ["jellyfin", "sonarr"]
    assert actions[0].as_dict() == {"id": 1, "service": "jellyfin", "action": RESTART, "success": False,
                                    "message": "still 502", "tier": 3, "session_id": session.id,
                                    "created_at": "2025-06-01T12:05:00Z", "cleared_at": None}
    assert [a.service for a in list_actions(limit=1, offset=1)] == ["sonarr"]


def test_actions_are_counted_as_they_are_listed_for_paging(app):
    restart("jellyfin", T0)
    restart("sonarr", T0)
    clear_service("sonarr", to_timestamp(T0))
    assert count_actions() == len(list_actions()) == 2
    assert count_actions(service="Jellyfin.service") == len(list_actions(service="jellyfin")) == 1


@pytest.mark.parametrize(("environ", "message"), [
    ({"CLAUDEOPS_COOLDOWNS_RESTART_LIMIT": "-1"}, "'cooldowns.restart_limit' must be 0 or more, not -1"),
    ({"CLAUDEOPS_COOLDOWNS_REDEPLOY_WINDOW_HOURS": "0"}, "'cooldowns.redeploy_window_hours' must be more than 0"),
    ({"CLAUDEOPS_COOLDOWNS_RESTART_PATTERNS": "^docker restart (?P<service>"}, "'cooldowns.restart_patterns' "
     "must be valid regexes (missing ), unterminated subpattern"),
    ({"CLAUDEOPS_COOLDOWNS_REDEPLOY_PATTERNS": "^helm upgrade"}, "'cooldowns.redeploy_patterns' must be regexes "
     "with a (?P<service>...) group, not '^helm upgrade'"),
])
def test_bad_settings_are_one_line_errors_naming_the_variable_at_start_up(make_claudeops_app, environ, message):
    with pytest.raises(ConfigError) as caught:
        make_claudeops_app(environ)
    [variable] = environ
    assert str(caught.value).startswith(f"env {variable}: {message}")
    assert "\n" not in str(caught.value)
