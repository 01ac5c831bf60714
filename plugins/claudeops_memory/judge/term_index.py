"""Which memories of a group a new text touches at all: every text read so far, filed under its terms.

With a thousand candidates most of them share no word with a new memory, and ``group`` settles
such a pair as "different facts, 0 % shared" — but only after a dozen checks per pair.  This index
finds the few candidates that *could* need more in a handful of set unions, so the others are
answered without a look.  It keeps, per service (whose own terms every reading leaves out), each
text's :class:`~.reading.Reading` under a number (its *slot*), and for every term the slots of the
texts that have it: as a topic or sequence term, as the base word of a prefix negation
("unavailable" is filed under "available"), and the texts by their words.

A candidate untouched by a new text (:meth:`TermIndex.touching`) shares no topic or sequence term
with it, has no term close to one of its terms (the spelling index's links, read live), meets
none of its negation bases and offers none of its own to it, names no event opposite to one of
its events and is not the same words — so, both texts' terms being in the spelling index, every
check of ``group._settled`` passes with an overlap of exactly 0, and its answer is
``different_facts(0.0)``.  The slots only hold what a text and the service's terms determine, so
they never go stale; what changes with time (which terms may be spellings of which) is passed in.
Past :data:`~.reading.READINGS` texts in all, the index starts afresh: that costs time, never an answer.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

from .concepts import opposite_event_terms
from .reading import READINGS, Reading, reading


class TermIndex:
    """The texts read with one service's terms left out, filed by term (see the module docstring)."""

    def __init__(self, ignored: frozenset[str]) -> None:
        self.ignored = ignored
        self.readings: list[Reading] = []
        """Each slot's reading."""
        self._slots: dict[str, int] = {}
        self._by_term: dict[str, set[int]] = {}
        self._by_base: dict[str, set[int]] = {}
        self._by_words: dict[tuple[str, ...], set[int]] = {}
        self._unindexed: set[int] = set()
        """Texts with a term the spelling index could not take: no pair of theirs is settled here."""

    def __len__(self) -> int:
        return len(self.readings)

    def slots(self, texts: Sequence[str]) -> list[int]:
        """Each text's slot, in order; a text seen for the first time is read and filed now."""
        found = list(map(self._slots.get, texts))
        if None in found:
            found = [self._add(text) if slot is None else slot for text, slot in zip(texts, found, strict=True)]
        return found  # type: ignore[return-value]  # every None was replaced by a slot

    def _add(self, text: str) -> int:
        slot = self._slots.get(text)
        if slot is not None:
            return slot  # the same text twice in one group
        found = reading(text, self.ignored)
        slot = len(self.readings)
        self.readings.append(found)
        self._slots[text] = slot
        _file(self._by_term, found.topic | found.sequence.content, slot)
        _file(self._by_base, found.bases, slot)
        self._by_words.setdefault(found.words, set()).add(slot)
        if not found.indexed:
            self._unindexed.add(slot)
        return slot

    def touching(self, new: Reading, near: frozenset[str]) -> set[int]:
        """The slots of every text a pair with ``new`` might not settle with an overlap of 0: those
        sharing a term with it or with ``near`` (every known term close to one of its terms), its
        negation bases or the events opposite to its own, those whose negation bases it has, the
        same words, and the texts with terms the spelling index does not know."""
        wanted = new.topic | near | new.bases | opposite_event_terms(new.events)
        postings: list[Iterable[int]] = [self._by_term[term] for term in wanted if term in self._by_term]
        postings += [self._by_base[term] for term in new.topic if term in self._by_base]
        postings.append(self._by_words.get(new.words, ()))
        postings.append(self._unindexed)
        return set().union(*postings)


def _file(postings: dict[str, set[int]], terms: Iterable[str], slot: int) -> None:
    for term in terms:
        found = postings.get(term)
        if found is None:
            postings[term] = {slot}
        else:
            found.add(slot)


lock = threading.Lock()
"""Held while a group is judged (``group.judge_group``): the indexes here and the spelling index grow while
the pairs read them (``spellings`` adds a new term to its neighbours' sets in place, which a pair may be
iterating). The runner judges one marker at a time, so it never waits; a plugin judging from threads
gets one group at a time."""
_indexes: dict[frozenset[str], TermIndex] = {}


def for_service(ignored: frozenset[str]) -> TermIndex:
    """The index of the texts read with ``ignored`` (a service's terms) left out; call it holding
    :data:`lock`.  When all indexes together hold :data:`~.reading.READINGS` texts they are dropped."""
    if sum(map(len, _indexes.values())) >= READINGS:
        _indexes.clear()
    found = _indexes.get(ignored)
    if found is None:
        found = _indexes[ignored] = TermIndex(ignored)
    return found
