"""The decision rules: reinforce, contradict or distinct, from overlap, polarity and amounts.

Every rule is a threshold on topical overlap, because a conflict or an agreement only means
something between texts about the same subject: a polarity conflict with some shared subject, or a
value conflict with clearly the same subject, is a contradiction; otherwise enough overlap is
reinforcement (less with an anchored matching amount, more when the amounts do not line up);
anything else is distinct.  The thresholds are on the weighted Dice overlap (0..1) of ``overlap``.
"""

from __future__ import annotations

from typing import Literal

from .analyse import features
from .conflicts import polarity_conflict, resolve_prefix_negations
from .overlap import similarity
from .quantities import QuantityComparison, compare_quantities
from .tokens import normalise

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


def judge_relation(existing: str, new: str) -> Relation:
    """Decide whether ``new`` reinforces, contradicts, or is distinct from ``existing``.

    Both texts are assumed to be about the same service and category (the store only asks about
    such pairs), so the question is whether they make the same claim about the same subject.
    """
    if normalise(existing).split() == normalise(new).split():
        return "reinforce"
    first, second = features(existing), features(new)
    first, second = resolve_prefix_negations(first, second), resolve_prefix_negations(second, first)
    overlap = similarity(first, second)
    values = compare_quantities(first.quantities, second.quantities, overlap)
    if overlap >= POLARITY_CONFLICT_FROM and polarity_conflict(first, second):
        return "contradict"
    if overlap >= VALUE_CONFLICT_FROM and values.conflict:
        return "contradict"
    if overlap >= _reinforce_threshold(values):
        return "reinforce"
    return "distinct"
