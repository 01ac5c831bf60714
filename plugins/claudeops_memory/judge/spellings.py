"""Which terms could be one word spelled two ways: the rule, and an index of it over every term seen.

``overlap`` and ``frames`` pair a term of one text with a term of the other that is spelled
almost the same ("transcoder" / "transcod"): a prefix of it, or a ``rapidfuzz`` ratio of at least
:data:`FUZZY_MIN_RATIO`.  Checking that rule for every term of one text against every term of the
other is most of the judge's time when a new memory meets a thousand candidates, and nearly always
finds nothing.  So this module keeps, per process, the *close spellings* of every term it has
seen: when a term first appears it is compared once with every term already known (one
``rapidfuzz`` call in C over the whole vocabulary, plus a look-up of its prefixes), and the links
go both ways.  Any two known terms have then been compared exactly once, so "no close spelling of
this term among those" is an answer, not a guess (``prefilter`` relies on it).

The index only grows, by the terms of the texts the judge reads; past :data:`MAX_TERMS` it stops
taking new ones and :func:`close_spellings` answers ``None`` for them: the judge then checks the
rule the slow way, so a full index costs time, never an answer.
"""

from __future__ import annotations

import bisect
import threading

from rapidfuzz import fuzz, process

FUZZY_MIN_RATIO = 85.0
"""``rapidfuzz`` ratio (0..100) from which two concepts count as one word spelled differently."""
FUZZY_MIN_LENGTH = 5
"""Shorter concepts only match exactly: one letter changes a short term entirely."""
MAX_TERMS = 10_000
"""Terms the index keeps at most (about a MB).  The 809 texts of the labelled pairs use 817 (ops
memories share their words); a new term costs one comparison with every known
term, 0.05 ms against 2,000 and 0.34 ms against 10,000 measured, so the cap also bounds what a
long text can cost to index (a 2,000-character text has a few hundred terms)."""


def is_spelled(term: str) -> bool:
    """Whether fuzzy matching applies: words long enough to be misspelled, never numbers or
    literals ("/srv" is not "/srv/pg", "#200" is not "#201")."""
    return len(term) >= FUZZY_MIN_LENGTH and term.replace("_", "").isalnum()


def may_match(term: str, candidate: str) -> bool:
    """The fuzzy rule itself, as ``overlap.soft_match_among`` applies it to one pair of spelled terms."""
    prefix = candidate.startswith(term) or term.startswith(candidate)
    return prefix or fuzz.ratio(term, candidate) >= FUZZY_MIN_RATIO


NO_SPELLINGS: frozenset[str] = frozenset()

_lock = threading.Lock()
_known: dict[str, set[str] | frozenset[str]] = {}
"""Every indexed term -> its close spellings among the other indexed terms (only spelled terms have any)."""
_spelled_sorted: list[str] = []
"""The indexed spelled terms in order, to find the ones a new term is a prefix of."""
generation = 0
"""Counts the new terms that had close spellings among the known ones: a known term's close
spellings change only when this does, so whatever is derived from them can be cached with it."""


def _index(term: str) -> None:
    """Compare a new spelled term with every known spelled term and link the close ones both ways."""
    close = {found for found, _, _ in process.extract(term, _spelled_sorted, scorer=fuzz.ratio,
                                                     score_cutoff=FUZZY_MIN_RATIO, limit=None)}
    start = bisect.bisect_left(_spelled_sorted, term)
    for longer in _spelled_sorted[start:]:
        if not longer.startswith(term):
            break
        close.add(longer)
    close.update(term[:end] for end in range(FUZZY_MIN_LENGTH, len(term)) if term[:end] in _known)
    close.discard(term)
    close = {candidate for candidate in close if may_match(term, candidate)}
    if close:
        global generation
        generation += 1
    for candidate in close:
        linked = _known[candidate]
        if isinstance(linked, frozenset):
            _known[candidate] = linked = set(linked)
        linked.add(term)
    bisect.insort(_spelled_sorted, term)
    _known[term] = close or NO_SPELLINGS


def close_spellings(term: str) -> set[str] | frozenset[str] | None:
    """The known terms ``term`` may be a spelling of (``may_match``), or ``None`` when the index is full.

    The set is live: it gains the terms indexed later, so it must be read, not kept."""
    found = _known.get(term)
    if found is not None:
        return found
    with _lock:
        found = _known.get(term)
        if found is not None:
            return found
        if len(_known) >= MAX_TERMS:
            return None
        if is_spelled(term):
            _index(term)
        else:
            _known[term] = NO_SPELLINGS
        return _known[term]
