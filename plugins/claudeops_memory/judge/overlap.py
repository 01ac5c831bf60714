"""Topical overlap of two texts: how much of what they talk about is shared.

Every decision rule is gated on this score, because two memories can only reinforce or contradict
each other when they are about the same subject.  It is a weighted Dice coefficient over the
concepts of both texts (negated concepts count too: "does not fix the stall" is still about the
stall), with generic home-lab concepts weighing half and ``rapidfuzz`` matching morphology the
stemmer misses ("transcoder" / "transcoding").
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from math import fsum

from rapidfuzz import fuzz

from . import prefilter
from .analyse import Features
from .concepts import weight
from .spellings import FUZZY_MIN_RATIO, is_spelled

FUZZY_WEIGHT = 0.8
"""A fuzzy match is weaker evidence of a shared subject than the same concept, so it counts 80 %."""


def _topic(features_: Features) -> dict[str, float]:
    """Weighted topic terms: asserted and negated concepts alike say what the text is about."""
    return {term: weight(term) for term in features_.asserted | features_.negated}


def soft_match(term: str, candidates: dict[str, float]) -> str | None:
    """The best fuzzy partner of ``term`` ("transcoder" ~ "transcod"), if any is close enough."""
    return soft_match_among(term, fuzzy_candidates(candidates))


def fuzzy_candidates(terms: Iterable[str]) -> tuple[str, ...]:
    """The terms fuzzy matching may pair with, in the order :func:`soft_match_among` tries them:
    computed once when many terms are matched against the same candidates."""
    return tuple(sorted(term for term in set(terms) if is_spelled(term)))


def soft_match_among(term: str, candidates: tuple[str, ...], within: Container[str] | None = None) -> str | None:
    """:func:`soft_match` against candidates prepared by :func:`fuzzy_candidates`, those still ``within``
    (when given) only."""
    if not is_spelled(term):
        return None
    best: str | None = None
    best_score = FUZZY_MIN_RATIO
    for candidate in candidates:
        if within is not None and candidate not in within:
            continue
        prefix = candidate.startswith(term) or term.startswith(candidate)
        score = 100.0 if prefix else fuzz.ratio(term, candidate)
        if score > best_score or (best is None and score == best_score):
            best, best_score = candidate, score
    return best


def similarity(first: Features, second: Features) -> float:
    """Weighted Dice overlap of the two topic term sets, with fuzzy matches counted partially."""
    narrowed = prefilter.ENABLED and prefilter.both_indexed(first, second)
    if narrowed:
        exact = prefilter.overlap_without_spellings(first, second)
        if exact is not None:
            return exact
    left, right = _topic(first), _topic(second)
    total = fsum(left.values()) + fsum(right.values())
    if not total:
        return 0.0
    shared = 0.0
    unmatched = dict(right)
    spellings = fuzzy_candidates(right)  # sorted once; those matched meanwhile are skipped
    for term, term_weight in sorted(left.items()):
        if term in unmatched:
            shared += term_weight + unmatched.pop(term)
            continue
        near = prefilter.close_candidates(term, spellings) if narrowed else spellings
        partner = soft_match_among(term, near, unmatched)
        if partner is not None:
            shared += FUZZY_WEIGHT * (term_weight + unmatched.pop(partner))
    return shared / total
