"""What the tool gate refuses in a dry run (and so in tier 1): commands that change something, wherever they hide."""

from __future__ import annotations

import pytest

from claudeops.toolgate.dry_run import mutating_command, mutating_reason


@pytest.mark.parametrize("command", [
    "docker restart jellyfin", "sudo systemctl restart caddy", "docker compose -f /srv/compose.yml up -d",
    "docker-compose down", "git -C /srv/infra push", "curl -X POST http://hass.lan/api/services",
    "echo 1 > /proc/sys/vm/drop_caches", "ls /tmp && rm -rf /tmp/cache", "kubectl -n media delete pod x",
    "service nginx reload", "sed -i s/a/b/ /etc/caddy/Caddyfile", "apprise -b 'down' mailto://x",
])
def test_dry_run_refuses_commands_that_change_something(command):
    assert mutating_command(command) is not None
    assert mutating_reason("Bash", {"command": command}).startswith("dry run:")


@pytest.mark.parametrize(("command", "found"), [
    ("ssh nas docker restart jellyfin", "docker restart jellyfin"),
    ('ssh -p 2222 root@nas "touch /srv/flag"', "touch /srv/flag"),
    ("sh -c 'docker compose up -d nextcloud'", "docker compose up -d nextcloud"),
    ("timeout 30 systemctl restart caddy", "systemctl restart caddy"),
    ("env LANG=C bash -c \"rm -rf /var/cache/x\"", "rm -rf /var/cache/x"),
    ("docker ps; $(docker restart sonarr)", "docker restart sonarr"),
])
def test_dry_run_sees_through_ssh_shells_and_wrappers(command, found):
    assert mutating_command(command) == found
    assert mutating_reason("Bash", {"command": command}, "tier 1 is read-only").startswith("tier 1 is read-only:")


@pytest.mark.parametrize("command", [
    "docker --log-level debug restart jellyfin",
    "docker -H tcp://nas:2375 restart jellyfin",
    "docker --host=tcp://nas:2375 restart jellyfin",
    "docker -l debug --context nas restart jellyfin",
    "docker --config /tmp/d compose -f x.yml -p media up -d",
    "docker-compose --project-directory /srv --env-file e down",
    "podman --log-level debug -c nas restart jellyfin",
    "kubectl --context home -v 6 delete pod x",
    "systemctl --user restart jellyfin",
    "systemctl -M box -H nas restart jellyfin",
    "git -c user.name=x --git-dir /srv/.git push",
    "apt-get -o Dpkg::Options::=--force-confold install x",
    "helm --kube-context home upgrade nextcloud ./chart",
])
def test_dry_run_finds_the_sub_command_after_global_options(command):
    assert mutating_command(command) == command


@pytest.mark.parametrize(("command", "found"), [
    ("eval docker restart jellyfin", "docker restart jellyfin"),
    ("eval 'docker ps && docker restart jellyfin'", "docker restart jellyfin"),
    ("find / -name x -exec docker restart jellyfin \\;", "docker restart jellyfin"),
    ("find /srv -type f -execdir rm {} +", "rm {}"),
    ("find /tmp -name '*.log' -delete", "find /tmp -name *.log -delete"),
    ("find / -fprint /tmp/list", "find / -fprint /tmp/list"),
    ("watch docker restart jellyfin", "docker restart jellyfin"),
    ("watch -n 10 'systemctl restart caddy'", "systemctl restart caddy"),
    ("docker ps -q | xargs docker restart", "docker restart"),
    ("docker ps -q | xargs -r -n1 -I{} docker restart {}", "docker restart {}"),
    ("ssh nas -t docker restart jellyfin", "docker restart jellyfin"),
    ("sudo -Eu root docker restart jellyfin", "docker restart jellyfin"),
    ("docker exec db psql -c 'drop table x'", "psql -c drop table x"),
    ("docker exec web sh -c 'rm -rf /data'", "rm -rf /data"),
    ("kubectl -n media exec deploy/app -- rm -rf /cache", "rm -rf /cache"),
    ("podman exec db redis-cli flushall", "redis-cli flushall"),
])
def test_dry_run_judges_what_eval_find_watch_xargs_and_exec_run(command, found):
    assert mutating_command(command) == found
    assert mutating_reason("Bash", {"command": command}, "tier 1 is read-only").startswith("tier 1 is read-only:")


