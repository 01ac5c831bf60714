"""How one read-only program may be called: its allowed options, sub-commands and operands, and the reading.

A :class:`Rule` lists what a program may be given at tier 1 and in a dry run; :func:`read_args`
reads a command's words against it the way the program's own option parser would, and raises
:class:`Refusing` at the first word it cannot allow. Reading errs one way only: an option is
declared to take a value (``-n 5``) only when the program always takes one, because an option
wrongly thought to take a value would hide the word after it (``journalctl -n --vacuum-time=1s``
must not read ``--vacuum-time=1s`` as the value of ``-n``); options are taken to be allowed
anywhere before ``--`` (GNU programs reorder them), so none hides behind an operand; and long
options must be spelled in full, never abbreviated as getopt would allow.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from claudeops.toolgate.syntax import Word


class Refusing(Exception):
    """A word or call the gate does not allow: why, and what to run instead (short)."""

    def __init__(self, why: str, instead: str = "") -> None:
        super().__init__(why)
        self.why = why
        self.instead = instead


@dataclass
class Args:
    """A command's arguments as its program reads them."""

    options: list[tuple[str, str]] = field(default_factory=list)
    """``(name, value)`` in order; ``value`` is ``""`` for a flag, ``-NUM`` options are named ``-NUM``."""
    operands: list[Word] = field(default_factory=list)
    path: str = ""
    """The program and sub-commands read so far (``docker compose``), for messages."""

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.options)

    def values(self, *names: str) -> list[str]:
        return [value for name, value in self.options if name in names]

    @property
    def texts(self) -> list[str]:
        return [word.text for word in self.operands]


Judge = Callable[["Args", "Context"], None]
"""A program's own check of what it was given, after its options were read: raises :class:`Refusing`."""
Runs = Callable[[Args], "list[Word] | str"]
"""The command a wrapper runs: its words (``sudo``, ``timeout``, ``docker exec``) or a command line to
parse again (``ssh HOST …``, ``sh -c …``)."""


@dataclass(frozen=True)
class Context:
    """What a judge needs to know about the call beyond its words."""

    fed: bool
    """Its standard input comes from the command line (a pipe, a here-document, ``< file``)."""
    check_argv: Callable[[list[Word]], None]
    """Judge a command another one runs (``find -exec``), raising :class:`Refusing` as the gate does."""


@dataclass(frozen=True)
class Rule:
    """What a read-only program may be given. Build one with :func:`rule`."""

    flags: frozenset[str] = frozenset()
    values: frozenset[str] = frozenset()
    """Options that always take a value, attached (``-n5``, ``--lines=5``) or as the next word."""
    attached: frozenset[str] = frozenset()
    """Options whose value is optional and can only be attached (``--color=auto``, ``-n50``)."""
    numbers: bool = False
    """``-5`` is an option (``head -5``, ``git log -5``)."""
    operands: int | None = None
    """At most this many operands; ``None`` for any number."""
    subcommands: Mapping[str, Rule] | None = None
    """Sub-commands named by the first operand; the rest of the words are read by the sub-command's rule."""
    bare: bool = False
    """With sub-commands: it may also run with none (``systemctl`` alone lists units)."""
    permute: bool = True
    """Options may follow operands. ``False`` for a wrapper or a program whose first operand ends its options."""
    whole: bool = False
    """Options are whole words after one dash (``-noout``, ``-br``), never clusters of letters."""
    judge: Judge | None = None
    runs: Runs | None = None
    raw: bool = False
    """Its words are not read as options: every word is an operand, for the judge to read (``find``), or,
    without a judge, any arguments at all, for programs that cannot change anything whatever they are
    given (``dig``, ``ps``)."""
    patterns: bool = True
    """Operands may be file-name patterns (``ls /var/log/*.log``): false when the count or text of the
    operands matters (``uniq IN OUT``, a URL, a remote command), because a pattern may become any number."""


def rule(options: str = "", **how: object) -> Rule:
    """A :class:`Rule` from its options written as in a manual: ``"-a --all -n= --lines= --color[=] -NUM"``.

    ``-x`` is a flag, ``-x=`` always takes a value, ``--x[=]`` takes an optional attached one,
    ``-NUM`` allows ``-5``.
    """
    flags: set[str] = set()
    values: set[str] = set()
    attached: set[str] = set()
    numbers = False
    for spec in options.split():
        if spec == "-NUM":
            numbers = True
        elif spec.endswith("[=]"):
            attached.add(spec[:-3])
        elif spec.endswith("="):
            values.add(spec[:-1])
        else:
            flags.add(spec)
    built = Rule(frozenset(flags), frozenset(values), frozenset(attached), numbers, **how)  # type: ignore[arg-type]
    if "patterns" in how:
        return built
    return replace(built, patterns=built.operands is None and built.judge is None and built.runs is None)


ANYTHING = Rule(raw=True)
"""Any arguments: a program that cannot change anything, whatever it is given."""


