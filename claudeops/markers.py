"""Marker registry: plugins register marker types, the core parses assistant text once.

A marker is a bracketed tag the model writes in its prose, e.g. ``[MEMORY:timing:jellyfin] …``
or ``[EVENT:warning] …``. Parsing is line-based: a marker and its text end at the end of the
line, or where the next marker on the same line begins, so one bad marker never swallows the
rest of a message. Parsing never raises: odd input yields no markers.
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
"""Longer lines are cut before matching: a marker is short, a runaway line is not prose."""

MarkerHandler = Callable[["Session", "Marker"], Any]
MalformedHandler = Callable[["Session", str], Any]


@dataclass(frozen=True)
class MarkerType:
    """A kind of marker a plugin teaches the model and handles.

    ``pattern`` is matched at the start of each candidate (text that begins with ``[NAME``);
    ``prompt_section`` is Markdown appended to every tier prompt; ``handler`` stores the marker
    and should commit its own transaction. ``on_malformed`` (optional) is told about candidates
    that begin like this marker but do not match, so the plugin can warn about them.
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
    """One parsed marker: its type, the regex groups and the exact text it came from."""

    type: str
    groups: tuple[str | None, ...]
    text: str


class MarkerConflict(Exception):
    """Two plugins registered the same marker name."""


@dataclass(frozen=True)
class Candidate:
    """A piece of a line that starts like a marker of ``marker_type``."""

    marker_type: MarkerType
    text: str

    def parse(self) -> Marker | None:
        match = self.marker_type.pattern.match(self.text)
        if match is None:
            return None
        return Marker(self.marker_type.name, tuple(part.strip() if part else part for part in match.groups()),
                      self.text.strip())


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
        """Split assistant text into marker candidates, line by line."""
        if self._opening is None or not text or self._opening.search(text) is None:
            return  # one scan settles most texts: an opening never spans lines, so none here means none anywhere
        for line in text.splitlines():
            line = line[:MAX_LINE_CHARS]
            starts = [(found.start(), found.group(0)[1:]) for found in self._opening.finditer(line)]
            for index, (start, name) in enumerate(starts):
                end = starts[index + 1][0] if index + 1 < len(starts) else len(line)
                yield Candidate(self._types[name], line[start:end])

    def parse(self, text: str) -> list[Marker]:
        """All well-formed markers in ``text`` (malformed ones are skipped silently here)."""
        return [marker for candidate in self.candidates(text) if (marker := candidate.parse())]