@pytest.mark.parametrize("command", [
    "docker exec -it db sh", "docker exec -i db bash < fix.sh", "kubectl exec -it pod -- bash",
    "echo 'docker restart jellyfin' | sh", "bash /srv/fix.sh", "source /srv/env.sh", ". ./fix.sh",
    "echo 'docker restart jellyfin' | ssh nas", "ssh -t nas",
])
def test_dry_run_refuses_shells_reading_a_file_or_standard_input_as_unseen(command):
    reason = mutating_reason("Bash", {"command": command}, "tier 1 is read-only")
    assert reason is not None and "standard input or a file" in reason


@pytest.mark.parametrize("command", [
    "docker --log-level debug ps", "docker -H tcp://nas:2375 logs --tail 20 jellyfin",
    "docker compose -f x.yml -p p ps",
    "systemctl --user status jellyfin", "systemctl -H nas is-active caddy", "kubectl --context home -n media get pods",
    "git -C /srv/infra log -5", "docker exec db psql -c 'select 1'", "docker exec web cat /etc/hosts",
    "docker compose exec -T db psql -c 'SELECT count(*) FROM pg_stat_activity'",
    "kubectl exec -it app-0 -c app -- cat /etc/resolv.conf", "find /var/log -name '*.log' -mtime -1",
    "find /etc -name '*.conf' -exec grep -l listen {} +", "watch -n 5 docker ps", "ls /srv | xargs -n1 du -sh",
    "eval echo ready", "bash --version",
])
def test_dry_run_allows_read_only_checks_through_wrappers_and_exec(command):
    assert mutating_command(command) is None


@pytest.mark.parametrize("command", ["ssh nas docker ps", "ssh nas 'df -h; uptime'", "sudo journalctl -u caddy -n 20"])
def test_read_only_checks_over_ssh_stay_allowed(command):
    assert mutating_command(command) is None


@pytest.mark.parametrize("command", [
    "docker ps --format '{{.Names}}'", "docker logs --tail 50 jellyfin", "docker compose -f x.yml ps",
    "systemctl status caddy --no-pager", "curl -fsS -o /dev/null -w '%{http_code}' http://x/health",
    "dig +short nas.lan", "df -h 2>&1", "journalctl -u caddy --since -1h | tail -n 50", "git log -5",
    "pg_isready -h db.lan", "service caddy status", "kubectl -n media get pods",
])
def test_dry_run_allows_read_only_checks(command):
    assert mutating_command(command) is None


def test_dry_run_refuses_file_writing_tools_only():
    assert mutating_reason("Edit", {"file_path": "/etc/x"}) is not None
    assert mutating_reason("Read", {"file_path": "/etc/x"}) is None
    assert mutating_reason("WebFetch", {"url": "http://x"}) is None


@pytest.mark.parametrize("command", [
    "echo 10.0.0.5 nas >> /etc/hosts",
    "sh -c 'date > /var/tmp/stamp'",
    "ssh nas 'cat /etc/fstab > /tmp/fstab.bak'",
    "docker logs web 2> /tmp/err.log",
    "eval 'uptime > /tmp/up'",
    "echo hi >| /tmp/f",
    "echo 'an unbalanced quote > /etc/hosts",
])
def test_output_redirected_into_a_file_is_refused_wherever_it_hides(command):
    assert mutating_command(command) == "output redirection into a file"


@pytest.mark.parametrize("command", [
    "awk 'NR>1{print $2}' /proc/net/dev",
    """awk '{print $1 " -> " $2}' /etc/hosts""",
    "docker logs web 2>&1 | tail -20",
    "curl -s -o /dev/null -w '%{http_code}' http://nas:8096/health 2>/dev/null",
    "grep -c '>' /var/log/caddy/access.log",
])
def test_a_quoted_comparison_or_a_redirection_to_a_descriptor_or_dev_null_reads(command):
    assert mutating_command(command) is None
