"""A Bash command line as the tool gate sees it: tree-sitter-bash's syntax tree, read into simple commands.

Why a real parser: the block-list this replaced read shell text with a tokenizer and missed
whatever came after a reserved word, inside a group or a function, or behind a variable
(issue 12). tree-sitter-bash is the Bash grammar of the tree-sitter project (MIT, maintained,
abi3 wheels on PyPI, a few microseconds a parse); bashlex has had no release since 2023 and
growing the old tokenizer into a parser would mean writing and keeping a grammar ourselves.

A grammar is not Bash, so this module reads the tree strictly (:func:`read_command_line`): it
accepts only the node types it knows mean the same thing to Bash (plain commands, pipelines,
``;``/``&&``/``||`` lists, quoting, redirections, literal here-documents) and reports anything
else as :class:`Unseen`, as it does text where the two are known to differ (a backslash-newline,
which Bash removes before it splits words and the grammar does not; a control character;
anything the grammar flags as an error). The tool gate refuses what is unseen. For the cooldowns
plugin :func:`every_command` reads the same tree generously instead: every command anywhere,
loops, functions and substitutions included.
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from dataclasses import dataclass

import tree_sitter_bash
from tree_sitter import Language, Node, Parser

_PARSER = Parser(Language(tree_sitter_bash.language()))

_PATTERN_CHARS = frozenset("*?[]{}")
"""Unquoted, these make a word a file-name pattern or a brace expansion: Bash may turn it into other words.
(``{}`` alone, find's placeholder, is neither, and stays a fixed word.)"""
_DIFFERS_FROM_BASH = re.compile(r"\\\r?\n|[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")
"""Text the grammar reads differently from Bash: a line continuation (Bash joins the words around it,
the grammar splits them), control characters (a carriage return is part of a word to Bash) and
lone surrogates (not text at all: JSON can carry them, UTF-8 cannot)."""

CONSTRUCTS: dict[str, str] = {
    "for_statement": "a for loop", "c_style_for_statement": "a for loop", "while_statement": "a while or until loop",
    "if_statement": "an if statement", "case_statement": "a case statement", "function_definition": "a function",
    "compound_statement": "a { …; } group", "subshell": "a ( … ) subshell", "negated_command": "a negated command (!)",
    "test_command": "a [ … ], [[ … ]] or (( … )) test",
    "declaration_command": "a declaration (declare, export, local…)",
    "unset_command": "unset", "variable_assignment": "a variable assignment",
    "variable_assignments": "a variable assignment", "command_substitution": "a command substitution",
    "process_substitution": "a process substitution", "simple_expansion": "a variable", "expansion": "a variable",
    "arithmetic_expansion": "an arithmetic expansion", "ansi_c_string": "a $'…' string",
    "translated_string": "a $\"…\" string", "$": "a $\"…\" string", "brace_expression": "a brace expansion",
    "extglob_pattern": "an extended glob", "array": "an array", "ERROR": "text the shell parser cannot read",
    "heredoc_redirect": "a here-document followed by more on its line",
}
"""What the strict reading refuses, by node type, in the words of a refusal."""
EXPANSIONS = frozenset({"command_substitution", "process_substitution", "simple_expansion", "expansion",
                        "arithmetic_expansion", "ansi_c_string", "translated_string", "$", "brace_expression",
                        "extglob_pattern"})
"""Node types whose value the shell computes when it runs the line: what the gate cannot know in advance."""


@dataclass(frozen=True)
class Word:
    """One word of a simple command, as Bash hands it to the program."""

    text: str
    """Its value with quoting removed (``'a b'`` is ``a b``); a file-name pattern keeps its ``*``."""
    pattern: int = -1
    """Where its first unquoted pattern character is (``*``, ``?``, ``[``, ``{``), or -1 for a fixed word:
    Bash replaces a pattern with the names it matches, so its value is only known up to there."""

    @property
    def fixed(self) -> bool:
        return self.pattern < 0


@dataclass(frozen=True)
class Redirection:
    """``2>/dev/null``, ``< file``, ``<<< text``, a here-document: where a command's input or output goes."""

    operator: str
    """``>``, ``>>``, ``>|``, ``&>``, ``&>>``, ``>&``, ``<``, ``<&``, ``>&-``, ``<&-``, ``<<<``, ``<<``, ``<<-``."""
    target: Word | None
    """The file, descriptor or text; ``None`` for a here-document or a closed descriptor."""
    source: str


@dataclass(frozen=True)
class SimpleCommand:
    """One command Bash would run, with what the line gives it: words, prefixed assignments, redirections."""

    words: tuple[Word, ...]
    assignments: tuple[tuple[str, Word], ...]
    redirections: tuple[Redirection, ...]
    piped_from: SimpleCommand | None
    """The command before it in a pipeline (``a | b``: ``b`` reads what ``a`` prints), or ``None``."""
    source: str


@dataclass(frozen=True)
class Unseen:
    """A part of the line the strict reading does not look into, and what kind of thing it is."""

    what: str
    source: str


class _Unseen(Exception):
    def __init__(self, what: str, node: Node | None = None, source: str = "") -> None:
        super().__init__(what)
        self.unseen = Unseen(what, source or (_text(node) if node is not None else ""))


_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
_SOURCE: ContextVar[str] = ContextVar("source", default="")
"""The command line the last :func:`parse` read, which node texts are taken from."""


def parse(command: str) -> Node:
    """The syntax tree of ``command`` (tree-sitter never fails: errors become ``ERROR`` nodes).

    The grammar is given the line with every character beyond ASCII replaced by ``x``: its lexer
    reads memory it should not after a ``{`` followed by a character far beyond the Basic
    Multilingual Plane (tree-sitter-bash 0.25.1: a crash, found by the property tests), and Bash
    gives no character beyond ASCII a meaning of its own, so the stand-in changes no structure
    (``x`` is in no reserved word). One character for one byte keeps the tree's byte offsets the
    offsets of the characters of ``command``, which node texts are then read from.
    """
    _SOURCE.set(command)
    safe = command if command.isascii() else _NOT_ASCII.sub("x", command)
    return _PARSER.parse(safe.encode()).root_node


def read_command_line(command: str) -> tuple[list[SimpleCommand], Unseen | None]:
    """Every simple command of ``command`` in order, or the first part the strict reading refuses.

    See the module docstring for what is accepted. The commands found before an unseen part are
    returned with it, but the gate refuses the whole line.
    """
    odd = _DIFFERS_FROM_BASH.search(command)
    if odd is not None:
        what = "a line continuation (a backslash at the end of a line)" if odd.group().startswith("\\") \
            else "a control character or a lone surrogate"
        return [], Unseen(what, repr(odd.group())[1:-1])
    root = parse(command)
    commands: list[SimpleCommand] = []
    try:
        if root.has_error:
            raise _Unseen("text the shell parser cannot read", _first_error(root) or root)
        _check_nothing_skipped(root, command)
        _statements(root, commands)
    except _Unseen as unseen:
        return commands, unseen.unseen
    return commands, None


def _check_nothing_skipped(root: Node, command: str) -> None:
    """Every character between the tree's tokens must be a blank: the grammar skips a word-initial ``\\ ``
    (Bash's escaped space) as if it were one, so ``grep -e \\ x`` would read as ``grep -e x``."""
    end = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count:
            stack.extend(reversed(node.children))
            continue
        gap = command[end:node.start_byte]
        if gap and not gap.isspace():
            raise _Unseen("text the shell parser skips", source=gap.strip() or gap)
        end = max(end, node.end_byte)
    if command[end:] and not command[end:].isspace():
        raise _Unseen("text the shell parser skips", source=command[end:].strip())


def _first_error(node: Node) -> Node | None:
    if node.type == "ERROR" or node.is_missing:
        return node
    for child in node.children:
        if child.has_error:
            return _first_error(child)
    return None


_SEPARATORS = frozenset({";", "&", "&&", "||", "\n"})


def _statements(node: Node, out: list[SimpleCommand]) -> None:
    """The statements of the whole line or of a ``&&``/``||`` list."""
    for child in node.children:
        if child.type in _SEPARATORS or child.type == "comment":
            continue
        _statement(child, out, (), None)


def _statement(node: Node, out: list[SimpleCommand], redirections: tuple[Redirection, ...],
               piped_from: SimpleCommand | None) -> SimpleCommand | None:
    """Read one statement into ``out``; returns its last simple command (what a pipe reads from)."""
    kind = node.type
    if kind == "command":
        command = _simple_command(node, redirections, piped_from)
        out.append(command)
        return command
    if kind == "list":
        if redirections or piped_from is not None:
            raise _Unseen("a list inside a pipeline or redirection", node)
        _statements(node, out)
        return None
    if kind == "pipeline":
        previous = piped_from
        for child in node.children:
            if child.type in ("|", "|&"):
                continue
            previous = _statement(child, out, redirections, previous)
        return previous
    if kind == "redirected_statement":
        body, own = None, list(redirections)
        for child in node.children:
            if child.type in _REDIRECTIONS:
                own.append(_redirection(child))
            elif body is None:
                body = child
            else:
                raise _Unseen(CONSTRUCTS.get(child.type, child.type), child)
        if body is None:
            raise _Unseen("a redirection without a command", node)
        # A redirection after a pipeline belongs to its last command in Bash; the grammar sometimes hangs
        # it on the whole pipeline. Giving it to every command of the body judges no write as a read.
        return _statement(body, out, tuple(own), piped_from)
    raise _Unseen(CONSTRUCTS.get(kind, f"a {kind.replace('_', ' ')}"), node)


def _simple_command(node: Node, redirections: tuple[Redirection, ...],
                    piped_from: SimpleCommand | None) -> SimpleCommand:
    words: list[Word] = []
    assignments: list[tuple[str, Word]] = []
    own = list(redirections)
    previous_type, previous_end = "", -1
    for child in node.children:
        kind = child.type
        touching = previous_end == child.start_byte
        if touching and "variable_assignment" in (kind, previous_type):
            raise _Unseen("words the shell parser splits differently from Bash", node)
        if kind == "command_name":
            words.append(_word(child.children[0]))
        elif kind == "variable_assignment":
            assignments.append(_assignment(child))
        elif kind in _REDIRECTIONS:
            own.append(_redirection(child))
        elif touching and previous_type not in _REDIRECTIONS:
            # The grammar sometimes splits one word in two (``':'\;``, ``'-r'\o``): Bash reads text with no
            # blank between as one word, so the pieces are joined again.
            words[-1] = _joined(words[-1], _word(child))
        else:
            words.append(_word(child))
        previous_type, previous_end = kind, child.end_byte
    if not words:
        raise _Unseen("a variable assignment", node)
    return SimpleCommand(tuple(words), tuple(assignments), tuple(own), piped_from, _text(node))


def _joined(first: Word, second: Word) -> Word:
    pattern = first.pattern if not first.fixed else (len(first.text) + second.pattern if not second.fixed else -1)
    return Word(first.text + second.text, pattern)


def _assignment(node: Node) -> tuple[str, Word]:
    """``NAME=value`` before a command: its name and value (``NAME+=value`` and arrays are not read)."""
    children = node.children
    if len(children) == 2 and children[0].type == "variable_name" and children[1].type == "=":
        return _text(children[0]), Word("")
    if len(children) != 3 or children[0].type != "variable_name" or children[1].type != "=":
        raise _Unseen("a variable assignment", node)
    return _text(children[0]), _word(children[2])


_REDIRECTIONS = frozenset({"file_redirect", "herestring_redirect", "heredoc_redirect"})


def _redirection(node: Node) -> Redirection:
    if node.type == "heredoc_redirect":
        return _heredoc(node)
    operator, target = "", None
    for child in node.children:
        kind = child.type
        if kind == "file_descriptor":
            continue
        if not child.is_named:
            operator = kind
        elif target is None:
            target = _word(child)
        else:  # ``cmd > a b``: the grammar hangs a following word on the redirection
            raise _Unseen("a redirection the shell parser reads oddly", node)
    return Redirection(operator, target, _text(node))


def _heredoc(node: Node) -> Redirection:
    """A here-document: its text is data, unless its delimiter is unquoted and the text expands something."""
    operator, start, body = "<<", "", ""
    for child in node.children:
        kind = child.type
        if kind in ("<<", "<<-"):
            operator = kind
        elif kind == "heredoc_start":
            start = _text(child)
        elif kind == "heredoc_body":
            body = _text(child)
        elif kind != "heredoc_end":
            raise _Unseen(CONSTRUCTS["heredoc_redirect"], node)
    quoted = any(quote in start for quote in "'\"\\")
    if not quoted and ("$" in body or "`" in body):
        # Bash expands $… and `…` in the text of an unquoted here-document (the grammar misses backticks).
        raise _Unseen("an expansion in a here-document (quote its delimiter: <<'EOF')", node)
    return Redirection(operator, None, _text(node).split("\n", 1)[0])


def _word(node: Node) -> Word:
    """The value Bash gives a word node, or :class:`_Unseen` when it expands something."""
    kind = node.type
    if kind in ("word", "number"):
        return _unquoted(_text(node))
    if kind == "raw_string":
        return Word(_text(node)[1:-1])
    if kind == "string":
        for child in node.children:
            if child.type not in ('"', "string_content"):
                raise _Unseen(CONSTRUCTS.get(child.type, "an expansion"), child)
        return Word(_double_quoted(_text(node)[1:-1]))
    if kind == "concatenation":
        text, pattern = "", -1
        for child in node.children:
            part = _word(child)
            if pattern < 0 and not part.fixed:
                pattern = len(text) + part.pattern
            text += part.text
        return Word(text, -1 if text == "{}" else pattern)
    if kind == "$" and _text(node).startswith("\\"):  # an escaped dollar after a quoted piece ('a'\$): the
        raise _Unseen("words the shell parser splits differently from Bash", node)  # grammar reads it as $"…"
    raise _Unseen(CONSTRUCTS.get(kind, f"a {kind.replace('_', ' ')}"), node)


def _unquoted(raw: str) -> Word:
    """An unquoted word: backslashes escape the next character; ``*``, ``?``, ``[``, ``{`` make a pattern,
    an unescaped ``$`` or backquote an expansion."""
    if "\\" not in raw:
        if "$" in raw or "`" in raw:
            raise _Unseen("an expansion", source=raw)
        pattern = -1 if raw == "{}" else next((index for index, char in enumerate(raw) if char in _PATTERN_CHARS), -1)
        return Word(raw, pattern)
    text: list[str] = []
    pattern = -1
    escaped = False
    for char in raw:
        if escaped:
            text.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        else:
            if char in "$`":
                raise _Unseen("an expansion", source=raw)
            if pattern < 0 and char in _PATTERN_CHARS:
                pattern = len(text)
            text.append(char)
    return Word("".join(text), pattern)


_DOUBLE_QUOTE_ESCAPES = re.compile(r"\\([$`\"\\\n])")


def _double_quoted(raw: str) -> str:
    """Inside double quotes a backslash escapes only ``$``, backquote, ``"``, a backslash and a newline."""
    return _DOUBLE_QUOTE_ESCAPES.sub(lambda match: "" if match.group(1) == "\n" else match.group(1), raw) \
        if "\\" in raw else raw


def _text(node: Node) -> str:
    return _SOURCE.get()[node.start_byte:node.end_byte]


class ComputedWord(str):
    """A word whose value Bash computes when it runs the line (a variable, a substitution, a file-name
    pattern, a ``$'…'`` string), given as written (``$(docker ps -q)``, ``jelly*``).

    A ``str``, so the cooldown patterns read it as before and it rides through every unwrapping step
    of :mod:`claudeops.toolgate.shell` unchanged; a check that must know what a command acts on
    (maintenance) asks ``isinstance(word, ComputedWord)`` and refuses what it cannot see.
    """

    __slots__ = ()


@dataclass(frozen=True)
class LooseCommand:
    """One command of the generous reading: its words, and the files its redirections name."""

    words: list[str]
    redirects: tuple[tuple[str, str], ...] = ()
    """``(operator, target)`` of each redirection with a target (``> /etc/x``, ``2>/dev/null``, ``< in``)."""


def every_command(command: str) -> list[LooseCommand]:
    """Every simple command anywhere in ``command``, read generously (for the cooldowns and maintenance).

    Commands inside loops, functions, groups, substitutions and here-documents count too; a word
    that expands something is given as written (``$s``) as a :class:`ComputedWord`, quoting is
    removed from the rest. Text the parser cannot read is also split at blanks and separators, so
    a syntax error hides no restart. When the line holds text the grammar reads differently from
    Bash (an error, a line continuation, a control character, skipped text), every word is a
    :class:`ComputedWord`: nothing about them is known for sure.
    """
    root = parse(command)
    found: list[LooseCommand] = []
    _collect(root, found, ())
    if root.has_error or _DIFFERS_FROM_BASH.search(command) or _skips_text(root, command):
        # Bash may read these words otherwise (``jelly\<newline>fin`` is one word to it, two here)
        found = [LooseCommand([ComputedWord(word) for word in loose.words], loose.redirects) for loose in found]
        unquoted = command.replace('"', " ").replace("'", " ")
        found.extend(LooseCommand([ComputedWord(word) for word in words])
                     for words in (part.split() for part in _FALLBACK_SPLIT.split(unquoted)) if words)
    return found


def _skips_text(root: Node, command: str) -> bool:
    try:
        _check_nothing_skipped(root, command)
    except _Unseen:
        return True
    return False


_FALLBACK_SPLIT = re.compile(r"\|\||&&|[;&|()`\n<>]|\$\(")


def _collect(node: Node, found: list[LooseCommand], redirects: tuple[tuple[str, str], ...]) -> None:
    if node.type == "redirected_statement":  # its redirections belong to the commands of its body
        redirects += tuple(_loose_redirect(child) for child in node.children if child.type == "file_redirect")
    if node.type == "command":
        own = tuple(_loose_redirect(child) for child in node.children if child.type == "file_redirect")
        words = [_loose_word(child.children[0] if child.type == "command_name" else child)
                 for child in node.children
                 if child.type not in ("variable_assignment", "file_redirect", "herestring_redirect")]
        if words:
            found.append(LooseCommand(words, redirects + own))
    for child in node.children:
        _collect(child, found, redirects)


def _loose_redirect(node: Node) -> tuple[str, str]:
    operator, target = "", ""
    for child in node.children:
        if child.type == "file_descriptor":
            continue
        if not child.is_named:
            operator = child.type
        elif not target:
            target = _loose_word(child)
    return operator, target


def _loose_word(node: Node) -> str:
    try:
        word = _word(node)
    except _Unseen:
        return ComputedWord(_text(node))
    return word.text if word.fixed else ComputedWord(word.text)
