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
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Literal

from .analyse import Features, features
from .concepts import content_term, opposite_events
from .conflicts import polarity_conflict, resolve_prefix_negations
from .frames import find_substitution, is_single_valued
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
def _service_terms(service: str | None) -> frozenset[str]:
    """The terms naming the service ("home-assistant" is also "home" and "assistant")."""
    if not service:
        return frozenset()
    spellings = (service, service.replace("-", " ").replace("_", " "))
    return frozenset(term for text in spellings for token in raw_tokens(text) if (term := content_term(token)))


def _without(features_: Features, terms: frozenset[str]) -> Features:
    """The features without the given terms: naming the service says nothing about the fact."""
    if not terms & (features_.asserted | features_.negated):
        return features_
    return replace(
        features_,
        asserted=features_.asserted - terms,
        negated=features_.negated - terms,
        sequence=tuple(term for term in features_.sequence if term not in terms),
    )


def judge_relation(existing: str, new: str, service: str | None = None) -> Relation:
    """Decide whether ``new`` reinforces, contradicts, or is distinct from ``existing``.

    Both texts are assumed to be about the same service and category (the store only asks about
    such pairs), so the question is whether they make the same claim about the same subject.  The
    relation is symmetric: the texts are compared in a fixed order, so swapping them never
    changes the answer.
    """
    if normalise(existing).split() == normalise(new).split():
        return "reinforce"
    ignored = _service_terms(service)
    one, other = sorted((existing, new))  # the same answer whichever text is the existing memory
    first, second = _without(features(one), ignored), _without(features(other), ignored)
    first, second = resolve_prefix_negations(first, second), resolve_prefix_negations(second, first)
    overlap = similarity(first, second)
    values = compare_quantities(first.quantities, second.quantities, overlap)
    if overlap >= POLARITY_CONFLICT_FROM and polarity_conflict(first, second):
        return "contradict"
    if opposite_events(first.asserted, second.asserted):
        return "distinct"
    substitution = find_substitution(first.sequence, second.sequence)
    single_valued = substitution is not None and is_single_valued(substitution, first, second)
    two_things = substitution is not None and (substitution.of_subject or (first.modality > 0 and second.modality > 0))
    if two_things and not single_valued:
        return "distinct"
    if overlap >= VALUE_CONFLICT_FROM and values.conflict:
        return "contradict"
    if substitution is not None:
        return "contradict" if single_valued else "distinct"
    if overlap >= _reinforce_threshold(values):
        return "reinforce"
    return "distinct"
