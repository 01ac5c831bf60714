"""check_tool_use: restarts and redeployments beyond the limit are refused, tier 1 may never do them,
and tiers 2 and 3 see the state in their prompt before they act."""

from __future__ import annotations

import pytest
from claudeops_cooldowns.prompt import COOLDOWN_ORDER
from claudeops_events.repository import list_events


@pytest.fixture
def restarted_twice(make_session, feed_text, clock):
    """``restarted_twice(service)``: two restarts at 12:00 and 13:00, then the clock at 14:00: in cooldown
    until 16:00."""

    def restart_twice(service: str = "jellyfin") -> None:
        earlier = make_session(tier=2, clock=clock)
        feed_text(earlier, f"[COOLDOWN:restart:{service}] failure — still 502")
        clock.advance(hours=1)
        feed_text(earlier, f"[COOLDOWN:restart:{service}] success — healthy")
        clock.advance(hours=1)

    return restart_twice


def bash(app, session, command: str):
    return app.hook.check_tool_use(session=session, tool_name="Bash", tool_input={"command": command})


def test_a_restart_of_a_service_at_its_limit_is_refused_with_the_limit_and_its_end(app, clock, make_session,
                                                                                   restarted_twice):
    restarted_twice()
    reason = bash(app, make_session(tier=2, clock=clock), "docker restart jellyfin")
    assert reason.startswith("Refused by claudeops cooldowns: `docker restart jellyfin` would restart jellyfin")
    assert "already had 2 restarts in the last 4 h (limit 2 per 4 h)" in reason
    assert "the next restart of jellyfin is allowed from 2025-06-01T16:00:00Z" in reason
    assert "Do not retry it" in reason


def test_a_refusal_is_recorded_as_a_warning_event_of_the_session(app, clock, make_session, restarted_twice):
    restarted_twice()
    session = make_session(tier=2, clock=clock)
    bash(app, session, "ssh nas sudo docker restart jellyfin")
    [event] = list_events()
    assert (event.level, event.service, event.session_id, event.created_at) == ("warning", "jellyfin", session.id,
                                                                                 "2025-06-01T14:00:00Z")
    assert event.message == ("cooldown blocked restart of jellyfin (2/2 in 4 h, allowed again from "
                             "2025-06-01T16:00:00Z): docker restart jellyfin")


@pytest.mark.parametrize("command", [
    "docker restart jellyfin",
    "docker compose restart jellyfin",
    "docker-compose restart jellyfin",
    "systemctl restart jellyfin.service",
    "sudo systemctl restart jellyfin",
    "ssh nas docker restart jellyfin",
    'ssh root@nas "cd /srv && docker compose restart jellyfin"',
    "env DOCKER_HOST=ssh://nas docker restart jellyfin",
    "docker ps && docker restart jellyfin",
    "docker logs jellyfin; docker restart jellyfin sonarr",
    "docker compose restart",
    "eval docker restart jellyfin",
    "find / -name x -exec docker restart jellyfin \\;",
    "watch -n 60 'docker restart jellyfin'",
    "docker exec admin docker restart jellyfin",
    "ssh nas -t docker restart jellyfin",
    "docker --log-level debug restart jellyfin",
    "docker -H unix:///var/run/docker.sock container restart jellyfin",
    "docker compose -f /srv/media/compose.yml -p media restart jellyfin",
    "systemctl -H nas restart jellyfin.service",
])
def test_every_shape_of_restart_is_refused_in_cooldown(app, clock, command, make_session, restarted_twice):
    restarted_twice()
    assert bash(app, make_session(tier=3, clock=clock), command) is not None


