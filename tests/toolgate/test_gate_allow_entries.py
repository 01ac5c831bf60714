"""``[toolgate] allow``: the operator's extension of the allow-list, its syntax and what it cannot open."""

from __future__ import annotations

import re

import pytest

from claudeops.app import App
from claudeops.cli.group import main
from claudeops.config import ConfigError
from claudeops.exit_codes import EXIT_USAGE
from claudeops.runner.allow_list import configured_allow_list
from claudeops.toolgate import BUILT_IN_LIST, command_refusal, parse_entry

CORE_ONLY = ("claudeops.environment", "claudeops.escalation")


def allow(*entries: str):
    return BUILT_IN_LIST.extended(parse_entry(entry) for entry in entries)


@pytest.mark.parametrize(("entries", "command"), [
    (["zpool status"], "zpool status"),
    (["zpool status"], "zpool status tank"),
    (["zpool status -v -x"], "zpool status -v -x tank"),
    (["zpool status -v -x"], "zpool status -vx"),
    (["zfs list -o= -t= -H"], "zfs list -H -o name,used -t filesystem"),
    (["zfs list --output="], "zfs list --output=name"),
    (["vcgencmd measure_temp *"], "vcgencmd measure_temp --anything -goes here"),
    (["docker system events --since= --until="], "docker system events --since 1h --until 0s"),
    (["zpool status"], "sudo zpool status && timeout 5 zpool status | grep ONLINE"),
    (["zpool status"], "ssh nas zpool status"),
    (["nvme smart-log"], "/usr/sbin/nvme smart-log /dev/nvme0"),
])
def test_an_entry_allows_its_program_sub_commands_and_the_options_it_lists(entries, command):
    assert command_refusal(command) is not None, "the built-in list alone refuses it"
    assert command_refusal(command, allow(*entries)) is None


@pytest.mark.parametrize(("entries", "command"), [
    (["zpool status"], "zpool status -v"),
    (["zpool status"], "zpool scrub tank"),
    (["zpool status"], "zpool"),
    (["zpool status"], "zpool -x status"),
    (["zpool status -v"], "zpool status --verbose"),
    (["zfs list -o="], "zfs list -o"),
    (["zpool status"], "zpool status > /tmp/F"),
    (["zpool status"], "zpool status $(touch /tmp/F)"),
    (["zpool status"], "for p in a; do zpool status; done"),
    (["zpool status"], "zpool status; touch /tmp/F"),
    (["zpool status"], "/tmp/zpool status"),
    (["zpool status"], "X=1 zpool status"),
    (["zpool status *"], "zpool destroy tank"),
    (["docker system events"], "docker restart x"),
    (["docker system events"], "docker system prune"),
    (["grep --frobnicate"], "grep -o x > /tmp/F"),
])
def test_an_entry_opens_nothing_else(entries, command):
    assert command_refusal(command, allow(*entries)) is not None


def test_an_entry_for_a_built_in_program_adds_to_its_rules_and_keeps_them():
    extended = allow("docker volume prune --filter=")
    assert command_refusal("docker volume prune --filter until=24h", extended) is None
    assert command_refusal("docker volume ls", extended) is None
    assert command_refusal("docker volume rm x", extended) is not None


@pytest.mark.parametrize(("entry", "why"), [
    ("", "empty"),
    ("zpool; rm", "not a program"),
    ("zpool status | sh", "not a program"),
    ("/usr/sbin/zpool status", "not a program"),
    ("-v", "not a program"),
    ("zpool status * -v", "not a program"),
    ("*", "not a program"),
    ("sh", "runs other commands"),
    ("bash -c *", "runs other commands"),
    ("python3 -c=", "runs other commands"),
    ("sudo zpool status", "runs other commands"),
    ("xargs", "runs other commands"),
    ("find -exec", "runs other commands"),
    ("psql", "runs other commands"),
])
def test_a_bad_entry_is_refused_with_the_reason(entry, why):
    with pytest.raises(ValueError, match=why):
        parse_entry(entry)


