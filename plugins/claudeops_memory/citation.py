"""The agent's citation of a memory it was shown: ``(confirms #12)`` or ``(replaces #12)``.

The injected block shows each memory's id (``… (confidence: 0.9) #12``), and the Memory
Recording section teaches one way to cite it, at the end of the observation::

    [MEMORY:timing:jellyfin] Takes about a minute to start after a restart (confirms #12)
    [MEMORY:timing:jellyfin] Takes 3 minutes to start since the 10.9 upgrade (replaces #12)

The agent has just read the memory and knows what it meant, so its citation outranks any judge
(DESIGN.md § Memory decisions). The citation is read off the observation here and never
stored: the memory keeps only the fact. Whether a citation *counts* (the memory was injected
into this very session, still exists and is about the marker's service) is decided by the
marker handler, which can see the session.

SPEC-0015's marker regex is unchanged: a citation is part of its observation group.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claudeops import is_row_id

CITATION = re.compile(r"\(\s*(confirms|replaces)\s+#(\d{1,20})\s*\)", re.IGNORECASE)
"""One citation; written at the end of the observation, but removed wherever it stands."""

RELATIONS = {"confirms": "reinforce", "replaces": "contradict"}
"""What each citation means for the cited memory, in the judge's words."""


@dataclass(frozen=True)
class Citation:
    """``confirms`` or ``replaces`` memory ``memory_id``."""

    verb: str
    memory_id: int

    @property
    def text(self) -> str:
        return f"({self.verb} #{self.memory_id})"


@dataclass(frozen=True)
class CitedObservation:
    """An observation with its citation removed; ``problem`` says why a citation found was not usable."""

    text: str
    citation: Citation | None
    problem: str | None = None


def read_citation(observation: str) -> CitedObservation:
    """Split ``observation`` into the fact and the memory it cites.

    Every citation is removed from the text, so none is ever stored. Exactly one, naming an id
    a row can have, is the citation; two or more cite nothing (the agent must say which one it
    means), and the marker is then judged like an uncited one.
    """
    found = list(CITATION.finditer(observation))
    if not found:
        return CitedObservation(observation, None)
    text = " ".join(CITATION.sub(" ", observation).split())
    if len(found) > 1:
        cited = ", ".join(match.group(0) for match in found)
        return CitedObservation(text, None, f"it cites {len(found)} memories ({cited}); cite one")
    verb, number = found[0].group(1).lower(), int(found[0].group(2))
    if not is_row_id(number):
        return CitedObservation(text, None, f"#{number} cannot be a memory id")
    return CitedObservation(text, Citation(verb, number))