@pytest.mark.parametrize("command", [
    "docker stop jellyfin; docker start jellyfin",
    "docker kill jellyfin && docker start jellyfin",
    "systemctl stop jellyfin; systemctl start jellyfin",
    "docker compose stop jellyfin && docker compose start jellyfin",
    "docker start jellyfin",
])
def test_stopping_and_starting_a_service_in_cooldown_is_refused_as_a_restart(app, clock, command, make_session,
                                                                             restarted_twice):
    """Stop (or kill) and start is a restart in two commands: counting only `restart` let it through."""
    restarted_twice()
    reason = bash(app, make_session(tier=2, clock=clock), command)
    assert reason is not None and "would restart jellyfin, which already had 2 restarts in the last 4 h" in reason
    assert "allowed from 2025-06-01T16:00:00Z" in reason


def test_a_stop_alone_of_a_service_in_cooldown_passes(app, clock, make_session, restarted_twice):
    restarted_twice()
    assert bash(app, make_session(tier=2, clock=clock), "docker stop jellyfin") is None


@pytest.mark.parametrize("marked", ["jellyfin.service", "Jellyfin.Service", "'jellyfin'", '"jellyfin.service"'])
@pytest.mark.parametrize("command", ["systemctl restart jellyfin.service", "docker restart jellyfin"])
def test_a_service_counts_under_one_name_however_the_marker_and_the_command_spell_it(app, clock, marked, command,
                                                                                     make_session, restarted_twice):
    restarted_twice(marked)
    assert bash(app, make_session(tier=2, clock=clock), command) is not None


@pytest.mark.parametrize("command", [
    "docker ps",
    "docker logs --tail 100 jellyfin",
    "docker restart sonarr",
    "systemctl status jellyfin",
    "docker compose up -d jellyfin",  # a redeployment: its own limit, not reached
])
def test_commands_that_do_not_restart_a_service_in_cooldown_pass(app, clock, command, make_session, restarted_twice):
    restarted_twice()
    assert bash(app, make_session(tier=3, clock=clock), command) is None
    assert list_events() == []


def test_below_the_limit_a_restart_passes(app, clock, make_session, feed_text):
    feed_text(make_session(tier=2, clock=clock), "[COOLDOWN:restart:jellyfin] success — ok")
    assert bash(app, make_session(tier=2, clock=clock), "docker restart jellyfin") is None


def test_once_the_window_has_passed_the_restart_is_allowed_again(app, clock, make_session, restarted_twice):
    restarted_twice()
    clock.advance(hours=2)  # 16:00: the 12:00 restart is exactly 4 h old and no longer counts
    assert bash(app, make_session(tier=2, clock=clock), "docker restart jellyfin") is None


def test_other_tools_are_not_judged(app, clock, make_session, restarted_twice):
    restarted_twice()
    session = make_session(tier=2, clock=clock)
    assert app.hook.check_tool_use(session=session, tool_name="Read", tool_input={"file_path": "/etc/hosts"}) is None
    assert app.hook.check_tool_use(session=session, tool_name="Bash", tool_input={}) is None


def test_a_redeployment_at_its_limit_is_refused_for_24_hours(app, clock, make_session, feed_text):
    feed_text(make_session(tier=3, clock=clock), "[COOLDOWN:redeployment:nextcloud] success — new image")
    clock.advance(hours=23)
    session = make_session(tier=3, clock=clock)
    reason = bash(app, session, "ansible-playbook -i hosts site.yml --limit nextcloud")
    assert "would redeploy nextcloud, which already had 1 redeployment in the last 24 h (limit 1 per 24 h)" in reason
    assert "allowed from 2025-06-02T12:00:00Z" in reason
    assert bash(app, session, "docker restart nextcloud") is None
    clock.advance(hours=1)
    assert bash(app, session, "helm upgrade nextcloud ./chart") is None


def test_a_project_wide_redeployment_is_refused_when_any_service_is_in_cooldown(app, clock, make_session, feed_text):
    feed_text(make_session(tier=3, clock=clock), "[COOLDOWN:redeployment:nextcloud] failure — db migration")
    reason = bash(app, make_session(tier=3, clock=clock), "cd /srv/cloud && docker compose up -d")
    assert "would redeploy nextcloud (every service of the project, nextcloud included)" in reason


