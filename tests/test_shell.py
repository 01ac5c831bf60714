"""What a Bash command line would run: the tokenizer the tool gate and the cooldowns share."""

from __future__ import annotations

import shlex

from hypothesis import given
from hypothesis import strategies as st

from claudeops.shell import MAX_DEPTH, simple_commands


def test_simple_commands_peel_wrappers_and_follow_ssh_and_shells():
    assert simple_commands("sudo -u ops env A=1 ssh -p 22 nas \"bash -c 'docker restart x; docker ps'\"") == [
        ["docker", "restart", "x"], ["docker", "ps"]]


def test_chains_pipes_and_substitutions_are_split():
    assert simple_commands("docker ps | grep x && /usr/bin/docker restart x || echo $(date)") == [
        ["docker", "ps"], ["grep", "x"], ["docker", "restart", "x"], ["echo"], ["date"]]


def test_nesting_deeper_than_the_limit_is_not_followed():
    command = "docker restart jellyfin"
    for _ in range(MAX_DEPTH + 2):
        command = f"bash -c {shlex.quote(command)}"
    assert simple_commands(command) == []


@given(st.text())
def test_tokenizer_never_raises(text):
    simple_commands(text)
