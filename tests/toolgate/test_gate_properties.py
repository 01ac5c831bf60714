"""Properties of the read-only gate: wrapping an allowed command in anything it does not look into is refused,
what it allows it sees word for word as Bash does, and no input crashes it."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from claudeops.toolgate import command_refusal
from claudeops.toolgate.syntax import read_command_line

ALLOWED = [
    "docker ps", "docker logs --tail 20 jellyfin", "systemctl status caddy --no-pager", "df -h", "uptime",
    "curl -fsS https://nas.lan/health", "grep -i error /var/log/syslog", "cat /etc/hosts", "dig +short nas.lan",
    "journalctl -u caddy -n 20 --no-pager", "ls -la /srv", "ssh nas docker ps", "sudo docker ps",
]

UNSEEN_CONSTRUCTS = [
    "for x in a b; do {c}; done", "for ((i = 0; i < 2; i++)); do {c}; done", "while false; do {c}; done",
    "until true; do {c}; done", "if true; then {c}; fi", "if {c}; then true; fi", "if false; then true; else {c}; fi",
    "case a in a) {c};; esac", "select x in a; do {c}; done", "{{ {c}; }}", "({c})", "! {c}", "f() {{ {c}; }}; f",
    "function f {{ {c}; }}; f", "echo $({c})", "echo `{c}`", 'echo "$({c})"', "cat <({c})", "x=$({c})",
    "[[ -n $({c}) ]]", "$({c})", "eval {q}", "xargs {c} < /dev/null", "watch {c}", "su -c {q}", "script -qc {q}",
    "flock /tmp/lock {c}", "env {c}", "env -S {q}", "chroot / {c}", "runuser -u root -- {c}", "nsenter -t 1 {c}",
    "systemd-run {c}", "tmux new -d {q}", "screen -dm {c}", "echo {q} | at now", "parallel {c} ::: a",
    "busybox {c}", "exec {c}", "command {c}", "nohup {c}", "setsid {c}", "time {c}", "coproc {c}",
    "bash <<< {q}", "echo {q} | sh", "sh < /dev/stdin <<< {q}", "sudo -s {c}", "ssh nas", "echo {q} | ssh nas",
    "find / -maxdepth 0 -ok {c} \\;", "{c} > /tmp/out", "{c} 2> /tmp/err", "{c} | tee /tmp/out",
    "PATH=/tmp {c}", "LD_PRELOAD=/tmp/x.so {c}", "X=1; {c}", "export X=1; {c}",
]
"""Constructs the gate does not look into or wrappers it does not follow; ``{c}`` is the allowed command,
``{q}`` the same quoted as one word."""


def wrap(construct: str, command: str) -> str:
    return construct.format(c=command, q=shlex.quote(command))


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ALLOWED), st.lists(st.sampled_from(UNSEEN_CONSTRUCTS), min_size=1, max_size=3),
       st.sampled_from(ALLOWED), st.sampled_from(["; ", " && ", " || ", " | ", "\n"]), st.booleans())
def test_an_allowed_command_wrapped_in_anything_the_gate_does_not_see_is_refused(command, constructs, neighbour,
                                                                                separator, before):
    for construct in constructs:
        command = wrap(construct, command)
    line = f"{neighbour}{separator}{command}" if before else f"{command}{separator}{neighbour}"
    assert command_refusal(line) is not None, line


@pytest.mark.parametrize("command", ALLOWED)
def test_the_allowed_commands_of_these_properties_pass_alone_and_chained(command):
    assert command_refusal(command) is None
    assert command_refusal(f"{command}; {ALLOWED[0]} && {ALLOWED[1]} | {ALLOWED[2]}") is None


# --------------------------------------------------------------------------- the gate sees what Bash runs

_TRICKY = st.text(st.sampled_from(list("ab -_./:=,@%+~*?[]{}()<>|&;$`'\"\\#!\t é€")), max_size=12)
_FAKES = ("grep", "cat", "docker", "journalctl")


def _quoted(word: str, style: int) -> str:
    """``word`` quoted so Bash reads it back as it is: single quotes, double quotes, or backslashes."""
    if style == 0:
        return "'" + word.replace("'", "'\\''") + "'"
    if style == 1:
        return '"' + "".join("\\" + char if char in '"\\$`' else char for char in word) + '"'
    return "".join(char if char.isalnum() or char in "-_./:=,@%+" else "\\" + char for char in word) or "''"


@st.composite
def _word(draw: st.DrawFn) -> tuple[str, str]:
    """A word and its shell spelling, possibly in pieces quoted differently (``'a'"b"\\c``)."""
    word = draw(_TRICKY)
    cuts = sorted(draw(st.lists(st.integers(0, len(word)), max_size=3)))
    pieces = [word[start:end] for start, end in zip([0, *cuts], [*cuts, len(word)], strict=True)]
    spelled = "".join(_quoted(piece, draw(st.integers(0, 2))) for piece in pieces if piece) or "''"
    return word, spelled


@st.composite
def _command(draw: st.DrawFn) -> tuple[list[str], str]:
    program = draw(st.sampled_from(_FAKES))
    words = draw(st.lists(_word(), min_size=1, max_size=4))
    prefix = {"grep": ["grep", "-e"], "cat": ["cat", "--"], "docker": ["docker", "logs", "--"],
              "journalctl": ["journalctl", "-u"]}[program]
    if program in ("grep", "journalctl"):
        words = words[:1]
    return [*prefix, *(word for word, _ in words)], " ".join([*prefix, *(spelled for _, spelled in words)])


@pytest.fixture(scope="module")
def recording_programs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PATH of fake programs that write their name and arguments to ``$ARGV_LOG`` (unit-separated)."""
    directory = tmp_path_factory.mktemp("fake-bin")
    for name in _FAKES:
        path = directory / name
        path.write_text('#!/bin/sh\nprintf \'%s\\037\' "${0##*/}" "$@" >> "$ARGV_LOG"\nprintf \'\\n\' >> "$ARGV_LOG"\n')
        path.chmod(0o755)
    return directory


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_command(), min_size=1, max_size=3), st.sampled_from(["; ", " && "]))
def test_what_the_gate_allows_it_sees_word_for_word_as_bash_runs_it(recording_programs, tmp_path, commands,
                                                                      separator):
    line = separator.join(spelled for _, spelled in commands)
    refusal = command_refusal(line)
    if refusal is not None:  # only where the grammar is known to differ (a word-initial escaped blank)
        assert "shell parser" in refusal.why, (line, refusal)
        event("refused: the grammar reads it differently")
        return
    parsed, _ = read_command_line(line)
    log = tmp_path / "argv.log"
    log.unlink(missing_ok=True)
    subprocess.run(["/bin/bash", "-c", line], env={"PATH": str(recording_programs), "ARGV_LOG": str(log),
                                                   "LC_ALL": "C.UTF-8"}, check=True, timeout=10)
    ran = [entry.split("\x1f")[:-1] for entry in log.read_text().splitlines()]
    assert ran == [[word.text for word in command.words] for command in parsed] == [words for words, _ in commands]


