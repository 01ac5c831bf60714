"""What a Bash command line would run: its simple commands, with wrappers peeled off.

``ssh nas "sudo docker restart jellyfin && docker logs jellyfin"`` runs ``docker restart
jellyfin`` and ``docker logs jellyfin``; the cooldown patterns must see exactly those, whatever
wraps or chains them. This is a careful tokenizer, not a shell: it understands quoting, the
separators ``; & && || | |&``, newlines, sub-shells (``( )``, ``$( )``, backticks), redirections,
``NAME=value`` prefixes, the wrappers in :data:`WRAPPERS` (``sudo``, ``env``, ``timeout``,
``xargs``, ``eval``, ``watch``, ``ssh host command``…), ``sh -c``/``bash -c`` scripts, the
commands ``find -exec`` runs and those run in containers (``docker exec``, ``kubectl exec``).
It never raises: text it cannot tokenise is split on whitespace and separators instead, so a
syntax error cannot hide a restart.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from claudeops.toolgate.argv import KUBECTL_VALUES, Syntax, read_options, subcommand

MAX_DEPTH = 6
"""Nested ``ssh``/``sh -c``/``eval`` levels followed; deeper text is not looked into."""

_PUNCTUATION = "();<>|&\n`"
_SEPARATOR_CHARS = _PUNCTUATION + "$"
_REDIRECTION = re.compile(r"^[<>&]*[<>][<>&]*\|?$")
"""``>``, ``>>``, ``2>``'s operator, ``>&``, ``&>``, ``<``, and ``>|`` (write even with noclobber)."""
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_FALLBACK_SPLIT = re.compile(r"(\|\||&&|&>>?|>>|>&|>\||[;&|()`\n<>]|\$\()")
"""Separators and redirections, for a line shlex cannot read (an unbalanced quote)."""
_PLAIN_TOKEN = re.compile(r"[();<>|&\n`]+|[^ \t\r();<>|&\n`]+")
"""Runs of separators, or of anything else but blanks: exactly shlex's tokens when there are no quotes or escapes."""
_NEEDS_PARSING = re.compile(r"[();<>|&\n`$\"'\\\t\r]")
"""A command line without any of these is one simple command whose words are its space-separated runs."""
QUOTED = re.compile(r"""'[^']*'|"(?:[^"\\]|\\[\s\S])*"|\\[\s\S]""")
"""A quoted string or an escaped character: separators in it are text (``find … -exec rm {} \\;``)."""
_HIDE = str.maketrans({char: chr(0xE000 + index) for index, char in enumerate(_PUNCTUATION)})
_SHOW = str.maketrans({chr(0xE000 + index): char for index, char in enumerate(_PUNCTUATION)})
"""Quoted separators travel through shlex as private-use characters, so they are never taken for real ones."""

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ash", "ksh"})


@dataclass(frozen=True)
class Wrapper:
    """A program that runs the command in its operands: how it reads them."""

    syntax: Syntax
    """Its own options (a wrapper's first operand ends them: ``sudo -u ops docker ps -a``)."""
    operands: int = 0
    """Its own operands before the command: timeout's duration, ssh's host."""
    script: bool = False
    """The command's words are joined into one command line, as eval, watch and ssh hand them to a shell."""
    argv_options: frozenset[str] = frozenset()
    """Options that make it run the words as they are instead (``watch -x``)."""
    options_after_operands: bool = False
    """Options may also follow its own operands (``ssh host -t command``)."""
    login_shell: bool = False
    """Given no command it runs a login shell that reads standard input (``echo 'cmd' | ssh host``): the
    call itself is then kept as a simple command, for the read-only check to refuse what it cannot see."""


def _wrapper(short_values: str = "", *long_values: str, short_attached: str = "", **how: Any) -> Wrapper:
    """A :class:`Wrapper` whose options end at its first operand (GNU ``+`` getopt, as all of them use)."""
    syntax = Syntax(short_values=short_values, short_attached=short_attached, long_values=frozenset(long_values),
                    permute=False)
    return Wrapper(syntax, **how)


