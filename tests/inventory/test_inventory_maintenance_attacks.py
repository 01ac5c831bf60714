"""Attacks on maintenance at the tool layer (audit of issue 16 item 7): while a service is paused,
tiers 2 and 3 must not reach it by spelling it another way, by a word the shell computes, by a
container id, through its host, or by acting on the whole host or engine. Deny by default: what
the check cannot see is refused; reading stays allowed.

The inventory is the auditor's: jellyfin a container on media.lan, nothing closed to remediation,
so every refusal here is the pause's."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from claudeops import pause_service

INVENTORY = """\
[services.postgres]
kind = "container"
container = "postgres-16"

[services.jellyfin]
kind = "container"
host = "media.lan"
health_url = "http://media.lan:8096/health"

[services.nextcloud]
kind = "container"
"""
PAUSE = "jellyfin is in maintenance until 2026-05-05T14:00:00Z (disk swap)"

ATTACKS = [
    # the service spelled so that a split of the raw text misses it
    "docker restart j''ellyfin",
    'docker restart "jelly"fin',
    "docker restart jelly\\fin",
    "docker restart JellyFin",
    "sh -c 'docker restart \"jelly\"fin'",
    'eval "docker restart jelly""fin"',
    # words the shell computes when it runs
    "docker restart $(docker ps -q -f name=jelly)",
    "docker stop $(docker ps -q)",
    "docker restart `echo jellyfin`",
    "docker restart $'jellyfin'",
    "docker restart jelly*",
    "docker restart jelly?in",
    "C=jellyfin; docker restart $C",
    "for c in jellyfin; do docker restart $c; done",
    "ssh media.lan 'docker restart $(docker ps -q)'",
    "printf jellyfin | xargs docker restart",
    "docker ps -q | xargs -n1 docker restart",
    "docker restart jelly\\\nfin",
    "podman exec --latest rm -rf /config",
    # inside the paused container
    "docker exec jellyfin sh -c 'kill 1'",
    # code the check cannot read: an interpreter's program, a script
    "python3 -c \"import os; os.system('docker restart jel' + 'lyfin')\"",
    "perl -e 'system(\"docker\", \"restart\", \"jelly\" . \"fin\")'",
    "bash /tmp/fix.sh",
    "./fix.sh",
    "/opt/tools/restart-all",
    "echo 'docker restart jellyfin' | bash",
    "source ./fix.sh",
    # a container id the inventory cannot map
    "docker restart 3f2a1bc",
    "docker kill 3f2a1bc9e8d7",
    # the paused service's host
    "ssh media.lan reboot",
    "ssh -p 22 media.lan -- sudo systemctl restart nginx",
    "echo 'docker restart jellyfin' | ssh media.lan",
    "curl -X POST http://media.lan:8096/System/Restart",
    # the whole host or engine
    "reboot",
    "sudo poweroff",
    "shutdown -r now",
    "halt",
    "systemctl reboot",
    "ssh other.lan sudo reboot",
    "sudo systemctl restart docker",
    "docker system prune -af",
    "docker container prune -f",
    "docker compose restart",
    "kill -9 4242",
    # the service inside a longer name: compose's container names, a replica, its own host name
    "docker restart media-jellyfin-1",
    "docker restart media_jellyfin_1",
    "docker restart jellyfin.1",
    "curl -X POST https://jellyfin.home.lan/System/Restart",
    # processes picked by a name or pattern
    "pkill jelly",
    "pkill -f jelly",
    "killall -r jel",
    # a site script, and a compose command whose only word after an option is that option's value
    "/usr/local/bin/fix-media.sh",
    "docker compose up -d --scale web=2",
    # the engine pointed elsewhere, so the names on the line say nothing of where it acts
    "DOCKER_HOST=ssh://media.lan docker restart x",
    "export DOCKER_HOST=ssh://media.lan; docker restart x",
    "docker --context media restart x",
    "docker context use media && docker restart x",
    "KUBECONFIG=/root/media.yaml kubectl rollout restart deploy/x",
]
READING = [
    "docker logs jellyfin",
    "docker ps",
    "docker inspect jellyfin",
    "docker logs --tail 50 $(docker ps -q -f name=jelly)",
    "ssh media.lan docker ps",
    "curl -sS http://media.lan:8096/health",
    "systemctl status docker",
]
OTHERS = [
    "docker restart nextcloud",
    "/usr/bin/docker restart nextcloud",
    "python3 --version",
    "docker logs jellyfin && docker restart nextcloud",
    "docker stop -t 10 nextcloud",
    "ssh other.lan sudo systemctl restart nginx",
]


@pytest.fixture
def config_text() -> str:
    return INVENTORY


@pytest.fixture
def jellyfin_paused(app, claudeops_clock):
    return pause_service("jellyfin", claudeops_clock() + timedelta(hours=2), "disk swap", "cli", now=claudeops_clock())


def refusal(app, session, command: str) -> str | None:
    return app.hook.check_tool_use(session=session, tool_name="Bash", tool_input={"command": command})


@pytest.mark.parametrize("command", ATTACKS)
def test_an_attack_on_a_paused_service_is_refused_with_the_pause_and_its_end(app, make_session, jellyfin_paused,
                                                                           command):
    reason = refusal(app, make_session(tier=3), command)
    assert reason is not None, command
    assert PAUSE in reason.replace("jellyfin, which is", "jellyfin is")
    assert "\n" not in reason


@pytest.mark.parametrize("command", READING + OTHERS)
def test_reading_and_changing_an_open_service_still_pass(app, make_session, jellyfin_paused, command):
    assert refusal(app, make_session(tier=3), command) is None


@pytest.mark.parametrize("command", ["reboot", "docker restart $(docker ps -q)", "docker restart 3f2a1bc",
                                     "docker system prune -af", "printf x | xargs docker restart"])
def test_with_nothing_in_maintenance_the_whole_host_and_computed_words_are_not_refused(app, make_session, command):
    assert refusal(app, make_session(tier=3), command) is None


@pytest.mark.parametrize("command", ["docker restart nextcloud", "docker restart $(docker ps -q)", "reboot"])
def test_a_global_pause_refuses_every_change_and_says_until_when(app, make_session, claudeops_clock, command):
    pause_service(None, claudeops_clock() + timedelta(minutes=30), "network work", "cli", now=claudeops_clock())
    reason = refusal(app, make_session(tier=2), command)
    assert reason is not None and "every service is in maintenance until 2026-05-05T12:30:00Z (network work)" in reason
    assert refusal(app, make_session(tier=2), "docker logs $(docker ps -q)") is None


def test_a_refusal_is_one_warning_event_naming_what_could_not_be_seen(app, make_session, jellyfin_paused):
    from claudeops_events.repository import list_events

    session = make_session(tier=3)
    refusal(app, session, "docker stop $(docker ps -q)")
    events = [event for event in list_events() if event.session_id == session.id]
    assert len(events) == 1 and events[0].level == "warning"
    assert "$(docker ps -q)" in events[0].message


def _site_program(directory: Path, name: str) -> None:
    """An executable the site installed outside the distribution's directories (a script, say)."""
    program = directory / name
    program.write_text("#!/bin/sh\ndocker restart jellyfin\n")
    program.chmod(0o755)


