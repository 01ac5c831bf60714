"""Short cuts that settle the costly steps of a pair without running them, and never change an answer.

The store compares a new memory with every active memory of its service and category: with a
thousand candidates the judge has a few microseconds per pair.  Most pairs are far apart, and for
them the costly steps end in a result that cheap facts already prove.  Each short cut below is
taken only when it is a *proof* of what the full step would return; otherwise the full step runs:

* :func:`overlap_without_spellings` - the weighted Dice overlap, when no term one text has alone
  may be a spelling of a term of the other (``spellings`` knows every term's close spellings):
  then the fuzzy pass of ``overlap.similarity`` pairs nothing, every shared term counts in full,
  and the sum is the same (weights are 1 or 1/2, so the float sums are exact in any order);
* :func:`cannot_swap` - ``frames.find_substitution`` finds no swap (so no difflib alignment and no
  fuzzy spelling checks): the weight a shared frame could have is under the minimum; or one text
  names nothing new; or nothing new is specific; or the new specific terms of one text lie so far
  apart that no stretch short enough to be one swapped thing can hold them all (see the function);
* the cheaper checks inside ``conflicts`` and ``concepts`` (a text with no antonym or event word
  has no antonym or event conflict; a prefix negation is looked up per word, not per pair).

:data:`ENABLED` switches them all off, so that ``bench/judge_confusion.py --no-prefilter`` and
``tests/memory/test_memory_judge_prefilter.py`` can check that every judgement (relation,
certainty and reason) is the same without them.  Everything cached here is keyed by the text's
own terms (a term sequence, a term) and is a pure function of them, so no change can make it stale.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache

from . import spellings
from .analyse import AMOUNT_TERM_PREFIX, Features
from .concepts import specific_terms, total_weight, weight
from .spellings import close_spellings

ENABLED = True
"""Whether the judge takes the short cuts; a switch only so that their exactness can be checked."""

CACHE_SIZE = 4096
"""Term sets and sequences whose facts are kept: as many as ``analyse.features`` keeps texts."""


def _is_place(term: str) -> bool:
    return term.startswith(AMOUNT_TERM_PREFIX)


@lru_cache(maxsize=CACHE_SIZE)
def indexed(terms: frozenset[str]) -> bool:
    """Index every term of a text's term set (``spellings`` compares each new term with every known
    one); ``False`` when the index is full and some term stays unknown.  Cached per set: a text's
    sets are made once (``analyse.features`` is cached), and a term once indexed stays indexed."""
    return all([close_spellings(term) is not None for term in terms])


@lru_cache(maxsize=CACHE_SIZE)
def spelled_alike(terms: frozenset[str], generation: int) -> frozenset[str]:
    """The terms of an indexed set that have close spellings, as of ``spellings.generation``
    (pass it: the cache key makes a new generation recompute, so the answer is never stale)."""
    return frozenset(term for term in terms if close_spellings(term))


@lru_cache(maxsize=CACHE_SIZE)
def close_to_any(terms: frozenset[str], generation: int) -> frozenset[str]:
    """Every known term that may be a spelling of one of an indexed set's terms, as of
    ``spellings.generation`` (the index links both ways: a term of another text is close to one of
    these exactly when it is in here)."""
    return frozenset(close for term in terms for close in close_spellings_of(term))


def unspelled(own_only: AbstractSet[str], others: AbstractSet[str]) -> bool:
    """Whether no term of ``own_only`` may be a spelling of one of ``others`` (all of them indexed)."""
    for term in own_only:
        close = close_spellings(term)
        if close is None or (close and not close.isdisjoint(others)):
            return False
    return True


def both_indexed(first: Features, second: Features) -> bool:
    """Whether the spelling index knows every topic term of both texts (the short cuts below need it)."""
    return (indexed(frozenset(first.asserted)) and indexed(frozenset(first.negated))
            and indexed(frozenset(second.asserted)) and indexed(frozenset(second.negated)))


def close_candidates(term: str, candidates: tuple[str, ...]) -> tuple[str, ...]:
    """The ``candidates`` (in their order) ``term`` may be a spelling of: the only ones
    ``overlap.soft_match_among`` can pick (any other scores under its threshold and is no prefix),
    so it picks the same one among these.  Every term involved must be indexed."""
    close = close_spellings_of(term)
    return tuple(candidate for candidate in candidates if candidate in close) if close else ()


def overlap_without_spellings(first: Features, second: Features) -> float | None:
    """``overlap.similarity(first, second)`` when its fuzzy pass cannot pair anything, else ``None``.

    The fuzzy pass only looks at terms of ``first`` with no exact partner left; a term both texts
    have finds its own partner first unless a fuzzy match took it, so when no term of ``first``
    alone may be a spelling of any term of ``second``, every shared term is paired exactly, and the
    overlap is twice the shared weight over the total (``concepts.total_weight``: exact sums).
    Every topic term must be indexed (:func:`both_indexed`)."""
    left = first.asserted | first.negated
    right = second.asserted | second.negated
    if not unspelled(left - right, right):
        return None
    total = total_weight(left) + total_weight(right)
    if not total:
        return 0.0
    return 2 * total_weight(left & right) / total


@dataclass(frozen=True, slots=True)
class Sequence:
    """What :func:`cannot_swap` needs of one term sequence, computed once per sequence.  It never
    goes stale: terms once indexed stay indexed, and a full index stays full."""

    sequence: tuple[str, ...]
    terms: frozenset[str]
    content: frozenset[str]
    """Its terms but amount places."""
    specific: frozenset[str]
    """Its content terms that are not generic (``concepts.specific_terms``)."""
    weighted: dict[str, float]
    """Each content term's weight times how often it occurs."""
    counts: dict[str, int]
    indexed: bool