@pytest.mark.parametrize(("entry", "why"), [
    ("docker *", "list the options it allows instead of *"),
    ("docker exec *", "docker exec runs other commands"),
    ("docker compose exec *", "docker compose exec runs other commands"),
    ("kubectl exec *", "kubectl exec runs other commands"),
    ("git *", "list the options it allows instead of *"),
    ("git -c *", "git -c runs other commands"),
    ("git log *", "list the options it allows instead of *"),
    ("curl *", "list the options it allows instead of *"),
    ("podman container *", "list the options it allows instead of *"),
    ("docker run", "docker run runs other commands"),
    ("docker run -v= --rm", "docker run runs other commands"),
    ("docker exec -u=", "docker exec runs other commands"),
    ("docker container exec", "docker container exec runs other commands"),
    ("docker compose run", "docker compose run runs other commands"),
    ("docker compose exec -T", "docker compose exec runs other commands"),
    ("docker-compose exec", "docker-compose exec runs other commands"),
    ("podman run", "podman run runs other commands"),
    ("docker build", "docker build runs other commands"),
    ("kubectl exec -i", "kubectl exec runs other commands"),
    ("kubectl run", "kubectl run runs other commands"),
    ("kubectl debug", "kubectl debug runs other commands"),
    ("kubectl edit", "kubectl edit runs other commands"),
    ("git submodule", "git submodule runs other commands"),
    ("git bisect", "git bisect runs other commands"),
    ("git rebase -x=", "git rebase runs other commands"),
    ("git difftool", "git difftool runs other commands"),
    ("git ls-remote --upload-pack=", "git ls-remote runs other commands"),
    ("git config", "git config runs other commands"),
    ("docker", "docker would also allow docker "),
    ("docker -H=", "docker would also allow docker "),
    ("docker compose", "docker compose would also allow docker compose "),
    ("podman container", "podman container would also allow podman container "),
    ("kubectl", "kubectl would also allow kubectl "),
    ("git", "git would also allow git "),
    ("git -C=", "git would also allow git "),
    ("git -c=", "git -c runs other commands or reads options"),
    ("systemctl", "systemctl alone would take any operands past the gate's own check"),
    ("systemctl --user", "systemctl alone would take any operands past the gate's own check"),
    ("ufw", "ufw alone would take any operands past the gate's own check"),
    ("wg", "wg alone would take any operands past the gate's own check"),
    ("ip -d", "ip alone would take any operands past the gate's own check of them (ip link set eth0 down)"),
    ("curl --http3-only", "curl alone would take any operands past the gate's own check"),
    ("date -u", "date alone would take any operands past the gate's own check"),
    ("git --config-env=", "git --config-env runs other commands or reads options"),
    ("git --exec-path=", "git --exec-path runs other commands or reads options"),
    ("curl -K=", "curl -K runs other commands or reads options"),
    ("curl --config=", "curl --config runs other commands or reads options"),
    ("wget -e=", "wget -e runs other commands or reads options"),
])
def test_an_entry_that_would_run_other_commands_through_a_known_program_is_refused(entry, why):
    """Every such entry was accepted before; with "docker" alone, `docker compose run web touch /tmp/F` passed,
    its sub-commands and arguments read as the entry's free operands."""
    with pytest.raises(ValueError, match=re.escape(why)):
        parse_entry(entry)


@pytest.mark.parametrize("entry", [
    "docker system events --since= --until=", "git log -c --cc", "docker volume prune --filter=",
    "kubectl rollout status", "vcgencmd measure_temp *", "zpool status *", "docker volume ls -H=",
    "systemctl list-automounts", "sort --parallel=", "zpool", "grep --no-ignore-case",
])
def test_entries_that_run_nothing_else_are_accepted(entry):
    parse_entry(entry)


def test_a_bad_entry_in_the_config_is_a_one_line_error_naming_the_setting(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[toolgate]\nallow = ["zpool status", "sh -c"]\n')
    app = App.load(str(config), {"CLAUDEOPS_STATE_DIR": str(tmp_path / "s")}, entry_points=False, builtins=CORE_ONLY)
    with pytest.raises(ConfigError) as error:
        configured_allow_list(app.config)
    message = str(error.value)
    assert message.startswith(f"file {config}: 'toolgate.allow' must be entries like \"program\", ")
    assert message.endswith("(sh runs other commands, so it cannot be allowed by an entry), not 'sh -c'")
    assert "\n" not in message


def test_claudeops_refuses_to_start_with_a_bad_entry(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CLAUDEOPS_TOOLGATE_ALLOW", "zpool status,eval")
    real_load = App.load
    monkeypatch.setattr("claudeops.cli.group.App.load", lambda config_path: real_load(
        config_path, entry_points=False, builtins=CORE_ONLY))
    with pytest.raises(SystemExit) as exit_info:
        main(["run", "--tier", "1"])
    assert exit_info.value.code == EXIT_USAGE
    assert capsys.readouterr().err == (
        "claudeops: error: env CLAUDEOPS_TOOLGATE_ALLOW: 'toolgate.allow' must be entries like \"program\", "
        "\"program subcommand\", \"program subcommand -o --long --value=\" or \"program subcommand *\" (eval runs "
        "other commands, so it cannot be allowed by an entry), not 'eval'\n")


def test_the_entries_reach_the_gate_of_a_session(tmp_path):
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(tmp_path / "s"), "CLAUDEOPS_TOOLGATE_ALLOW": "zpool status"},
                   entry_points=False, builtins=CORE_ONLY)
    assert command_refusal("zpool status", configured_allow_list(app.config)) is None
