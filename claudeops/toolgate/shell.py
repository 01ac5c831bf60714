"""What a Bash command line would run, for the cooldowns and maintenance: its simple commands, wrappers peeled off.

``ssh nas "sudo docker restart jellyfin && docker logs jellyfin"`` runs ``docker restart
jellyfin`` and ``docker logs jellyfin``; the cooldown patterns must see exactly those, whatever
wraps or chains them. The commands come from the same tree-sitter parse as the read-only gate's
(:func:`claudeops.toolgate.syntax.every_command`), read generously: every command anywhere, in
loops, functions, groups and substitutions too. Then the wrappers in :data:`WRAPPERS` (``sudo``,
``env``, ``timeout``, ``xargs``, ``eval``, ``watch``, ``ssh host command``…) are peeled off, and
``sh -c`` scripts, the commands ``find -exec`` runs and those run in containers (``docker exec``,
``kubectl exec``) are followed. It never raises.

:func:`shell_commands` also says where each command runs (the ``ssh`` hosts peeled off), whether it
is fed operands the line does not show (``xargs``), which files its redirections name, and which
words Bash computes when it runs (:class:`~claudeops.toolgate.syntax.ComputedWord`): what the
maintenance check of the inventory plugin needs to refuse what it cannot see.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from claudeops.toolgate.argv import KUBECTL_VALUES, Syntax, read_options, subcommand
from claudeops.toolgate.syntax import every_command

MAX_DEPTH = 6
"""Nested ``ssh``/``sh -c``/``eval`` levels followed; deeper text is not looked into."""

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


@dataclass(frozen=True)
class ShellCommand:
    """One command a command line would run, unwrapped, with where it runs and what else it is given.

    What the maintenance check needs beyond the words: an ``ssh host`` peeled off still acts on that
    host, ``xargs`` (or a login shell reading standard input) runs with operands the line does not
    show, and a redirection writes a file the words do not name.
    """

    words: list[str]
    """The program (its base name) and its arguments; a :class:`~claudeops.toolgate.syntax.ComputedWord`
    where Bash computes the value when it runs (``$(docker ps -q)``, ``$s``, ``jelly*``)."""
    hosts: tuple[str, ...] = ()
    """The ``ssh`` destinations it runs on, outermost first; empty: this host."""
    containers: tuple[str, ...] = ()
    """The containers (or pods) it runs in (``docker exec CONTAINER``, ``kubectl exec POD``), outermost first."""
    fed: bool = False
    """It runs on what it reads: ``xargs`` appends operands, ``ssh host`` without a command runs a shell on them."""
    redirects: tuple[tuple[str, str], ...] = ()
    """``(operator, target)`` of its redirections (``(">", "/etc/x")``)."""
    program: str = ""
    """The program as written, its path kept (``./fix.sh``, ``/usr/bin/docker``); ``words[0]`` is its base name."""


def simple_commands(command: str) -> list[list[str]]:
    """Every simple command ``command`` would run, unwrapped, as lists of words.

    The program is reduced to its base name (``/usr/bin/docker`` is ``docker``), so a pattern
    written for ``docker restart`` matches however the program was called; leading
    ``NAME=value`` assignments and redirections are dropped.
    """
    return [found.words for found in shell_commands(command)]


def shell_commands(command: str) -> list[ShellCommand]:
    """Every simple command ``command`` would run, unwrapped, with its hosts, input and redirections.

    The same reading as :func:`simple_commands` (which gives only the words); never raises.
    """
    return [replace(found, words=[found.words[0].rpartition("/")[2], *found.words[1:]], program=found.words[0])
            for found in _commands(command, 0, _HERE)]


@dataclass(frozen=True)
class _Where:
    """Where the commands being read run: through which ssh hosts and containers, fed by xargs or not."""

    hosts: tuple[str, ...] = ()
    containers: tuple[str, ...] = ()
    fed: bool = False


_HERE = _Where()


def _commands(command: str, depth: int, where: _Where) -> list[ShellCommand]:
    if depth > MAX_DEPTH:
        return []
    found: list[ShellCommand] = []
    for loose in every_command(command):
        found.extend(replace(inner, redirects=loose.redirects + inner.redirects)
                     for inner in _unwrap(loose.words, depth, where))
    return found


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _unwrap(words: list[str], depth: int, where: _Where) -> list[ShellCommand]:
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
            command, script, host = _wrapped(words[1:], wrapper)
            if program == "ssh":
                where = replace(where, hosts=(*where.hosts, host))
            if command is None:
                return [ShellCommand([program, *words[1:]], where.hosts, where.containers, fed=True)]
            if program == "xargs":
                where = replace(where, fed=True)
            if script and command:
                return _commands(" ".join(command), depth + 1, where)
            words = command
            continue
        follow = _FOLLOWED.get(program)
        followed = None if follow is None else follow(program, words[1:], depth, where)
        return [ShellCommand(words, where.hosts, where.containers, where.fed)] if followed is None else followed
    return []


def _wrapped(words: list[str], wrapper: Wrapper) -> tuple[list[str] | None, bool, str]:
    """The command a wrapper runs, whether it is a command line to parse again, and its first own operand
    (ssh's host).

    ``None`` for a login shell reading standard input (:attr:`Wrapper.login_shell`).
    """
    options, operands = read_options(words, wrapper.syntax)
    command = operands[wrapper.operands:]
    first = operands[0] if operands and wrapper.operands else ""
    if wrapper.options_after_operands:
        more, command = read_options(command, wrapper.syntax)
        options += more
    if not command and wrapper.login_shell and len(operands) >= wrapper.operands:
        return None, False, first
    return command, wrapper.script and wrapper.argv_options.isdisjoint(name for name, _ in options), first


def _shell(program: str, words: list[str], depth: int, where: _Where) -> list[ShellCommand] | None:
    """The commands of ``sh -c 'script'``; ``None`` for a shell running a file or standard input."""
    script = _shell_script(words)
    return None if script is None else _commands(script, depth + 1, where)


def _find(program: str, words: list[str], depth: int, where: _Where) -> list[ShellCommand]:
    """find's own expression, then each command its ``-exec``/``-execdir``/``-ok``/``-okdir`` runs.

    A command ends at ``;`` (find needs it escaped, so it is a word here) or at ``+`` after ``{}``;
    the rest of the expression is find's again.
    """
    own = [program]
    found: list[ShellCommand] = []
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
        found.extend(_unwrap(words[start:index], depth + 1, where))
        index += 1
    return [ShellCommand(own, where.hosts, where.containers, where.fed), *found]


def _executed(program: str, words: list[str], depth: int, where: _Where) -> list[ShellCommand] | None:
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
    if _NO_CONTAINER.intersection(name for name, _ in options):
        return _unwrap(operands, depth + 1, replace(where, containers=(*where.containers, "")))
    return _unwrap(operands[1:], depth + 1, replace(where, containers=(*where.containers, *operands[:1])))


def _shell_script(words: list[str]) -> str | None:
    """The script of ``sh -c 'script'`` (also ``bash -lc``, ``bash -e -c``); None for a file."""
    for index, word in enumerate(words):
        if not word.startswith("-") or word.startswith("--"):
            continue
        if "c" in word[1:]:
            rest = [item for item in words[index + 1:] if not item.startswith("-")]
            return rest[0] if rest else None
    return None


_FOLLOWED: dict[str, Callable[[str, list[str], int, _Where], list[ShellCommand] | None]] = {
    **dict.fromkeys(SHELLS, _shell), "find": _find, **dict.fromkeys(_EXEC_PROGRAMS, _executed)}
"""Programs that may run other commands, and how to find them (``None``: the call runs nothing else)."""