# --------------------------------------------------------------------------- robustness

def test_a_line_the_grammar_crashed_on_is_read_safely():
    """tree-sitter-bash 0.25.1 reads out of bounds after ``{`` and a far-astral character (a segfault now and
    then, so in a child process, many times)."""
    script = ("from claudeops.toolgate import command_refusal, simple_commands\n"
              "for point in range(0x2a000, 0x110000, 0x1000):\n"
              "    for _ in range(20):\n"
              "        text = 'l{' + chr(point)\n"
              "        simple_commands(text); command_refusal(text)\n")
    done = subprocess.run([sys.executable, "-c", script], env={**os.environ}, timeout=120)
    assert done.returncode == 0


@given(st.text())
def test_no_text_makes_the_gate_raise(text):
    command_refusal(text)


def test_lone_surrogates_from_json_are_refused_not_raised():
    assert command_refusal("ls \ud800") is not None


def test_an_escaped_dollar_after_a_quoted_piece_is_refused_as_the_grammar_differing_not_as_a_string() -> None:
    """Found by the property above: tree-sitter-bash reads ``'::'\\$`` as a ``$"…"`` string, Bash as ``::$``.
    Refused either way (fail closed), but the agent is told why truthfully."""
    refusal = command_refusal("grep -e '::'\\$")
    assert refusal is not None and "shell parser" in refusal.why
