"""The read-only gate of tier 1 and of dry runs: deny by default.

A Bash command line is allowed only when the strict reading of :mod:`claudeops.toolgate.syntax`
sees all of it and every simple command in it is on the allow-list
(:mod:`claudeops.toolgate.allowlist`): a read-only program, with read-only sub-commands and
options, prefixed only by locale variables, redirected only to ``/dev/null`` or a descriptor.
The wrappers it can see through (``sudo``, ``timeout N``, ``nice``, ``ssh HOST``, ``docker exec
CONTAINER``, ``sh -c``, ``find -exec``) are judged by what they run. Everything else is refused
with a :class:`Refusal` naming the part refused and what to run instead.

This is a guard against mistakes, an honest model's and an unlucky loop's, not a sandbox: a
program on the list that misbehaves, a shell start-up file that redefines a command, or an HTTP
GET that an API treats as an action are beyond any parser. docs/runner.md says how to add a
sandbox underneath (a Unix user without the docker group, read-only mounts).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from claudeops.toolgate.allowlist import (
    ALLOWED_ASSIGNMENTS,
    BUILT_IN_LIST,
    SYSTEM_DIRECTORIES,
    WRITING_TOOLS,
    AllowList,
)
from claudeops.toolgate.rules import Context, Refusing, read_args
from claudeops.toolgate.syntax import Redirection, SimpleCommand, Word, read_command_line

MAX_DEPTH = 6
"""Nested ``ssh``/``sh -c`` levels judged; deeper is refused."""

NOT_FILES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
"""Where output may be redirected: nowhere, or the streams the tool already captures."""

_CONSTRUCT_INSTEAD = "run each command on its own; chaining them with ; && || and | is fine"
_EXPANSION_INSTEAD = "run the inner command on its own first and use its output as literal text"
_PROGRAM_INSTEAD = ("a read-only check: curl, dig, docker ps/inspect/logs, systemctl status, journalctl, df, "
                    "ls, cat, grep… (or ask the operator to add it to [toolgate] allow)")
_TOOL_INSTEAD = ("Read, Grep, Glob, WebFetch, or a read-only Bash command (or ask the operator to add the tool to "
                 "[toolgate] read_only_tools)")
_PATH_INSTEAD = "run the read-only commands the script would run, directly"
_REDIRECT_INSTEAD = "redirect only to /dev/null or a descriptor (2>&1); read the output instead of saving it"


@dataclass(frozen=True)
class Refusal:
    """Why a call is refused: the part, the reason, what to run instead; ``mode`` says which gate refused it."""

    part: str
    why: str
    instead: str
    mode: str = ""

    @property
    def message(self) -> str:
        """What the model reads instead of the tool's output."""
        return f"{self.mode}: refused `{self.part}`: {self.why}. Instead: {self.instead}."

    @property
    def summary(self) -> str:
        """The line of the session's event."""
        return f"{self.mode}: refused `{self.part}` ({self.why})"


def tool_refusal(tool_name: str, tool_input: dict[str, Any], mode: str,
                 allow: AllowList = BUILT_IN_LIST) -> Refusal | None:
    """Why a tool call is refused in a read-only ``mode`` ("dry run", "tier 1 is read-only"), or ``None``.

    Deny by default for tools too: a tool other than Bash passes only when ``allow.tools`` names it
    (:data:`~claudeops.toolgate.allowlist.READ_ONLY_TOOLS` and the operator's ``read_only_tools``),
    so an ``mcp__…`` tool or one a later Claude Code adds is refused until someone says it only reads.
    """
    if tool_name in WRITING_TOOLS:
        return Refusal(tool_name, f"{tool_name} changes files", "report what you would change", mode)
    if tool_name != "Bash":
        if tool_name in allow.tools:
            return None
        return Refusal(tool_name, f"{tool_name} is not known to only read", _TOOL_INSTEAD, mode)
    command = tool_input.get("command")
    if not isinstance(command, str):
        return Refusal("Bash", "the call has no command", "give the command as text", mode)
    refusal = command_refusal(command, allow)
    return None if refusal is None else replace(refusal, mode=mode)


def command_refusal(command: str, allow: AllowList = BUILT_IN_LIST) -> Refusal | None:
    """Why a Bash command line is refused, or ``None`` when every part of it only reads."""
    return _Judgement(allow).line(command, fed=False, depth=0)