def test_a_site_program_found_on_path_is_refused_while_a_service_is_closed(app, make_session, jellyfin_paused,
                                                                         tmp_path, monkeypatch):
    """``restart-media`` named by its bare name is the same unreadable script as ``/usr/local/bin/restart-media``."""
    _site_program(tmp_path, "restart-media")
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    reason = refusal(app, make_session(tier=3), "restart-media --now")
    assert reason is not None and f"{tmp_path}/restart-media" in reason and PAUSE in reason
    assert refusal(app, make_session(tier=3), "sudo restart-media") is not None


@pytest.mark.parametrize(("program", "allowed", "refused"), [
    ("docker", "docker restart nextcloud", "docker restart jellyfin"),
    ("podman", "podman restart nextcloud", "podman restart jellyfin"),
    ("docker-compose", "docker-compose restart nextcloud", "docker-compose restart"),
    ("systemctl", "systemctl restart nextcloud", "systemctl restart jellyfin"),
    ("kubectl", "kubectl rollout restart deploy/nextcloud", "kubectl rollout restart deploy/jellyfin"),
    ("pkill", None, "pkill -f nextcloud"),
    ("reboot", None, "reboot"),
])
def test_a_program_the_check_reads_by_its_arguments_passes_wherever_it_is_installed(
        app, make_session, jellyfin_paused, tmp_path, monkeypatch, program, allowed, refused):
    """docker lives in /usr/local/bin on many hosts; its arguments, not its place, say what it reaches, so the
    same arguments that name the closed service (or every service) are refused from there too."""
    _site_program(tmp_path, program)
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    if allowed is not None:
        assert refusal(app, make_session(tier=3), allowed) is None
    assert refusal(app, make_session(tier=3), refused) is not None