def test_tier_1_may_never_restart_or_redeploy_anything(app, clock, make_session):
    session = make_session(tier=1, clock=clock)
    reason = bash(app, session, "docker restart jellyfin")
    assert reason.startswith("Refused: tier 1 observes only and may never restart or redeploy anything "
                             "(`docker restart jellyfin` would restart jellyfin)")
    assert "[ESCALATE]" in reason
    assert bash(app, session, "docker compose up -d") is not None
    assert [(event.level, event.service) for event in list_events()] == [("warning", None), ("warning", "jellyfin")]
    assert bash(app, session, "docker ps -a") is None


def test_the_command_patterns_are_configurable(clock, make_claudeops_app, make_session, restarted_twice):
    kubectl = r"^kubectl\b.*\srollout\s+restart\s+(?:deployment/)?(?P<service>\S+)"
    app = make_claudeops_app({"CLAUDEOPS_COOLDOWNS_RESTART_PATTERNS": kubectl})
    restarted_twice()
    session = make_session(tier=2, clock=clock)
    assert bash(app, session, "kubectl -n media rollout restart deployment/jellyfin") is not None
    assert bash(app, session, "docker restart jellyfin") is None  # the defaults were replaced


def test_a_configured_limit_applies(clock, make_claudeops_app, make_session, restarted_twice):
    app = make_claudeops_app({"CLAUDEOPS_COOLDOWNS_RESTART_LIMIT": "3"})
    restarted_twice()
    assert bash(app, make_session(tier=2, clock=clock), "docker restart jellyfin") is None


def prompt_section(app, session) -> str | None:
    app.hook.before_session(session=session)
    sections = {section.name: section for section in session.prompt_sections}
    if "cooldowns" not in sections:
        return None
    assert sections["cooldowns"].order == COOLDOWN_ORDER
    return sections["cooldowns"].text


def test_tiers_2_and_3_are_told_when_nothing_is_counted_and_what_the_limits_are(app, clock, make_session):
    for tier in (2, 3):
        text = prompt_section(app, make_session(tier=tier, clock=clock))
        assert text.startswith("## Cooldown state")
        assert ("Limits per service: at most 2 restarts in any 4 h window and at most 1 redeployment in any "
                "24 h window.") in text
        assert "No remediation actions recorded in the current windows." in text


def test_the_prompt_lists_services_in_their_window_and_their_cooldown(app, clock, make_session, feed_text,
                                                                      restarted_twice):
    restarted_twice()
    feed_text(make_session(tier=2, clock=clock), "[COOLDOWN:restart:sonarr] success — ok")
    text = prompt_section(app, make_session(tier=2, clock=clock))
    assert ("- jellyfin: 2/2 restarts in the last 4 h, IN COOLDOWN until 2025-06-01T16:00:00Z: do not restart it"
            in text)
    assert "- sonarr: 1/2 restarts in the last 4 h, 1 left" in text
    assert "No remediation actions" not in text


def test_actions_that_left_the_window_are_not_in_the_prompt(app, clock, make_session, restarted_twice):
    restarted_twice()
    clock.advance(hours=5)
    assert "No remediation actions recorded in the current windows." in prompt_section(
        app, make_session(tier=2, clock=clock))


def test_tier_1_gets_no_cooldown_section(app, clock, make_session):
    assert prompt_section(app, make_session(tier=1, clock=clock)) is None


def test_a_limit_of_zero_refuses_every_restart(clock, make_claudeops_app, make_session):
    app = make_claudeops_app({"CLAUDEOPS_COOLDOWNS_RESTART_LIMIT": "0"})
    session = make_session(tier=2, clock=clock)
    assert "restart is not allowed at all (limit 0)" in bash(app, session, "systemctl restart jellyfin")
    reason = bash(app, session, "docker compose restart")
    assert "would restart every service of the project, and restart is not allowed at all" in reason
    assert [event.service for event in list_events()] == [None, "jellyfin"]