WRAPPERS: dict[str, Wrapper] = {
    "sudo": _wrapper("ughpCUrtDTR", "--user", "--group", "--host", "--prompt", "--close-from", "--other-user",
                     "--role", "--type", "--chdir", "--chroot", "--command-timeout"),
    "doas": _wrapper("uC"),
    "env": _wrapper("uCS", "--unset", "--chdir", "--split-string"),
    "nice": _wrapper("n", "--adjustment"),
    "timeout": _wrapper("sk", "--signal", "--kill-after", operands=1),
    "nohup": _wrapper(),
    "time": _wrapper("fo", "--format", "--output"),
    "exec": _wrapper("a"),
    "command": _wrapper(),
    "stdbuf": _wrapper("ioe", "--input", "--output", "--error"),
    "ionice": _wrapper("cn", "--class", "--classdata"),
    "setsid": _wrapper(),
    "xargs": _wrapper("adEILnPs", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars",
                      "--process-slot-var", short_attached="eil"),
    "eval": _wrapper(script=True),
    "watch": _wrapper("nq", "--interval", "--equexit", short_attached="d", script=True,
                      argv_options=frozenset({"-x", "--exec"})),
    "ssh": _wrapper("BbcDEeFIiJLlmOoPpQRSWw", operands=1, script=True, options_after_operands=True,
                    login_shell=True),
}
"""Programs that run a command given as their operands: ``xargs`` with the items it reads appended,
``eval``/``watch``/``ssh host`` through a shell (so their words are parsed again as a command line)."""

_EXECUTING_FINDS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_CONTAINER_EXEC = Syntax(short_values="euw", long_values=frozenset({
    "--env", "--env-file", "--user", "--workdir", "--detach-keys", "--preserve-fds", "--preserve-fd"}), permute=False)
_COMPOSE_EXEC = Syntax(short_values="euw", long_values=frozenset({"--env", "--index", "--user", "--workdir"}),
                       permute=False)
_KUBECTL_EXEC = Syntax(short_values="cfnsv", long_values=KUBECTL_VALUES | {"--container", "--filename",
                                                                           "--pod-running-timeout"})
EXECS: dict[str, Syntax] = {
    "docker exec": _CONTAINER_EXEC, "docker container exec": _CONTAINER_EXEC,
    "podman exec": _CONTAINER_EXEC, "podman container exec": _CONTAINER_EXEC,
    "docker compose exec": _COMPOSE_EXEC, "docker-compose exec": _COMPOSE_EXEC,
    "podman compose exec": _COMPOSE_EXEC, "podman-compose exec": _COMPOSE_EXEC,
    "kubectl exec": _KUBECTL_EXEC,
}
"""Sub-commands that run a command in a container (``docker exec CONTAINER command…``, ``kubectl exec POD --
command…``), with the options that come before the container."""
_EXEC_PROGRAMS = ("docker", "podman", "docker-compose", "podman-compose", "kubectl")
_EXEC_PARENTS = frozenset({*_EXEC_PROGRAMS, "docker container", "podman container", "docker compose",
                           "podman compose"})
"""What comes before ``exec`` in :data:`EXECS`."""
_NO_CONTAINER = frozenset({"-l", "--latest"})
"""``podman exec --latest command…`` names no container."""


def simple_commands(command: str) -> list[list[str]]:
    """Every simple command ``command`` would run, unwrapped, as lists of words.

    The program is reduced to its base name (``/usr/bin/docker`` is ``docker``), so a pattern
    written for ``docker restart`` matches however the program was called; leading
    ``NAME=value`` assignments and redirections are dropped.
    """
    return [[words[0].rpartition("/")[2], *words[1:]] if "/" in words[0] else words
            for words in commands_as_written(command)]


