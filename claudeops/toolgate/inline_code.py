"""Whether an awk or sed program given on the command line only reads and prints.

awk and sed are the two languages the tool gate looks into, because their ways of reaching
outside themselves are few and fixed. A sed script is read command by command, the way GNU sed
reads it, and passes only when every command is one that prints, edits the text in memory or
branches: never ``e`` (run a command), ``w``/``W`` (write a file), ``r``/``R`` (read one in),
nor the ``e`` and ``w`` flags of ``s``. An awk program is searched for the signals of running a
command or writing (``system(``, ``| getline``, ``print > "f"``, ``print | "cmd"``, gawk's ``@``
indirect calls and ``@load``/``@include``): awk is a full language, so this is the one check of
the gate that looks for what is bad rather than for what is known to be good, and it refuses
the whole program on any sign (a refused one-liner costs a rephrasing: ``grep``, ``cut``).
Interpreters of general-purpose languages (``python3 -c``, ``perl -e``) are not looked into at
all: their code can reach anything in ways no scan can list, so the gate refuses them.
"""

from __future__ import annotations

import re

_AWK_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_AWK_CALLS = re.compile(r"\bsystem\s*\(|\|&?\s*getline|@")
_AWK_PARENTHESES = re.compile(r"\([^()]*\)")
_AWK_REDIRECTED_PRINT = re.compile(r"\bprintf?\b[^;}\n]*[>|]")
"""awk: ``system(``, ``"cmd" | getline``, gawk's ``@f()`` indirect calls (``f = "system"``) and
``@load``/``@include``, and ``print``/``printf`` into a file or a command (``print > "f"``, ``>>``,
``| "cmd"``). ``>`` elsewhere is a comparison (``$3>1000``), and so is ``>`` in parentheses or in a
string (``print ($2 > 80)``, ``print $1 " -> " $2``)."""


def awk_changes(program: str) -> bool:
    """Whether an awk ``program`` runs a command or writes a file (see :data:`_AWK_REDIRECTED_PRINT`)."""
    text = _AWK_STRING.sub('""', program)
    if _AWK_CALLS.search(text):
        return True
    while "(" in text:
        stripped = _AWK_PARENTHESES.sub("", text)
        if stripped == text:
            break
        text = stripped
    return _AWK_REDIRECTED_PRINT.search(text) is not None


_SED_PLAIN = frozenset("pPdDnNgGhHxzF=")
"""sed commands without an argument that print, edit the pattern and hold spaces or go on to the next line."""
_SED_NUMBERED = frozenset("qQlL")
"""Commands with an optional number (an exit code, a line length)."""
_SED_LABELLED = frozenset(":btT")
_SED_TEXT = frozenset("aic")
"""Commands whose argument is text to print, up to the end of the line."""
_SED_S_FLAGS = frozenset("gpiImM0123456789")
"""Flags of ``s`` that change nothing outside (not ``e``, which runs the result, nor ``w FILE``)."""
_SED_ADDRESS = re.compile(r"[0-9]+(?:~[0-9]+)?|\$")


class _Script:
    """A cursor over a sed script."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.index = 0

    def peek(self) -> str:
        return self.text[self.index] if self.index < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        self.index += 1
        return char

    def skip_blanks(self) -> None:
        while self.peek() in (" ", "\t"):
            self.index += 1

    def delimited(self, delimiter: str) -> bool:
        """Move past text up to an unescaped ``delimiter`` (GNU sed's match_slash); False if there is none."""
        while self.index < len(self.text):
            char = self.take()
            if char == "\\":
                self.index += 1
            elif char == delimiter:
                return True
            elif char == "\n" and delimiter != "\n":
                return False
        return False

    def rest_of_line(self) -> None:
        while self.peek() not in ("", "\n"):
            if self.take() == "\\":
                self.index += 1


def sed_reads(script: str) -> bool:
    """Whether every command of a sed ``script`` only prints or edits text in memory (module docstring)."""
    cursor = _Script(script)
    while True:
        while cursor.peek() in (" ", "\t", "\n", ";"):
            cursor.index += 1
        if not cursor.peek():
            return True
        if not (_address(cursor) and _command(cursor)):
            return False


def _address(cursor: _Script) -> bool:
    """An optional address or range (``3``, ``$``, ``/re/I``, ``\\%re%``, ``1,+2``, ``0~4``) and ``!``."""
    for position in range(2):
        if position == 1:
            if cursor.peek() != ",":
                break
            cursor.index += 1
            if cursor.peek() in ("+", "~"):
                cursor.index += 1
        match = _SED_ADDRESS.match(cursor.text, cursor.index)
        if match is not None:
            cursor.index = match.end()
        elif cursor.peek() in ("/", "\\"):
            delimiter = "/" if cursor.take() == "/" else cursor.take()
            if not delimiter or delimiter == "\n" or not cursor.delimited(delimiter):
                return False
            while cursor.peek() in ("I", "M"):
                cursor.index += 1
        elif position == 1:
            return False
    cursor.skip_blanks()
    if cursor.peek() == "!":
        cursor.index += 1
        cursor.skip_blanks()
    return True


def _command(cursor: _Script) -> bool:
    command = cursor.take()
    if command == "{":
        return True
    if command in _SED_PLAIN or command == "}":
        pass
    elif command in _SED_NUMBERED:
        cursor.skip_blanks()
        while cursor.peek().isdigit():
            cursor.index += 1
    elif command in _SED_LABELLED:  # a label: a run without blanks, ``;`` (or ``}`` after a branch)
        cursor.skip_blanks()
        ends = ("", " ", "\t", "\n", ";") if command == ":" else ("", " ", "\t", "\n", ";", "}")
        while cursor.peek() not in ends:
            cursor.index += 1
    elif command in _SED_TEXT or command == "#":
        cursor.rest_of_line()
        return True
    elif command in ("s", "y"):
        delimiter = cursor.take()
        if delimiter in ("", "\n", "\\") or not (cursor.delimited(delimiter) and cursor.delimited(delimiter)):
            return False
        while command == "s" and cursor.peek() in _SED_S_FLAGS:
            cursor.index += 1
    else:
        return False  # e, w, W, r, R, v and anything unknown
    cursor.skip_blanks()
    return cursor.peek() in ("", "\n", ";", "}", "#")
