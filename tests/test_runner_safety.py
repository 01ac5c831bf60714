"""What the runner refuses in a dry run, and what it never writes to a transcript."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claudeops.dry_run import mutating_command, mutating_reason
from claudeops.transcript import may_hold_secret, redact, secret_literals


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


@pytest.mark.parametrize(("secret", "kept"), [
    ("sk-ant-api03-AbCdEf0123456789_-xyz", "sk-ant-***"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc", "Authorization: Bearer ***"),
    ("x-api-key: 0123456789abcdef", "x-api-key: ***"),
    ("postgresql://claudeops:p4ssw0rd@db:5432/x", "postgresql://claudeops:***@db:5432/x"),
    ("https://admin:hunter2@nas.lan/api", "https://admin:***@nas.lan/api"),
    ("redis://:s3cret@cache:6379/0", "redis://:***@cache:6379/0"),
])
def test_secrets_are_redacted_and_the_line_stays_valid_json(secret, kept):
    line = redact(json.dumps({"text": f"before {secret} after", "headers": {"x-api-key": "k-123456"}}))
    data = json.loads(line)
    assert kept in data["text"] and data["headers"]["x-api-key"] == "***"


def test_credential_variables_are_redacted_wherever_they_appear():
    literals = secret_literals({"ANTHROPIC_API_KEY": "plain-key-without-prefix", "CLAUDE_CODE_OAUTH_TOKEN": "x"})
    assert literals == ("plain-key-without-prefix",)
    assert redact('{"a": "key=plain-key-without-prefix"}', literals) == '{"a": "key=***"}'


_PIECES = ["sk-ant-", "api03", "Authorization", "AUTHORIZATION", "x-api-key", "X-Api-Key", "bearer ", "://",
           "https", "user", ":", "@", "/", "=", " ", '"', "\\", "a", "Z", "0", "-", "_", "é", "\u2028",
           "plain-key-without-prefix"]


@given(st.lists(st.sampled_from(_PIECES), max_size=40).map("".join))
def test_a_line_the_quick_check_lets_through_holds_nothing_to_redact(line):
    literals = ("plain-key-without-prefix",)
    assert may_hold_secret(line, literals) or redact(line, literals) == line