def commands_as_written(command: str, depth: int = 0) -> list[list[str]]:
    """:func:`simple_commands` with each program as the command line names it (``./fix.sh``, ``/usr/bin/docker``).

    The read-only check needs the path: a program run by a path outside the system's
    directories is a script it cannot see, where the same name alone would be a command.
    """
    if depth > MAX_DEPTH:
        return []
    if _NEEDS_PARSING.search(command) is None:  # most calls (``docker logs x``): nothing to split or look into
        words = [word for word in command.split(" ") if word]
        return _unwrap(words, depth) if words else []
    return _parsed_commands(command, depth)


def _parsed_commands(command: str, depth: int) -> list[list[str]]:
    """:func:`commands_as_written` for a line with separators, redirections, quotes or substitutions."""
    found: list[list[str]] = []
    for words in _split(command):
        found.extend(_unwrap(words, depth))
        for word in words:
            if "$(" in word or "`" in word:  # a command substitution kept whole by quoting
                found.extend(commands_as_written(re.sub(r"\$\(|\)|`", " ; ", word), depth + 1))
    return found


def _split(command: str) -> list[list[str]]:
    """The command line cut at separators, redirections taken out of the words.

    Output written into a file (``> /etc/hosts``, ``>> log``) is a simple command of its own,
    ``[">", "/etc/hosts"]``, wherever it hides (``sh -c 'echo x > f'``): a write the read-only
    check must see, and no program for the cooldown patterns. A ``>`` inside quotes is text
    (``awk 'NR>1'``).
    """
    commands: list[list[str]] = [[]]
    writes: list[list[str]] = []
    redirection = None
    for token in _tokens(command):
        if redirection is not None:
            if _writes_file(redirection, token):
                writes.append([redirection, token])
            redirection = None
            continue
        if ("<" in token or ">" in token) and _REDIRECTION.match(token):
            redirection = token  # the file or descriptor it redirects to comes next
        elif token and not token.strip(_SEPARATOR_CHARS):  # nothing but separators (and ``$`` of ``$(``)
            commands.append([])
        else:
            commands[-1].append(token if token.isascii() else token.translate(_SHOW))
    return [words for words in commands if words] + writes


def _writes_file(redirection: str, target: str) -> bool:
    """Whether ``redirection target`` writes into a file: not input, not a descriptor, not a device."""
    if ">" not in redirection:
        return False
    if redirection.endswith("&") and (target.isdigit() or target == "-"):
        return False  # ``2>&1``: a copy of a descriptor
    return target not in NOT_FILES


NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
"""Redirection targets that write nothing anywhere."""


def _tokens(command: str) -> list[str]:
    """The words and separator runs of ``command``, as ``shlex`` in POSIX mode splits them.

    Without quotes or backslashes shlex has nothing to interpret, and a regex gives the same
    tokens (checked against shlex on 300,000 random command lines) twenty times faster: the
    tool gate tokenises every Bash call of a tier-1 or dry-run session. With them, separators that
    are quoted or escaped are hidden from shlex (see :data:`_HIDE`), which would otherwise return
    ``\\;`` and ``';'`` as the same ``;`` token as a real separator.
    """
    if '"' not in command and "'" not in command and "\\" not in command:
        return _PLAIN_TOKEN.findall(command)
    hidden = QUOTED.sub(lambda quoted: quoted.group().translate(_HIDE), command)
    lexer = shlex.shlex(hidden, posix=True, punctuation_chars=_PUNCTUATION)
    lexer.whitespace_split = True
    lexer.whitespace = " \t\r"
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:  # unbalanced quotes: fall back to a plain split
        return [token for part in _FALLBACK_SPLIT.split(command.replace('"', " ").replace("'", " "))
                for token in ([part] if _FALLBACK_SPLIT.fullmatch(part) else part.split())]


