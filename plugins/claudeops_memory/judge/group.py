"""One new text against a whole group of memories: far-apart pairs settled in a few set operations.

The store asks about a new memory and every active memory of its service and category, so the
same new text meets hundreds of candidates, nearly all about something else.  :func:`judge_group`
reads the new text once, files each candidate in the ``term_index`` (its :class:`~.reading.Reading`,
kept per text and service: a process that records many markers reads each memory once), answers
the candidates the new text does not touch at once, and settles a touched pair itself only when it
can *prove* what :func:`~.decide.judge_pair` would answer.  That is the last rule of
``judge_pair``, "different facts", and it is proved when:

* the texts are not the same words, and no prefix negation of one meets the other's base word
  (then ``resolve_prefix_negations`` leaves both readings as they are);
* their topical overlap — exact without a fuzzy pass when no term one text has alone may be a
  spelling of a term of the other (``prefilter``), else ``judge_pair``'s own ``overlap.similarity``
  of the same readings — is below :data:`SETTLED_BELOW`, the lowest overlap at
  which any rule of ``judge_pair`` other than the last can fire (a polarity conflict, a value
  conflict, any reinforcement) — or, when one text has no amount (no value conflict, no anchored
  match), below the lowest reinforcement threshold left and without a polarity conflict;
* they do not name opposite events (``concepts.opposite_events`` on their event words), and
* ``prefilter.cannot_swap`` proves there is no substitution to find.

Every other pair goes to ``judge_pair`` itself, so the answer — relation, certainty and reason —
is the same either way; ``tests/memory/test_memory_judge_prefilter.py`` checks it on every
labelled pair and on generated ones, with :data:`prefilter.ENABLED` off as the reference.

The readings are keyed by the text and the service's terms and hold only what those determine,
so nothing can make them stale; the one thing that changes with time, which terms may be
spellings of which, is read live from ``spellings`` at every pair.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import compress

from . import prefilter, spellings, term_index
from .concepts import opposite_events, total_weight
from .conflicts import polarity_conflict
from .decide import (
    POLARITY_CONFLICT_FROM,
    REINFORCE_FROM,
    REINFORCE_WITH_ANCHORED_QUANTITY_FROM,
    REINFORCE_WITH_UNMATCHED_AMOUNTS_FROM,
    VALUE_CONFLICT_FROM,
    Judgement,
    different_facts,
    judge_pair,
)
from .frames import MAX_SPAN, MIN_FRAME_WEIGHT
from .overlap import similarity
from .reading import Reading, reading, service_terms

SETTLED_BELOW = min(POLARITY_CONFLICT_FROM, VALUE_CONFLICT_FROM, REINFORCE_FROM,
                    REINFORCE_WITH_ANCHORED_QUANTITY_FROM, REINFORCE_WITH_UNMATCHED_AMOUNTS_FROM)
"""Below this overlap only ``judge_pair``'s opposite-event and substitution rules can fire before its
last one, and both are checked here."""
SETTLED_BELOW_WITHOUT_AMOUNTS = min(REINFORCE_FROM, REINFORCE_WITH_UNMATCHED_AMOUNTS_FROM)
"""The same when one text has no amount at all (then no value can conflict or anchor a match) and
their polarity does not conflict (``conflicts.polarity_conflict``, read from
:data:`~.decide.POLARITY_CONFLICT_FROM` up, as ``judge_pair`` reads it)."""

_different_facts = lru_cache(maxsize=1024)(different_facts)
"""Judgements are immutable, and far-apart pairs share a few overlaps: one object per overlap."""


def _spelled_apart(one: Reading, two: Reading, shared: frozenset[str], near_one: frozenset[str]) -> bool:
    """Whether no term one text has alone may be a spelling of a term of the other (``prefilter``);
    ``near_one`` is every known term close to one of ``one``'s (``prefilter.close_to_any``)."""
    if near_one.isdisjoint(two.topic):
        return True  # the index links both ways: no term of either text is close to one of the other
    generation = spellings.generation
    alike = prefilter.spelled_alike(one.topic, generation)
    if alike and not prefilter.unspelled(alike - shared, two.topic):
        return False
    alike = prefilter.spelled_alike(two.topic, generation)
    return not alike or prefilter.unspelled(alike - shared, one.topic)


def _settled(new_text: str, new: Reading, near_new: frozenset[str], text: str, other: Reading) -> Judgement | None:
    """``judge_pair(text, new_text)`` when the pair is provably "different facts", else ``None``."""
    if not (new.indexed and other.indexed) or new.words == other.words:
        return None
    if (new.negations and not new.bases.isdisjoint(other.topic)) or (
            other.negations and not other.bases.isdisjoint(new.topic)):
        return None
    shared = new.topic & other.topic
    total = new.weight + other.weight
    overlap = 2 * total_weight(shared) / total if total else 0.0
    bound = SETTLED_BELOW if new.amounts and other.amounts else SETTLED_BELOW_WITHOUT_AMOUNTS
    if overlap >= bound or (other.events and opposite_events(new.events, other.events)):
        return None
    first, second = (other, new) if text < new_text else (new, other)  # judge_pair's order
    if not _spelled_apart(new, other, shared, near_new):
        overlap = similarity(first.features, second.features)  # judge_pair's own, the fuzzy pass included
        if overlap >= bound:
            return None
    if overlap >= POLARITY_CONFLICT_FROM and polarity_conflict(first.features, second.features) is not None:
        return None
    if not prefilter.facts_cannot_swap(first.sequence, second.sequence, MIN_FRAME_WEIGHT, MAX_SPAN):
        return None
    return _different_facts(overlap)


def judge_group(new: str, existing: list[str], service: str | None = None) -> list[Judgement]:
    """``[judge_pair(text, new, service) for text in existing]``, the far-apart pairs settled cheaply:
    those the new text does not touch (``term_index``) at once, the others one by one."""
    if not prefilter.ENABLED:
        return [judge_pair(text, new, service) for text in existing]
    ignored = service_terms(service)
    with term_index.lock:  # the whole group: the spelling index grows its sets while the pairs read them
        mine = reading(new, ignored)
        index = term_index.for_service(ignored)
        slots = index.slots(existing)  # reads the texts seen for the first time: may index new terms
        readings = index.readings
        if mine.indexed:  # every term of the group is indexed now: read which are close to the new text's
            near_mine = prefilter.close_to_any(mine.topic, spellings.generation)
            touched = index.touching(mine, near_mine)
            asked = list(compress(range(len(slots)), map(touched.__contains__, slots)))
        else:
            near_mine, asked = frozenset(), list(range(len(slots)))
        found = [_different_facts(0.0)] * len(existing)
        for position in asked:
            text = existing[position]
            found[position] = _settled(new, mine, near_mine, text, readings[slots[position]]) or judge_pair(
                text, new, service)
    return found
