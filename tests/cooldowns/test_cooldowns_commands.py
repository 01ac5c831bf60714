"""Which Bash commands restart or redeploy which service, with the default patterns."""

from __future__ import annotations

import shlex

import pytest
from claudeops_cooldowns.settings import REDEPLOYMENT, RESTART, CooldownSettings, patterns_from
from claudeops_cooldowns.targets import EVERY_SERVICE, find_targets

from claudeops.toolgate import command_refusal

PATTERNS = patterns_from(CooldownSettings())


def targets(command: str) -> set[tuple[str, str]]:
    return {(target.action, target.service) for target in find_targets(command, PATTERNS)}


RESTARTS_OF_JELLYFIN = [
    "docker restart jellyfin",
    "docker container restart jellyfin",
    "podman container restart jellyfin",
    "docker restart -t 30 jellyfin",
    "docker restart --time=30 jellyfin",
    "/usr/bin/docker restart jellyfin",
    "podman restart jellyfin",
    "docker restart Jellyfin",
    "docker compose restart jellyfin",
    "docker-compose restart jellyfin",
    "docker compose -f /srv/media/compose.yml restart jellyfin",
    "docker-compose -p media restart -t 10 jellyfin",
    "systemctl restart jellyfin",
    "systemctl restart jellyfin.service",
    "systemctl --no-block try-restart jellyfin.service",
    "systemctl -H nas reload-or-restart jellyfin",
    "systemctl try-reload-or-restart jellyfin",
    "service jellyfin restart",
    "sudo docker restart jellyfin",
    "sudo -u root -E systemctl restart jellyfin.service",
    "doas systemctl restart jellyfin",
    "env DOCKER_HOST=tcp://nas:2375 docker restart jellyfin",
    "DOCKER_HOST=ssh://root@nas docker restart jellyfin",
    "nohup docker restart jellyfin &",
    "timeout 60 docker restart jellyfin",
    "nice -n 10 docker restart jellyfin",
    "ssh nas docker restart jellyfin",
    "ssh -p 2222 -i ~/.ssh/ops root@nas docker restart jellyfin",
    "ssh nas 'docker restart jellyfin'",
    'ssh -o BatchMode=yes nas "sudo systemctl restart jellyfin.service && systemctl status jellyfin"',
    'ssh nas "ssh media-vm docker compose restart jellyfin"',
    "docker ps; docker restart jellyfin",
    "docker ps;docker restart jellyfin",
    "docker inspect jellyfin && docker restart jellyfin || echo failed",
    "docker restart jellyfin | tee /tmp/restart.log",
    "docker restart jellyfin > /dev/null 2>&1",
    "docker ps\ndocker restart jellyfin",
    'bash -c "docker restart jellyfin"',
    "sh -ec 'docker restart jellyfin'",
    'echo "$(docker restart jellyfin)"',
    "echo `docker restart jellyfin`",
    "(cd /srv && docker compose restart jellyfin)",
    'docker restart "jellyfin',
]


STARTS_OF_JELLYFIN = [
    "docker start jellyfin",
    "docker container start jellyfin",
    "podman start jellyfin",
    "docker start -a jellyfin",
    "docker compose start jellyfin",
    "docker-compose -f /srv/media/compose.yml start jellyfin",
    "podman-compose start jellyfin",
    "systemctl start jellyfin.service",
    "sudo systemctl --no-block start jellyfin",
    "service jellyfin start",
    "docker stop jellyfin; docker start jellyfin",
    "docker kill jellyfin && docker start jellyfin",
    "systemctl stop jellyfin; systemctl start jellyfin",
    "ssh nas 'docker stop jellyfin && docker start jellyfin'",
]


@pytest.mark.parametrize("command", RESTARTS_OF_JELLYFIN)
def test_commands_that_restart_jellyfin(command):
    assert targets(command) == {(RESTART, "jellyfin")}


@pytest.mark.parametrize("command", STARTS_OF_JELLYFIN)
def test_a_start_counts_as_a_restart_so_stop_then_start_cannot_get_around_the_limit(command):
    assert targets(command) == {(RESTART, "jellyfin")}


@pytest.mark.parametrize("command", ["docker stop jellyfin", "docker kill jellyfin", "systemctl stop jellyfin",
                                     "docker compose stop jellyfin", "service jellyfin stop"])