@dataclass(frozen=True)
class _Judgement:
    allow: AllowList

    def line(self, command: str, fed: bool, depth: int) -> Refusal | None:
        if depth > MAX_DEPTH:
            return Refusal(_short(command), "commands nested this deep are not followed", _CONSTRUCT_INSTEAD)
        commands, unseen = read_command_line(command)
        if unseen is not None:
            instead = _EXPANSION_INSTEAD if _is_expansion(unseen.what) else _CONSTRUCT_INSTEAD
            return Refusal(_short(unseen.source), f"{unseen.what} is not looked into", instead)
        for simple in commands:
            refusal = self.simple(simple, fed or _fed(simple), depth)
            if refusal is not None:
                return refusal
        return None

    def simple(self, command: SimpleCommand, fed: bool, depth: int) -> Refusal | None:
        for name, _ in command.assignments:
            if name not in ALLOWED_ASSIGNMENTS:
                return Refusal(_short(command.source), f"the variable {name} may change what the command runs",
                               "leave the variable out (LC_ALL, LANG and TZ are allowed)")
        for redirection in command.redirections:
            why = _redirection_refused(redirection)
            if why is not None:
                return Refusal(_short(redirection.source), why, _REDIRECT_INSTEAD)
        try:
            self.argv(list(command.words), fed, depth)
        except _Refused as refused:
            return refused.refusal
        except Refusing as refusing:
            return Refusal(_short(_joined(command.words)), refusing.why, refusing.instead or _PROGRAM_INSTEAD)
        return None

    def argv(self, words: list[Word], fed: bool, depth: int) -> None:
        """Judge one command's words; raises :class:`Refusing` for this command, :class:`_Refused` for one inside."""
        program = _program(words[0])
        rest = words[1:]
        built_in = self.allow.rules.get(program)
        refusing = Refusing(f"{program} is not a read-only program", _PROGRAM_INSTEAD)
        if built_in is not None:
            try:
                self._judged(program, built_in, rest, fed, depth)
                return
            except Refusing as refused:
                refusing = refused
        texts = [word.text for word in rest]
        for entry in self.allow.entries.get(program, ()):
            if tuple(texts[:len(entry.words) - 1]) != entry.words[1:]:
                continue
            try:
                read_args(rest[len(entry.words) - 1:], entry.rule, " ".join(entry.words))
                return
            except Refusing as refused:
                refusing = refused if built_in is None else refusing
        raise refusing

    def _judged(self, program: str, rule: Any, rest: list[Word], fed: bool, depth: int) -> None:
        args, last = read_args(rest, rule, program)
        context = Context(fed, lambda inner: self._inner_argv(inner, fed, depth))
        if last.judge is not None:
            last.judge(args, context)
        if last.runs is not None:
            inner = last.runs(args)
            if isinstance(inner, str):
                refusal = self.line(inner, fed, depth + 1)
                if refusal is not None:
                    raise _Refused(refusal)
            else:
                self._inner_argv(inner, fed, depth)

    def _inner_argv(self, words: list[Word], fed: bool, depth: int) -> None:
        if depth + 1 > MAX_DEPTH:
            raise Refusing("commands nested this deep are not followed", _CONSTRUCT_INSTEAD)
        try:
            self.argv(words, fed, depth + 1)
        except Refusing as refusing:
            raise _Refused(Refusal(_short(_joined(words)), refusing.why, refusing.instead or _PROGRAM_INSTEAD)) \
                from None


class _Refused(Exception):
    """A command run by another one was refused: carries its own :class:`Refusal` out of the outer judgement."""

    def __init__(self, refusal: Refusal) -> None:
        super().__init__(refusal.why)
        self.refusal = refusal


def _program(word: Word) -> str:
    """The program a command's first word names; a path counts as its name only in a system directory."""
    if not word.fixed:
        raise Refusing(f"`{word.text}` is a file-name pattern where a program is named", "name the program")
    text = word.text
    if "/" not in text:
        return text
    directory, _, name = text.rpartition("/")
    if directory not in SYSTEM_DIRECTORIES:
        raise Refusing(f"{text} is a program run by its path, a script the gate cannot see", _PATH_INSTEAD)
    return name


def _redirection_refused(redirection: Redirection) -> str | None:
    """Why a redirection is refused: it writes into a file (or opens one for writing)."""
    operator, target = redirection.operator, redirection.target
    if target is None or operator in ("<<<", "<"):
        return None if target is None or target.fixed else "a file-name pattern as a redirection target"
    text = target.text
    if not target.fixed:
        return "a file-name pattern as a redirection target"
    if operator in ("<&", ">&") and (text.isdigit() or text == "-"):
        return None  # ``2>&1``: a copy of a descriptor; ``>&-``: closing one
    if text in NOT_FILES:
        return None
    return "output into a file"


def _fed(command: SimpleCommand) -> bool:
    """Whether the command line gives the command something to read on its standard input."""
    for redirection in command.redirections:
        if redirection.operator in ("<<", "<<-", "<<<"):
            return True
        if redirection.operator == "<" and (redirection.target is None or redirection.target.text != "/dev/null"):
            return True
    source = command.piped_from
    return source is not None and [word.text for word in source.words] not in (["echo"], ["true"], [":"])


def _is_expansion(what: str) -> bool:
    return any(word in what for word in ("substitution", "variable", "expansion", "string", "array"))


def _joined(words: list[Word] | tuple[Word, ...]) -> str:
    return " ".join(word.text for word in words)


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 100 else line[:97] + "..."