@lru_cache(maxsize=CACHE_SIZE)
def sequence_facts(sequence: tuple[str, ...]) -> Sequence:
    counts = Counter(term for term in sequence if not _is_place(term))
    terms = frozenset(sequence)
    content = frozenset(counts)
    return Sequence(sequence, terms, content, frozenset(specific_terms(content)),
                    {term: weight(term) * count for term, count in counts.items()}, dict(counts), indexed(terms))


def _novel_specific(own: Sequence, other: Sequence) -> tuple[AbstractSet[str], bool]:
    """The specific terms ``frames._novel`` finds new in ``own`` (those the other text lacks, no
    term of the other text alone may spell, and no amount place), and whether it finds any new
    term at all.  Both texts' terms must be indexed."""
    novel = own.content - other.terms
    generation = spellings.generation
    alike = spelled_alike(own.terms, generation) & novel
    if alike and not close_to_any(own.terms, generation).isdisjoint(other.terms):  # else no term is spelled
        other_only = other.terms - own.terms
        novel = novel - {term for term in alike if not close_spellings_of(term).isdisjoint(other_only)}
    return specific_terms(novel), bool(novel)


def close_spellings_of(term: str) -> AbstractSet[str]:
    """The close spellings of an indexed term."""
    close = close_spellings(term)
    if close is None:
        raise LookupError(f"{term!r} is not in the spelling index")
    return close


def _window(sequence: tuple[str, ...], wanted: AbstractSet[str]) -> int:
    """Length of the shortest stretch of ``sequence`` holding every term of ``wanted`` (0 for none)."""
    if not wanted:
        return 0
    held: Counter[str] = Counter()
    shortest = len(sequence) + 1
    start = 0
    for end, term in enumerate(sequence):
        if term not in wanted:
            continue
        held[term] += 1
        while len(held) == len(wanted):
            shortest = min(shortest, end - start + 1)
            leaving = sequence[start]
            start += 1
            if leaving in held:
                held[leaving] -= 1
                if not held[leaving]:
                    del held[leaving]
    return shortest


def cannot_swap(first: tuple[str, ...], second: tuple[str, ...], min_frame_weight: float, max_span: int) -> bool:
    """Whether ``frames.find_substitution(first, second)`` is certainly ``None``, decided without aligning.

    A swap needs, in the alignment of ``first`` with ``second``: a shared frame of at least
    ``min_frame_weight`` (made of terms both have, so it weighs at most the terms of ``first`` the
    other has); new terms on both sides (``frames._novel``), one of them specific (``_substantive``);
    and one stretch per side that holds every new specific term of that side (``_stray``) and is
    at most ``max(max_span, len(frame))`` long.  The frame is a common subsequence, so it has at
    most as many terms as either text has shared ones; a stretch holding every new specific term
    is at least the shortest window holding them.  When any of these cannot hold, ``find_substitution``
    returns ``None`` whatever the alignment."""
    return facts_cannot_swap(sequence_facts(first), sequence_facts(second), min_frame_weight, max_span)


def facts_cannot_swap(one: Sequence, two: Sequence, min_frame_weight: float, max_span: int) -> bool:
    """:func:`cannot_swap` from the sequences' facts."""
    shared = one.content & two.content
    if not shared or sum(map(one.weighted.__getitem__, shared)) < min_frame_weight:
        return True
    if not (one.indexed and two.indexed):
        return False
    longest = max(max_span, min(sum(map(one.counts.__getitem__, shared)), sum(map(two.counts.__getitem__, shared))))
    first_specific: AbstractSet[str]
    second_specific: AbstractSet[str]
    if close_to_any(one.terms, spellings.generation).isdisjoint(two.terms):
        # no term of either text may be a spelling of one of the other's (the index links both ways):
        # ``_novel_specific`` would take nothing out, and a side's new specific terms are its specific
        # terms but the shared ones, so at least ``len(specific) - len(shared)`` of them
        if len(one.specific) - len(shared) > longest or len(two.specific) - len(shared) > longest:
            return True  # more than a window that short can hold (see below)
        first_specific, first_any = one.specific - two.terms, not one.content <= two.terms
        second_specific, second_any = two.specific - one.terms, not two.content <= one.terms
    else:
        first_specific, first_any = _novel_specific(one, two)
        second_specific, second_any = _novel_specific(two, one)
    if not first_any or not second_any or not (first_specific or second_specific):
        return True
    if len(first_specific) > longest or len(second_specific) > longest:
        return True  # a window holds at least one term per distinct term it must hold
    return _window(one.sequence, first_specific) > longest or _window(two.sequence, second_specific) > longest