def test_a_stop_alone_restarts_nothing(command):
    assert targets(command) == set()


def test_every_container_named_in_one_restart_is_a_target():
    assert targets("docker restart jellyfin sonarr radarr") == {(RESTART, "jellyfin"), (RESTART, "sonarr"),
                                                                (RESTART, "radarr")}


def test_chained_restarts_of_different_services_are_all_targets():
    assert targets("docker restart jellyfin && ssh nas systemctl restart smbd") == {(RESTART, "jellyfin"),
                                                                                   (RESTART, "smbd")}


@pytest.mark.parametrize("command", [
    "docker compose restart",
    "cd /srv/media && docker-compose restart",
    "docker compose start",
])
def test_compose_restart_without_names_restarts_every_service(command):
    assert targets(command) == {(RESTART, EVERY_SERVICE)}


REDEPLOYMENTS = [
    ("docker compose up -d jellyfin", {"jellyfin"}),
    ("docker-compose up -d --force-recreate jellyfin", {"jellyfin"}),
    ("docker compose -f /srv/media/compose.yml up -d jellyfin", {"jellyfin"}),
    ("ssh nas 'cd /srv/media && docker compose up -d jellyfin'", {"jellyfin"}),
    ("docker compose up -d", {EVERY_SERVICE}),
    ("docker compose pull && docker compose up -d", {EVERY_SERVICE}),
    ("ansible-playbook -i inventory site.yml --limit jellyfin", {"jellyfin", "site"}),
    ("ansible-playbook site.yml -l jellyfin,sonarr", {"jellyfin", "sonarr", "site"}),
    ("ansible-playbook site.yml --limit=jellyfin", {"jellyfin", "site"}),
    ("ansible-playbook deploy.yml -e service=jellyfin", {"jellyfin", "deploy"}),
    ('ansible-playbook deploy.yml --extra-vars "service=jellyfin version=10.9"', {"jellyfin", "deploy"}),
    ("ansible-playbook playbooks/jellyfin.yml", {"jellyfin"}),
    ("ansible-playbook -i hosts playbooks/jellyfin.yaml --check", {"jellyfin"}),
    ("helm upgrade jellyfin ./charts/jellyfin", {"jellyfin"}),
    ("helm upgrade --install jellyfin bitnami/jellyfin --version 1.2.3", {"jellyfin"}),
    ("ssh k8s helm upgrade jellyfin ./chart", {"jellyfin"}),
]


@pytest.mark.parametrize(("command", "expected"), REDEPLOYMENTS)
def test_commands_that_redeploy(command, expected):
    assert targets(command) == {(REDEPLOYMENT, service) for service in expected}


@pytest.mark.parametrize("command", [*RESTARTS_OF_JELLYFIN, *STARTS_OF_JELLYFIN,
                                     *(command for command, _ in REDEPLOYMENTS)])
def test_the_read_only_check_refuses_everything_the_cooldowns_count(command):
    """Dry runs at any tier rely on the core check alone: it must know every restart the patterns know."""
    assert command_refusal(command) is not None


@pytest.mark.parametrize("command", [
    "docker ps",
    "docker logs --tail 50 jellyfin",
    "docker inspect --format '{{.RestartCount}}' jellyfin",
    "docker compose ps",
    "docker compose logs -f jellyfin",
    "docker compose -f restart.yml ps",
    "docker compose config",
    "systemctl status jellyfin",
    "systemctl list-units --failed",
    "systemctl list-units --state=start",
    "docker ps --filter status=started",
    "journalctl -u jellyfin --since '1 hour ago'",
    "curl -s http://jellyfin:8096/health",
    "echo docker restart jellyfin",
    "grep -c restart /var/log/syslog",
    "cat docker-compose.yml",
    "ssh nas uptime",
    "ssh nas",
    "helm list -A",
    "ansible all -m ping",
    "command -v docker",
    "",
])
def test_commands_that_restart_nothing(command):
    assert targets(command) == set()


def nested(command: str, levels: int) -> str:
    for _ in range(levels):
        command = f"bash -c {shlex.quote(command)}"
    return command


def test_shell_nesting_is_followed_six_levels_deep():
    assert targets(nested("docker restart jellyfin", 6)) == {(RESTART, "jellyfin")}


def test_deeper_nesting_is_not_followed_and_does_not_fail():
    assert targets(nested("docker restart jellyfin", 10)) == set()
