"""What a Bash command line would run: the tokenizer the tool gate and the cooldowns share."""

from __future__ import annotations

import shlex

from hypothesis import given
from hypothesis import strategies as st

from claudeops.shell import MAX_DEPTH, _parsed_commands, simple_commands


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


_PLAIN_WORDS = st.sampled_from(["docker", "restart", "sudo", "-u", "ssh", "nas", "sh", "-c", "timeout", "30", "A=1",
                                 "/usr/bin/docker", "--", "x=y", "a.b", "~/f", "{}", "#", "*", "!", "@h:2"])
_PLAIN_TEXT = st.lists(st.one_of(_PLAIN_WORDS, st.text(st.sampled_from("az09-_./=:@%+,{}#~*?![] ")))).map(" ".join)


@given(_PLAIN_TEXT)
def test_a_line_with_nothing_to_parse_takes_the_short_way_to_the_same_commands(text):
    """Lines without separators, quotes or substitutions skip the tokenizer: the result must not change."""
    assert simple_commands(text) == _parsed_commands(text, 0)
