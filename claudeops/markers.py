"""Marker registry: plugins register marker types, the core parses assistant text once.

A marker is a bracketed tag the model writes in its prose, e.g. ``[MEMORY:timing:jellyfin] …``
or ``[EVENT:warning] …``. Parsing is line-based: a marker and its text end at the end of the
line, or where the next marker on the same line begins, so one bad marker never swallows the
rest of a message. Parsing never raises: odd input yields no markers.

Markdown code is quotation, not a statement: a marker that opens inside an inline code span
(```[ESCALATE]` from the health page``) or a fenced code block is not a marker. A model that
quotes marker-like text a tool printed, or shows a marker's format, records nothing; code
*inside* a marker's own text (``[MEMORY:…] restart with `docker restart x` …``) is kept.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from claudeops.session import Session

log = logging.getLogger(__name__)

MAX_LINE_CHARS = 20_000
"""Longer lines are cut before matching (with a warning if a marker starts past the cut): a marker
is short, a runaway line is not prose."""

_LINE_BREAK = re.compile(r"\r?\n|\r")
"""Lines end at a newline only: U+2028 and other separators ``str.splitlines`` knows are text, as
the replay and the transcript treat them."""
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_BACKTICKS = re.compile(r"`+")

MarkerHandler = Callable[["Session", "Marker"], Any]
MalformedHandler = Callable[["Session", str], Any]


@dataclass(frozen=True)
class MarkerType:
    """A kind of marker a plugin teaches the model and handles.

    ``pattern`` is matched at the start of each candidate (text that begins with ``[NAME``);
    ``prompt_section`` is Markdown appended to every tier prompt; ``handler`` stores the marker
    and should commit its own transaction, or returns ``False`` when it decided not to store it
    (after logging why), so the marker is not counted as recorded. ``on_malformed`` (optional) is
    told about candidates that begin like this marker but do not match, so the plugin can warn
    about them.
    """

    name: str
    pattern: re.Pattern[str]
    prompt_section: str
    handler: MarkerHandler
    on_malformed: MalformedHandler | None = None

    @property
    def opening(self) -> str:
        return f"[{self.name}"


@dataclass(frozen=True)
class Marker:
    """One parsed marker: its type, the regex groups and the exact text it came from.

    ``cut_chars`` counts the characters of its line cut off at :data:`MAX_LINE_CHARS` after it
    (0 for every marker of a line that was not cut), so a handler that shortens the text can
    report its true length.
    """

    type: str
    groups: tuple[str | None, ...]
    text: str
    cut_chars: int = 0


class MarkerConflict(Exception):
    """Two plugins registered the same marker name."""


@dataclass(frozen=True)
class Candidate:
    """A piece of a line that starts like a marker of ``marker_type``."""

    marker_type: MarkerType
    text: str
    cut_chars: int = 0

    def parse(self) -> Marker | None:
        match = self.marker_type.pattern.match(self.text)
        if match is None:
            return None
        return Marker(self.marker_type.name, tuple(part.strip() if part else part for part in match.groups()),
                      self.text.strip(), self.cut_chars)


class MarkerRegistry:
    """The marker types of all loaded plugins."""

    def __init__(self) -> None:
        self._types: dict[str, MarkerType] = {}
        self._opening: re.Pattern[str] | None = None

    def register(self, marker_type: MarkerType) -> None:
        if marker_type.name in self._types:
            raise MarkerConflict(f"marker type {marker_type.name!r} is registered twice")
        self._types[marker_type.name] = marker_type
        names = sorted(self._types, key=len, reverse=True)
        self._opening = re.compile(r"\[(?:" + "|".join(re.escape(name) for name in names) + r")(?=[:\]])")

    @property
    def types(self) -> list[MarkerType]:
        return list(self._types.values())

    def prompt_sections(self) -> list[str]:
        """Every registered type's prompt section, in registration order."""
        return [marker_type.prompt_section for marker_type in self._types.values()]

    def candidates(self, text: str) -> Iterator[Candidate]:
        """Split assistant text into marker candidates, line by line, outside Markdown code."""
        if self._opening is None or not text or self._opening.search(text) is None:
            return  # one scan settles most texts: an opening never spans lines, so none here means none anywhere
        whole = _LINE_BREAK.split(text)
        cut = {index: len(line) - MAX_LINE_CHARS for index, line in enumerate(whole) if len(line) > MAX_LINE_CHARS}
        lines = (self._cut(line) for line in whole)
        outside = _outside_code(lines) if "`" in text or "~~~" in text else (
            (number, line, line) for number, line in enumerate(lines))
        for number, line, prose in outside:
            starts = [(found.start(), found.group(0)[1:]) for found in self._opening.finditer(prose)]
            for index, (start, name) in enumerate(starts):
                last = index + 1 == len(starts)
                end = len(line) if last else starts[index + 1][0]
                yield Candidate(self._types[name], line[start:end], cut.get(number, 0) if last else 0)

    def _cut(self, line: str) -> str:
        if len(line) <= MAX_LINE_CHARS:
            return line
        if self._opening is not None and self._opening.search(line, MAX_LINE_CHARS):
            log.warning("ignored markers past the first %d characters of a %d-character line", MAX_LINE_CHARS,
                        len(line))
        return line[:MAX_LINE_CHARS]

    def parse(self, text: str) -> list[Marker]:
        """All well-formed markers in ``text`` (malformed ones are skipped silently here)."""
        return [marker for candidate in self.candidates(text) if (marker := candidate.parse())]


def _outside_code(lines: Iterator[str]) -> Iterator[tuple[int, str, str]]:
    """Each line outside fenced code blocks (with its number), and a copy whose inline code spans
    are blanked.

    The copy keeps every position, so openings are looked for in the copy and candidates are
    cut from the line itself. A fence closes at a fence of the same character at least as
    long (CommonMark); an unclosed fence runs to the end of the text.
    """
    fence = ""
    for number, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence) \
                    and not line[opened.end():].strip():
                fence = ""
            continue
        if opened and not (opened.group(1)[0] == "`" and "`" in line[opened.end():]):
            fence = opened.group(1)
            continue
        yield number, line, blank_code_spans(line) if "`" in line else line


def blank_code_spans(line: str) -> str:
    """``line`` with each inline code span replaced by as many blanks, in one pass.

    A span opens at a run of backticks and closes at the next run of the same length; a run
    with no such partner is plain text (CommonMark). Pairing the runs through a table of each
    run's next equal-length run keeps a line full of stray backticks linear, where a regex with
    a back-reference would try every opening against the rest of the line.
    """
    runs = [(found.start(), found.end()) for found in _BACKTICKS.finditer(line)]
    partner: list[int | None] = [None] * len(runs)
    following: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        length = runs[index][1] - runs[index][0]
        partner[index] = following.get(length)
        following[length] = index
    pieces, kept, index = [], 0, 0
    while index < len(runs):
        closing = partner[index]
        if closing is None:
            index += 1
            continue
        start, end = runs[index][0], runs[closing][1]
        pieces += [line[kept:start], " " * (end - start)]
        kept, index = end, closing + 1
    return "".join([*pieces, line[kept:]])