def _unwrap(words: list[str], depth: int) -> list[list[str]]:
    """Peel assignments and wrappers off one simple command; follow what it runs (ssh, ``sh -c``, find -exec…)."""
    while words:
        if "=" in words[0] and _ASSIGNMENT.match(words[0]):
            words = words[1:]
            continue
        program = words[0].rpartition("/")[2]
        wrapper = WRAPPERS.get(program)
        if wrapper is not None:
            if program == "command" and words[1:2] and words[1] in ("-v", "-V"):
                return []  # `command -v docker` only looks the program up
            command, script = _wrapped(words[1:], wrapper)
            if command is None:
                return [[program, *words[1:]]]
            if script and command:
                return commands_as_written(" ".join(command), depth + 1)
            words = command
            continue
        follow = _FOLLOWED.get(program)
        followed = None if follow is None else follow(program, words[1:], depth)
        return [words] if followed is None else followed
    return []


def _wrapped(words: list[str], wrapper: Wrapper) -> tuple[list[str] | None, bool]:
    """The command a wrapper runs and whether it is a command line to parse again.

    ``None`` for a login shell reading standard input (:attr:`Wrapper.login_shell`).
    """
    options, operands = read_options(words, wrapper.syntax)
    command = operands[wrapper.operands:]
    if wrapper.options_after_operands:
        more, command = read_options(command, wrapper.syntax)
        options += more
    if not command and wrapper.login_shell and len(operands) >= wrapper.operands:
        return None, False
    return command, wrapper.script and wrapper.argv_options.isdisjoint(name for name, _ in options)


def _shell(program: str, words: list[str], depth: int) -> list[list[str]] | None:
    """The commands of ``sh -c 'script'``; ``None`` for a shell running a file or standard input."""
    script = _shell_script(words)
    return None if script is None else commands_as_written(script, depth + 1)


def _find(program: str, words: list[str], depth: int) -> list[list[str]]:
    """find's own expression, then each command its ``-exec``/``-execdir``/``-ok``/``-okdir`` runs.

    A command ends at ``;`` (find needs it escaped, so it is a word here) or at ``+`` after ``{}``;
    the rest of the expression is find's again.
    """
    own = [program]
    found: list[list[str]] = []
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word not in _EXECUTING_FINDS:
            own.append(word)
            continue
        start = index
        while index < len(words) and words[index] != ";" and not (words[index] == "+" and words[index - 1] == "{}"):
            index += 1
        found.extend(_unwrap(words[start:index], depth + 1))
        index += 1
    return [own, *found]


def _executed(program: str, words: list[str], depth: int) -> list[list[str]] | None:
    """The commands of ``docker exec CONTAINER command…`` (also ``kubectl exec POD -- …``, compose and podman).

    ``None`` when ``words`` are some other sub-command: the call is then judged as it is.
    """
    if "exec" not in words:  # docker logs, docker ps…: the common case, settled without reading options
        return None
    path = program
    while path in _EXEC_PARENTS:
        found = subcommand(words, path)
        if found is None:
            return None
        path, words = f"{path} {found[0]}", found[1]
    syntax = EXECS.get(path)
    if syntax is None:
        return None
    options, operands = read_options(words, syntax)
    return _unwrap(operands[0 if _NO_CONTAINER.intersection(name for name, _ in options) else 1:], depth + 1)


def _shell_script(words: list[str]) -> str | None:
    """The script of ``sh -c 'script'`` (also ``bash -lc``, ``bash -e -c``); None for a file."""
    for index, word in enumerate(words):
        if not word.startswith("-") or word.startswith("--"):
            continue
        if "c" in word[1:]:
            rest = [item for item in words[index + 1:] if not item.startswith("-")]
            return rest[0] if rest else None
    return None


_FOLLOWED: dict[str, Callable[[str, list[str], int], list[list[str]] | None]] = {
    **dict.fromkeys(SHELLS, _shell), "find": _find, **dict.fromkeys(_EXEC_PROGRAMS, _executed)}
"""Programs that may run other commands, and how to find them (``None``: the call runs nothing else)."""