def read_args(words: Sequence[Word], program_rule: Rule, path: str) -> tuple[Args, Rule]:
    """``words`` (after the program's name) read against ``program_rule``; the rule that judged the last part.

    Sub-commands are followed: ``docker --log-level debug logs --tail 5 x`` is read by docker's
    rule up to ``logs``, then by the rule of ``docker logs``. Raises :class:`Refusing`.
    """
    args = Args(path=path)
    current = program_rule
    remaining = list(words)
    while True:
        if current.raw:
            args.operands.extend(remaining)
            return args, current
        remaining = _read_options(remaining, current, args, not current.permute)
        if current.subcommands is None:
            break
        operands = args.operands
        if not operands:
            if current.bare:
                return args, current
            raise Refusing(f"{args.path} without a read-only sub-command", _subcommands(args.path, current))
        name = operands[0]
        sub = current.subcommands.get(name.text) if name.fixed else None
        if sub is None:
            raise Refusing(f"`{name.text}` is not a read-only sub-command of {args.path}",
                           _subcommands(args.path, current))
        args.path = f"{args.path} {name.text}"
        if current.permute:  # options were read with the parent's rule; the sub-command judges its operands
            args.operands = operands[1:]
            _check_operands(args, sub)
            return args, sub
        args.operands = []
        remaining = operands[1:] + remaining
        current = sub
    _check_operands(args, current)
    return args, current


def _subcommands(path: str, parent: Rule) -> str:
    """The read-only sub-commands, the most used first (as the allow-list lists them)."""
    names = list(parent.subcommands or ())
    shown = ", ".join(names[:10]) + (", …" if len(names) > 10 else "")
    return f"read-only sub-commands of {path}: {shown}"


def _check_operands(args: Args, current: Rule) -> None:
    if current.operands is not None and len(args.operands) > current.operands:
        allowed = "no operands" if current.operands == 0 else f"at most {current.operands} operand(s)"
        raise Refusing(f"{args.path} takes {allowed} here", f"run {args.path} with {allowed}")
    for word in args.operands:
        if word.fixed:
            continue
        if not current.patterns:
            raise Refusing(f"`{word.text}` is a file-name pattern, which {args.path} is not given here",
                           "list the names instead of a pattern")
        if word.pattern == 0 or word.text.startswith("-"):
            raise Refusing(f"`{word.text}` is a pattern that could expand to an option",
                           "start the pattern with a directory (./*.log)")


def _read_options(words: list[Word], current: Rule, args: Args, stop_at_operand: bool) -> list[Word]:
    """Read options into ``args`` and operands into ``args.operands``; returns the words left unread.

    With ``stop_at_operand`` the first operand ends the options and every word from it on is an operand.
    """
    index = 0
    while index < len(words):
        word = words[index]
        text = word.text
        index += 1
        if text == "--" and word.fixed:
            args.operands.extend(words[index:])
            return []
        if not text.startswith("-") or text == "-":
            if stop_at_operand:
                args.operands.append(word)
                args.operands.extend(words[index:])
                return []
            args.operands.append(word)
            continue
        index = _read_long(words, index, word, current, args) if text.startswith("--") or current.whole \
            else _read_short(words, index, word, current, args)
    return []


def _unknown(option: str, args: Args) -> Refusing:
    return Refusing(f"`{option}` is not a read-only option of {args.path}", "leave the option out")


def _next_value(words: list[Word], index: int, option: str, args: Args) -> tuple[str, int]:
    if index >= len(words):
        raise Refusing(f"`{option}` of {args.path} is missing its value", "give the option its value")
    value = words[index]
    if not value.fixed:
        raise Refusing(f"the value of `{option}` is a file-name pattern", "give the value itself")
    return value.text, index + 1


def _read_long(words: list[Word], index: int, word: Word, current: Rule, args: Args) -> int:
    name, equals, value = word.text.partition("=")
    if not word.fixed and (not equals or word.pattern <= len(name)):
        raise Refusing(f"`{word.text}` is a pattern where an option is read", "spell the option out")
    if name in current.flags and not equals:
        args.options.append((name, ""))
    elif name in current.values:
        if not equals:
            value, index = _next_value(words, index, name, args)
        args.options.append((name, value))
    elif name in current.attached:
        args.options.append((name, value))
    else:
        raise _unknown(name, args)
    return index


def _read_short(words: list[Word], index: int, word: Word, current: Rule, args: Args) -> int:
    text = word.text
    if current.numbers and text[1:].isdigit() and word.fixed:
        args.options.append(("-NUM", text[1:]))
        return index
    for position in range(1, len(text)):
        if not word.fixed and word.pattern <= position:
            raise Refusing(f"`{text}` is a pattern where an option is read", "spell the option out")
        letter = "-" + text[position]
        if letter in current.flags:
            args.options.append((letter, ""))
            continue
        value = text[position + 1:]
        if letter in current.values:
            if not value:
                value, index = _next_value(words, index, letter, args)
            args.options.append((letter, value))
            return index
        if letter in current.attached:
            args.options.append((letter, value))
            return index
        raise _unknown(letter, args)
    return index
