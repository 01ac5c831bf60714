"""The decision rules: reinforce, contradict or distinct, from overlap, polarity, amounts and frames.

Every rule is a threshold on topical overlap, because a conflict or an agreement only means
something between texts about the same subject: a polarity conflict with some shared subject is a
contradiction; texts about opposite events (start / stop) are distinct, whatever their amounts;
two subjects in one statement ("the NAS takes 4 minutes" / "the router takes 2 minutes") are
distinct, whatever their amounts, and so are two requirements of different things ("needs port
53 free" / "needs port 3000 free"); a value conflict with clearly the same subject is a
contradiction; one statement about two different things (``frames``) contradicts in a
single-valued slot and is distinct otherwise; then enough
overlap is reinforcement (less with an anchored matching amount, more when the amounts do not
line up); anything else is distinct.  The thresholds are on the weighted Dice overlap (0..1) of
``overlap``.  The service's own name is left out first: every memory compared is about it.
Each call comes with how sure the rule that made it is (``certainty``) and the reason in words.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from .analyse import Features, features
from .certainty import (
    STRUCTURAL,
    distinct_certainty,
    negation_certainty,
    reinforce_certainty,
    slot_certainty,
)
from .concepts import content_term, opposite_events
from .conflicts import polarity_conflict, resolve_prefix_negations
from .frames import find_substitution, is_single_valued, swaps_values
from .overlap import similarity
from .quantities import QuantityComparison, compare_quantities
from .tokens import normalise, raw_tokens

Relation = Literal["reinforce", "contradict", "distinct"]

POLARITY_CONFLICT_FROM = 0.3
"""Negation, modality and antonym conflicts name their own shared concept, so modest overlap
suffices ("needs no maintenance" vs "must be compacted monthly")."""
VALUE_CONFLICT_FROM = 0.45
"""Different numbers are common between unrelated facts about one service, so a value conflict
needs clearly the same subject ("20s to accept connections" vs "pg_dump takes 40 minutes")."""
REINFORCE_FROM = 0.45
"""Without a conflict, this much overlap is the same fact."""
REINFORCE_WITH_ANCHORED_QUANTITY_FROM = 0.2
"""A matching amount next to the same words ("tunnel drops every 24 hours" / "tunnel disconnects
daily") is strong evidence: the rest is usually just rewording.  A matching amount elsewhere
("nightly backups" / "14 daily snapshots") proves nothing."""
REINFORCE_WITH_UNMATCHED_AMOUNTS_FROM = 0.7
"""Texts whose amounts do not line up (GB of heap vs seconds to load, "takes 20 minutes" vs no
amount at all) state different aspects unless they are near-identical otherwise."""


def _reinforce_threshold(values: QuantityComparison) -> float:
    """Overlap needed to call a conflict-free pair the same fact, given how their values relate."""
    if values.anchored_match:
        return REINFORCE_WITH_ANCHORED_QUANTITY_FROM
    if values.amounts_unmatched:
        return REINFORCE_WITH_UNMATCHED_AMOUNTS_FROM
    return REINFORCE_FROM


@lru_cache(maxsize=256)
def service_terms(service: str | None) -> frozenset[str]:
    """The terms naming the service ("home-assistant" is also "home" and "assistant")."""
    if not service:
        return frozenset()
    spellings = (service, service.replace("-", " ").replace("_", " "))
    return frozenset(term for text in spellings for token in raw_tokens(text) if (term := content_term(token)))


def without_terms(features_: Features, terms: frozenset[str]) -> Features:
    """The features without the given terms: naming the service says nothing about the fact."""
    if not terms & (features_.asserted | features_.negated):
        return features_
    return replace(
        features_,
        asserted=features_.asserted - terms,
        negated=features_.negated - terms,
        sequence=tuple(term for term in features_.sequence if term not in terms),
    )


@dataclass(frozen=True, slots=True)
class Judgement:
    """The judge's call on one pair: the relation it leans to, how sure it is (0..1, see
    ``certainty``) and the rule that decided, in words an operator reviewing it can check."""

    relation: Relation
    certainty: float
    reason: str


def _percent(overlap: float) -> str:
    return f"{overlap:.0%} of the content shared"


def _conflict(first: Features, second: Features, overlap: float) -> Judgement | None:
    """A polarity or value contradiction, with its certainty, or ``None``."""
    kind = polarity_conflict(first, second) if overlap >= POLARITY_CONFLICT_FROM else None
    if kind == "negation":
        both_deny = bool(first.negated) and bool(second.negated)
        denials = "; both texts deny something" if both_deny else ""
        return Judgement("contradict", negation_certainty(overlap, both_deny),
                         f"one text denies what the other states ({_percent(overlap)}{denials})")
    if kind is not None:
        return Judgement("contradict", STRUCTURAL, f"opposite {kind} ({_percent(overlap)})")
    return None


def judge_pair(existing: str, new: str, service: str | None = None) -> Judgement:
    """Decide whether ``new`` reinforces, contradicts, or is distinct from ``existing``, and how surely.

    Both texts are assumed to be about the same service and category (the store only asks about
    such pairs), so the question is whether they make the same claim about the same subject.  The
    judgement is symmetric: the texts are compared in a fixed order, so swapping them never
    changes it.
    """
    if normalise(existing).split() == normalise(new).split():
        return Judgement("reinforce", 1.0, "the same words")
    ignored = service_terms(service)
    one, other = sorted((existing, new))  # the same answer whichever text is the existing memory
    first, second = without_terms(features(one), ignored), without_terms(features(other), ignored)
    first, second = resolve_prefix_negations(first, second), resolve_prefix_negations(second, first)
    overlap = similarity(first, second)
    values = compare_quantities(first.quantities, second.quantities, overlap)
    polarity = _conflict(first, second, overlap)
    if polarity is not None:
        return polarity
    if opposite_events(first.asserted, second.asserted):
        return Judgement("distinct", STRUCTURAL, "opposite events (start / stop)")
    substitution = find_substitution(first.sequence, second.sequence)
    single_valued = substitution is not None and is_single_valued(substitution, first, second)
    two_things = substitution is not None and (substitution.of_subject or (first.modality > 0 and second.modality > 0))
    if two_things and not single_valued:
        return Judgement("distinct", STRUCTURAL, "the same statement about two different things")
    if overlap >= VALUE_CONFLICT_FROM and values.conflict:
        return Judgement("contradict", STRUCTURAL, f"different amounts of the same thing ({_percent(overlap)})")
    if substitution is not None:
        if single_valued:
            return Judgement("contradict", slot_certainty(overlap, swaps_values(substitution)),
                             f"a different value in a one-value slot ({_percent(overlap)})")
        return Judgement("distinct", STRUCTURAL, "a second thing where there can be many")
    if overlap >= _reinforce_threshold(values):
        return _reinforcement(first, second, overlap, values)
    return different_facts(overlap)


def _reinforcement(first: Features, second: Features, overlap: float, values: QuantityComparison) -> Judgement:
    """A conflict-free pair with enough overlap: the same fact, as sure as the overlap, half that when
    part of it is read poorly (each such part is named in the reason)."""
    poorly_read = [
        part for part, found in (
            ("amounts that do not line up", values.amounts_unmatched),
            ("only one text denies something", bool(first.negated) != bool(second.negated)),
            ("a condition in one text only", _condition_in_one_text(first, second)),
        ) if found
    ]
    caveats = "".join(f"; {part}" for part in poorly_read)
    return Judgement("reinforce", reinforce_certainty(overlap, bool(poorly_read)),
                     f"the same fact reworded ({_percent(overlap)}{caveats})")


def _condition_in_one_text(first: Features, second: Features) -> bool:
    """Only one text says when its claim holds, and the texts differ in more than that: a requirement
    stated in one only, or a term each lacks (counted one for one, so "retained messages survive"
    says *retain* twice).  Whether the other text's claim holds under that condition or against it
    ("lost when the broker restarts" / "survive a broker restart", "succeed even when the container
    is down" / "the container is required for uploads to succeed") is what a word list misreads; a
    plain rewording into a condition ("fixes the stalls" / "the stalls clear once ...") differs in
    nothing else."""
    if bool(first.conditioned) == bool(second.conditioned):
        return False
    if first.modality != second.modality:
        return True
    first_terms, second_terms = Counter(first.sequence), Counter(second.sequence)
    return bool(first_terms - second_terms) and bool(second_terms - first_terms)


def different_facts(overlap: float) -> Judgement:
    """The last rule: nothing found but an overlap too small for one fact (``group`` settles far-apart
    pairs with it directly)."""
    return Judgement("distinct", distinct_certainty(overlap), f"different facts ({_percent(overlap)})")


def judge_relation(existing: str, new: str, service: str | None = None) -> Relation:
    """The relation ``judge_pair`` leans to, whatever its certainty (the judge's raw reading)."""
    return judge_pair(existing, new, service).relation
