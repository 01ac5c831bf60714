"""What a Bash command line would run, for the cooldown patterns: the same parse as the gate's, read generously."""

from __future__ import annotations

import shlex

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claudeops.toolgate.argv import without_global_options
from claudeops.toolgate.shell import MAX_DEPTH, simple_commands


def test_simple_commands_peel_wrappers_and_follow_ssh_and_shells():
    assert simple_commands("sudo -u ops env A=1 ssh -p 22 nas \"bash -c 'docker restart x; docker ps'\"") == [
        ["docker", "restart", "x"], ["docker", "ps"]]


def test_chains_pipes_and_substitutions_are_split():
    assert simple_commands("docker ps | grep x && /usr/bin/docker restart x || echo $(date)") == [
        ["docker", "ps"], ["grep", "x"], ["docker", "restart", "x"], ["echo", "$(date)"], ["date"]]


@pytest.mark.parametrize(("command", "runs"), [
    ("for s in a b; do docker restart $s; done", [["docker", "restart", "$s"]]),
    ("if docker ps; then docker restart x; fi", [["docker", "ps"], ["docker", "restart", "x"]]),
    ("f(){ docker restart x; }; f", [["docker", "restart", "x"], ["f"]]),
    ("{ docker restart x; }", [["docker", "restart", "x"]]),
    ("! docker restart x", [["docker", "restart", "x"]]),
    ("cat <<EOF\n$(docker restart x)\nEOF", [["cat"], ["docker", "restart", "x"]]),
])
def test_commands_inside_loops_functions_and_groups_are_found(command, runs):
    assert simple_commands(command) == runs


def test_programs_lose_their_path_for_the_patterns():
    assert simple_commands("sudo /usr/bin/docker restart x; ./fix.sh --all") == [
        ["docker", "restart", "x"], ["fix.sh", "--all"]]


def test_nesting_deeper_than_the_limit_is_not_followed():
    command = "docker restart jellyfin"
    for _ in range(MAX_DEPTH + 2):
        command = f"bash -c {shlex.quote(command)}"
    assert simple_commands(command) == []


@given(st.text())
def test_reading_never_raises(text):
    simple_commands(text)


@pytest.mark.parametrize(("command", "runs"), [
    ("eval docker restart jellyfin", [["docker", "restart", "jellyfin"]]),
    ("eval 'docker ps; docker restart x'", [["docker", "ps"], ["docker", "restart", "x"]]),
    ("watch -n 5 'docker restart x'", [["docker", "restart", "x"]]),
    ("watch -x sh -c 'docker restart x'", [["docker", "restart", "x"]]),
    ("ls | xargs -0 -n1 docker restart", [["ls"], ["docker", "restart"]]),
    ("xargs -I{} docker restart {}", [["docker", "restart", "{}"]]),
    ("find / -name x -exec docker restart jellyfin \\;",
     [["find", "/", "-name", "x"], ["docker", "restart", "jellyfin"]]),
    ("find . -exec cat {} ';' -o -execdir rm {} + -print",
     [["find", ".", "-o", "-print"], ["cat", "{}"], ["rm", "{}"]]),
    ("docker --log-level debug exec -u root db psql -c 'select 1'", [["psql", "-c", "select 1"]]),
    ("docker container exec web cat /etc/hosts", [["cat", "/etc/hosts"]]),
    ("docker compose -f x.yml exec -T db sh -c 'docker restart x'", [["docker", "restart", "x"]]),
    ("kubectl -n media exec -it pod -c app -- rm -rf /data", [["rm", "-rf", "/data"]]),
    ("podman exec --latest docker restart x", [["docker", "restart", "x"]]),
    ("docker exec -it db sh", [["sh"]]),
    ("ssh nas -p 2222 -t docker restart x", [["docker", "restart", "x"]]),
    ("echo 'docker restart x' | ssh nas", [["echo", "docker restart x"], ["ssh", "nas"]]),
    ("sudo -Eu root docker restart x", [["docker", "restart", "x"]]),
])
def test_commands_run_by_eval_watch_xargs_find_exec_and_ssh_are_followed(command, runs):
    assert simple_commands(command) == runs


@pytest.mark.parametrize(("command", "runs"), [
    ("docker logs --tail 20 db", [["docker", "logs", "--tail", "20", "db"]]),
    ("docker exec db", []),
    ("ssh -V", []),
    ("echo 'a;b' \"|\" \\& | grep ';'", [["echo", "a;b", "|", "&"], ["grep", ";"]]),
])
def test_quoted_separators_stay_words_and_calls_that_run_nothing_else_stay_as_they_are(command, runs):
    assert simple_commands(command) == runs


@pytest.mark.parametrize(("line", "canonical"), [
    ("docker --log-level debug restart jellyfin", "docker restart jellyfin"),
    ("docker -H tcp://nas:2375 --context x container restart jellyfin", "docker container restart jellyfin"),
    ("docker compose -f /srv/compose.yml -p media up -d web", "docker compose up -d web"),
    ("git -C /srv/repo -c a=b push origin", "git push origin"),
    ("systemctl --user restart jellyfin", "systemctl restart jellyfin"),
    ("docker logs --tail 20 web", "docker logs --tail 20 web"),
    ("docker --version", "docker --version"),
    ("journalctl -u jellyfin -n 50", "journalctl -u jellyfin -n 50"),
])
def test_options_before_a_sub_command_are_left_out_of_the_form_patterns_match(line, canonical):
    assert " ".join(without_global_options(shlex.split(line))) == canonical


def test_shell_commands_say_where_a_command_runs_what_feeds_it_and_what_bash_computes():
    from claudeops.toolgate import ComputedWord, shell_commands

    (remote,) = shell_commands("ssh -p 22 admin@media.lan 'docker exec jf kill 1' 2>/dev/null")
    assert (remote.words, remote.hosts, remote.containers) == (["kill", "1"], ("admin@media.lan",), ("jf",))
    assert remote.redirects == ((">", "/dev/null"),)
    stop, listing = shell_commands("docker stop $(docker ps -q) > /etc/x")
    assert stop.words == ["docker", "stop", "$(docker ps -q)"] and isinstance(stop.words[2], ComputedWord)
    assert stop.redirects == ((">", "/etc/x"),) and listing.words == ["docker", "ps", "-q"]
    assert not any(isinstance(word, ComputedWord) for word in shell_commands("docker restart j''elly\\fin")[0].words)
    assert isinstance(shell_commands("docker restart jelly*")[0].words[2], ComputedWord)
    fed = shell_commands("printf x | xargs docker restart")[1]
    assert fed.words == ["docker", "restart"] and fed.fed
    assert shell_commands("./fix.sh --all")[0].program == "./fix.sh"


def test_words_the_grammar_reads_differently_from_bash_are_all_computed():
    from claudeops.toolgate import ComputedWord, shell_commands

    words = [word for command in shell_commands("docker restart jelly\\\nfin") for word in command.words]
    assert words and all(isinstance(word, ComputedWord) for word in words)
