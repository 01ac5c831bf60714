"""Tiers 2 and 3 may not change a service in maintenance or closed to remediation: the tool gate
refuses it like an exhausted cooldown. The attacks come first: every way a command can name the
service or act on it without naming it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from claudeops import pause_service
from claudeops.runner.script import ToolCall, bash

ATTACKS = [
    "systemctl restart jellyfin",
    "systemctl restart jellyfin.service",
    "ssh media.lan sudo systemctl restart jellyfin.service",
    "systemctl --host media.lan stop JELLYFIN",
    "ssh media.lan 'systemctl daemon-reload && systemctl restart jellyfin'",
    "rm -rf /var/lib/jellyfin/cache",
    "sh -c 'systemctl kill jellyfin'",
    "echo x > /etc/jellyfin/system.xml",
]


@pytest.fixture
def jellyfin_paused(app, claudeops_clock):
    return pause_service("jellyfin", claudeops_clock() + timedelta(hours=2), "disk swap", "cli", now=claudeops_clock())


def refusal(app, session, tool: str, tool_input: dict) -> str | None:
    return app.hook.check_tool_use(session=session, tool_name=tool, tool_input=tool_input)


@pytest.mark.parametrize("command", ATTACKS)
def test_every_way_of_changing_a_paused_service_is_refused_at_tier_2(app, make_session, jellyfin_paused, command):
    reason = refusal(app, make_session(tier=2), "Bash", {"command": command})
    assert reason is not None and "jellyfin, which is in maintenance until 2026-05-05T14:00:00Z (disk swap)" in reason


def test_a_container_named_by_its_container_name_is_refused(app, make_session, claudeops_clock):
    pause_service("postgres", claudeops_clock() + timedelta(hours=1), "", "cli", now=claudeops_clock())
    for command in ("docker restart postgres-16", "docker --log-level debug restart postgres-16",
                    "docker exec postgres-16 psql -c 'drop table x'", "docker compose up -d postgres"):
        assert refusal(app, make_session(tier=3), "Bash", {"command": command}) is not None, command


def test_a_compose_command_that_names_no_service_is_refused_while_one_is_paused(app, make_session, jellyfin_paused):
    reason = refusal(app, make_session(tier=3), "Bash", {"command": "cd /srv/media && docker compose up -d"})
    assert reason is not None and "every service of the project" in reason and "jellyfin" in reason


@pytest.mark.parametrize("command", ["systemctl status jellyfin", "journalctl -u jellyfin --since -1h",
                                     "curl -sS http://media.lan:8096/health", "docker restart nextcloud",
                                     "cat /etc/jellyfin/system.xml"])
def test_reading_a_paused_service_and_changing_another_pass(app, make_session, jellyfin_paused, command):
    assert refusal(app, make_session(tier=2), "Bash", {"command": command}) is None


def test_writing_a_file_of_a_paused_service_is_refused(app, make_session, jellyfin_paused):
    assert refusal(app, make_session(tier=3), "Write", {"file_path": "/etc/jellyfin/network.xml"}) is not None
    assert refusal(app, make_session(tier=3), "Write", {"file_path": "/etc/nextcloud/config.php"}) is None


def test_a_service_closed_to_remediation_is_refused_without_any_pause(app, make_session):
    reason = refusal(app, make_session(tier=3), "Bash", {"command": "ssh admin@nas.lan sudo reboot"})
    assert reason is not None and "remediate = false" in reason


def test_a_global_pause_refuses_every_change_at_tiers_2_and_3(app, make_session, claudeops_clock):
    pause_service(None, claudeops_clock() + timedelta(minutes=30), "network work", "cli", now=claudeops_clock())
    reason = refusal(app, make_session(tier=2), "Bash", {"command": "docker restart nextcloud"})
    assert reason is not None and "every service" in reason
    assert refusal(app, make_session(tier=2), "Bash", {"command": "docker ps"}) is None


def test_a_window_of_the_inventory_closes_the_service_while_it_is_open(app, make_session, claudeops_clock):
    claudeops_clock.moment = claudeops_clock.moment.replace(day=3, hour=3, minute=30)  # Sunday 03:30
    reason = refusal(app, make_session(tier=2), "Bash", {"command": "docker restart postgres-16"})
    assert reason is not None and "window 0 3 * * sun 2h" in reason


def test_after_the_pause_the_change_is_allowed(app, make_session, jellyfin_paused, claudeops_clock):
    claudeops_clock.advance(hours=2)
    assert refusal(app, make_session(tier=2), "Bash", {"command": "systemctl restart jellyfin"}) is None


def test_tier_1_is_left_to_the_read_only_gate(app, make_session, jellyfin_paused):
    assert refusal(app, make_session(tier=1), "Bash", {"command": "systemctl restart jellyfin"}) is None


def test_the_refusal_reaches_the_model_and_is_a_warning_event(app, run_scripted_session, jellyfin_paused):
    from claudeops_events import repository

    outcome = run_scripted_session([bash("systemctl restart jellyfin", "restarted"), "done"], tier=2)
    assert outcome.status == "completed"
    (event,) = [event for event in repository.list_events() if "maintenance blocked" in event.message]
    assert (event.level, event.service) == ("warning", "jellyfin")


def test_a_scripted_edit_of_a_paused_services_file_is_refused_in_the_pipeline(app, run_scripted_session,
                                                                             jellyfin_paused):
    from claudeops_events import repository

    call = ToolCall("Edit", {"file_path": "/etc/jellyfin/system.xml", "old_string": "a", "new_string": "b"}, "ok")
    assert run_scripted_session([call, "done"], tier=3).status == "completed"
    assert [event.message for event in repository.list_events() if "maintenance blocked" in event.message] == [
        "maintenance blocked a change (jellyfin is in maintenance until 2026-05-05T14:00:00Z (disk swap)): "
        "/etc/jellyfin/system.xml"]
