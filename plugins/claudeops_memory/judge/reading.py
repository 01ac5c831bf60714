"""One text as the group judgement reads it: the facts that settle a far-apart pair, computed once.

``group`` compares a new text with every memory of a group, and ``term_index`` files each memory
under its terms; both need the same per-text facts, so they are computed here once per text and
service and kept (a process that records many markers reads each memory once).  A reading holds
only what its text and the service's terms determine, so nothing can make it stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from . import prefilter
from .analyse import Features, features
from .concepts import EVENT_CONCEPTS, total_weight
from .conflicts import prefix_negations
from .decide import service_terms, without_terms
from .tokens import normalise

__all__ = ["READINGS", "Reading", "reading", "service_terms"]

READINGS = 8192
"""Texts whose reading is kept: a group of a thousand candidates, many times over."""


@dataclass(frozen=True, slots=True)
class Reading:
    """What settling a pair needs from one text, the service's own name left out (as ``judge_pair``
    leaves it out): its words, topic terms and their total weight, its prefix negations, whether it
    names an event or an amount, and its term sequence's facts."""

    words: tuple[str, ...]
    topic: frozenset[str]
    weight: float
    negations: tuple[tuple[str, str], ...]
    bases: frozenset[str]
    events: frozenset[str]
    """The event words it asserts (start, backup ...): all ``concepts.opposite_events`` reads."""
    amounts: bool
    sequence: prefilter.Sequence
    indexed: bool
    features: Features
    """Its features without the service's terms, for the polarity and fuzzy overlap of a closer pair."""


@lru_cache(maxsize=READINGS)
def reading(text: str, ignored: frozenset[str]) -> Reading:
    """One text's :class:`Reading`, with the terms in ``ignored`` (the service's) left out."""
    found = without_terms(features(text), ignored)
    topic = frozenset(found.asserted | found.negated)
    negations = prefix_negations(frozenset(found.asserted))
    return Reading(tuple(normalise(text).split()), topic, total_weight(topic), negations,
                   frozenset(base for _, base in negations), found.asserted & EVENT_CONCEPTS,
                   bool(found.quantities), prefilter.sequence_facts(found.sequence), prefilter.indexed(topic), found)
