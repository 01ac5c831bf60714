"""Polarity conflicts between two texts: the same subject, pointing opposite ways.

``polarity`` reads the direction of each text on its own; only a pair shows whether those
directions disagree.  A concept asserted in one text and negated in the other, opposite modality,
an antonym, or a reversed ordering is each enough for a contradiction once the texts share a
subject (the threshold lives in ``decide``).
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Literal

from .analyse import Features, code_term
from .concepts import EVENT_CONCEPTS, GENERIC_WEIGHT, concept, weight

ANTONYMS: tuple[tuple[str, str], ...] = (
    ("enable", "disable"), ("online", "offline"), ("work", "fail"), ("fast", "slow"),
    ("increase", "decrease"), ("open", "close"), ("allow", "deny"), ("allow", "block"),
    ("accept", "reject"), ("accept", "refuse"), ("high", "low"), ("present", "missing"),
    ("include", "exclude"), ("automatic", "manual"), ("unattended", "manual"),
    ("local", "public"), ("local", "remote"), ("readonly", "write"), ("readonly", "writable"),
    ("readonly", "readwrite"), ("safe", "fail"), ("safe", "corrupt"), ("green", "red"),
    ("stable", "fail"), ("stable", "drop"), ("reliable", "fail"), ("retain", "lose"),
    ("retain", "reset"), ("retain", "wipe"), ("retain", "drop"), ("quiet", "loud"), ("quiet", "noisy"),
    ("short", "long"), ("small", "large"), ("empty", "full"), ("idle", "busy"), ("light", "heavy"),
    ("cold", "hot"), ("cool", "hot"),
)
"""Pairs of surface words with opposite meaning (stemmed when used).  Opposite *events* (start /
stop) are not among them: "takes 60s to start" and "takes 60s to stop" are two facts, see
``frames``."""

NEGATING_PREFIXES: tuple[str, ...] = ("un", "in", "non", "dis", "im")
"""Prefixes that negate a word: "unavailable" negates "available" when the other text uses the
positive word.  Reversal events ("unmount", "uninstall") are not negations: they are events of
their own (``concepts.EVENT_OPPOSITES``)."""

_ANTONYM_CONCEPTS: tuple[tuple[str, str], ...] = tuple((concept(a), concept(b)) for a, b in ANTONYMS)
_ANTONYM_TERMS: frozenset[str] = frozenset(term for pair in _ANTONYM_CONCEPTS for term in pair)


@lru_cache(maxsize=4096)
def prefix_negations(asserted: frozenset[str]) -> tuple[tuple[str, str], ...]:
    """Each asserted term that reads as a prefix negation, with the concept it would negate
    ("unavail", "avail"), in the order of :data:`NEGATING_PREFIXES`.  Cached per text's term set:
    the store pairs one text with many, and almost no term has a negating prefix."""
    return tuple(
        (term, concept(term[len(prefix) :]))
        for term in asserted
        for prefix in NEGATING_PREFIXES
        if term.startswith(prefix) and len(term) - len(prefix) >= 4 and term not in EVENT_CONCEPTS
    )


def resolve_prefix_negations(own: Features, other: Features) -> Features:
    """Read "unavailable" as negated "available" when the other text says "available": the same
    topic, the other way.  Inside a condition it stays a circumstance ("when it is unreachable"),
    so the base word is marked conditioned too."""
    candidates = prefix_negations(frozenset(own.asserted))
    if not candidates:
        return own
    others = other.asserted | other.negated
    moved = {term: base for term, base in candidates if base in others}
    if not moved:
        return own
    return replace(
        own,
        asserted=own.asserted - moved.keys(),
        negated=own.negated | set(moved.values()),
        conditioned=own.conditioned | {base for term, base in moved.items() if term in own.conditioned},
        sequence=tuple(moved.get(term, term) for term in own.sequence),
    )


def _code_terms(features_: Features) -> set[str]:
    """Asserted bare numbers as topic terms ("#200"), to meet "not 200" in the other text."""
    return {code_term(q.low) for q in features_.quantities if q.dimension == "code"}


def _negation_conflict(first: Features, second: Features) -> bool:
    """A concept asserted by one text and denied by the other ("fixes" / "does not fix"); a denial
    inside a condition ("if no traffic flows") describes the circumstances and does not count."""
    first_claims, first_denials = first.asserted | _code_terms(first), first.negated - first.conditioned
    second_claims, second_denials = second.asserted | _code_terms(second), second.negated - second.conditioned
    return bool(first_claims & second_denials or second_claims & first_denials)


def _antonym_conflict(first: Features, second: Features) -> bool:
    """One text uses a word, the other its antonym, and neither uses both."""
    if first.asserted.isdisjoint(_ANTONYM_TERMS) or second.asserted.isdisjoint(_ANTONYM_TERMS):
        return False  # each text needs one word of a pair: settled with two set look-ups, not 39 pairs
    for word, opposite in _ANTONYM_CONCEPTS:
        for one, two in ((first, second), (second, first)):
            used = word in one.asserted and opposite in two.asserted
            if used and opposite not in one.asserted and word not in two.asserted:
                return True
    return False


def _different_events(one: frozenset[str], two: frozenset[str]) -> bool:
    """Whether two ordered events are different things: each names something specific the other
    does not ("run gitea doctor" / "run gitea dump")."""
    return any(weight(term) > GENERIC_WEIGHT for term in one - two) and any(
        weight(term) > GENERIC_WEIGHT for term in two - one
    )


def _ordering_conflict(first: Features, second: Features) -> bool:
    """One text puts A before B and the other B before A ("mount the share before starting" /
    "can start before the share is mounted"); "doctor after the upgrade" and "dump before the
    upgrade" order two different events and do not conflict."""
    return any(
        early & other_late and late & other_early
        and not _different_events(early, other_late) and not _different_events(late, other_early)
        for early, late in first.orderings
        for other_early, other_late in second.orderings
    )


PolarityConflict = Literal["modality", "antonym", "ordering", "negation"]
"""The kinds of polarity disagreement, the structural ones first (see ``certainty``)."""


def polarity_conflict(first: Features, second: Features) -> PolarityConflict | None:
    """The kind of modality, antonym, ordering or negation disagreement, or ``None``; "unless"
    texts invert their own polarity, so their surface negations, antonyms and orderings are not
    trusted.  A negation is named only when nothing structural disagrees: it is the reading a
    word list gets wrong most often."""
    if first.modality * second.modality < 0:
        return "modality"
    if first.conditional or second.conditional:
        return None
    if _antonym_conflict(first, second):
        return "antonym"
    if _ordering_conflict(first, second):
        return "ordering"
    return "negation" if _negation_conflict(first, second) else None
