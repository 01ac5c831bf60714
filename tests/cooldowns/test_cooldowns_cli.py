"""claudeops cooldowns [--json] and claudeops cooldowns reset SERVICE."""

from __future__ import annotations

import json
from datetime import timedelta

from claudeops_cooldowns.repository import list_actions, record_action
from claudeops_events.repository import list_events

from claudeops.clock import to_timestamp, utc_now


def restart(service: str, minutes_ago: int, action: str = "restart") -> None:
    record_action(service=service, action=action, success=True, message="ok", tier=2, session_id=None,
                  created_at=to_timestamp(utc_now() - timedelta(minutes=minutes_ago)))


def test_with_nothing_recorded_it_shows_the_limits(app, invoke_cli):
    result = invoke_cli("cooldowns")
    assert result.exit_code == 0
    assert result.output == ("Limits per service: at most 2 restarts in any 4 h window and at most 1 redeployment "
                             "in any 24 h window.\nNo remediation actions recorded.\n")


def test_it_shows_each_service_against_its_limit(app, invoke_cli):
    restart("jellyfin", 90)
    restart("jellyfin", 30)
    restart("sonarr", 10)
    lines = invoke_cli("cooldowns").output.splitlines()
    assert lines[1].startswith("  jellyfin: 2/2 restarts in the last 4 h, IN COOLDOWN until ")
    assert lines[2].startswith("  sonarr: 1/2 restarts in the last 4 h, 1 left (last ")


def test_json_gives_every_field_the_dashboard_uses(app, invoke_cli):
    restart("jellyfin", 60, action="redeployment")
    restart("sonarr", 60)
    jellyfin, sonarr = json.loads(invoke_cli("cooldowns", "--json").output)
    assert set(jellyfin) == {"service", "action", "count", "limit", "window_hours", "in_cooldown", "until",
                             "last_action_at", "remaining"}
    assert (jellyfin["service"], jellyfin["action"], jellyfin["count"], jellyfin["limit"], jellyfin["in_cooldown"],
            jellyfin["remaining"]) == ("jellyfin", "redeployment", 1, 1, True, 0)
    assert (sonarr["service"], sonarr["count"], sonarr["remaining"]) == ("sonarr", 1, 1)


def test_reset_clears_the_service_and_records_an_event(app, invoke_cli):
    restart("jellyfin", 90)
    restart("jellyfin", 30)
    restart("sonarr", 10)
    result = invoke_cli("cooldowns", "reset", "Jellyfin")
    assert result.exit_code == 0
    assert result.output == ("operator reset the cooldowns of jellyfin (was 2/2 restarts in 4 h); "
                             "2 recorded action(s) no longer count.\n")
    [event] = list_events()
    assert (event.level, event.service, event.session_id) == ("info", "jellyfin", None)
    assert event.message == "operator reset the cooldowns of jellyfin (was 2/2 restarts in 4 h)"
    state = json.loads(invoke_cli("cooldowns", "--json").output)
    assert [(entry["service"], entry["count"]) for entry in state] == [("jellyfin", 0), ("sonarr", 1)]
    assert len(list_actions(service="jellyfin")) == 2  # history kept


def test_reset_clears_a_service_named_as_its_systemd_unit(app, invoke_cli):
    restart("jellyfin", 30)
    result = invoke_cli("cooldowns", "reset", "jellyfin.service")
    assert result.exit_code == 0
    assert result.output.startswith("operator reset the cooldowns of jellyfin (was 1/2 restarts in 4 h)")


def test_reset_of_something_that_names_no_service_is_a_usage_error(app, invoke_cli):
    result = invoke_cli("cooldowns", "reset", ".service")
    assert result.exit_code == 2
    assert "Invalid value for SERVICE: names no service" in result.output


def test_reset_of_a_service_without_actions_changes_nothing(app, invoke_cli):
    result = invoke_cli("cooldowns", "reset", "plex")
    assert (result.exit_code, result.output) == (0, "plex has no recorded actions to clear.\n")
    assert list_events() == []
