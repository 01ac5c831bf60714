"""A judge's answer about one pair of memories: the relation, how sure, why, and which judge.

The ``judge_memory_relation`` hooks may answer a bare relation string (the contract before judges
said how sure they are, which third-party judges keep using) or a record; :func:`as_verdict`
reads either into a :class:`JudgeVerdict`, so the store, its history and the review queue see one
shape whoever answered.  A third-party plugin cannot import this module (plugins import only
``claudeops``), so any object with a ``relation`` attribute and optional ``certainty``, ``reason``
and ``judge`` attributes is read the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

RELATIONS = ("reinforce", "contradict", "distinct")


@dataclass(frozen=True)
class JudgeVerdict:
    relation: str  # "reinforce" | "contradict" | "distinct"
    # 0..1; below `memory.judge_min_certainty` the upsert treats it as distinct and flags it for review
    certainty: float = 1.0
    reason: str = ""
    judge: str = "offline"  # "offline" | "claude" | a third-party plugin's name


def as_verdict(value: str | JudgeVerdict | None, judge: str) -> JudgeVerdict | None:
    """``value`` as a verdict (``judge`` names who answered a bare string); ``None`` stays ``None``.

    Raises ``ValueError`` for an answer that is no relation, or whose certainty is not a number
    from 0 to 1: the caller says so and treats the pair as distinct.
    """
    if value is None:
        return None
    if type(value) is JudgeVerdict and valid(value):
        return value  # already read (the offline judge's own answers): nothing to convert
    record = not isinstance(value, str)
    relation: object = getattr(value, "relation", None) if record else value
    certainty: object = getattr(value, "certainty", 1.0) if record else 1.0
    if not isinstance(relation, str) or relation not in RELATIONS:
        raise ValueError(f"{relation!r} is not a relation (expected one of {', '.join(RELATIONS)})")
    if isinstance(certainty, bool) or not isinstance(certainty, int | float) or not 0.0 <= certainty <= 1.0:
        raise ValueError(f"certainty {certainty!r} is not a number from 0 to 1")
    if not record:
        return JudgeVerdict(relation, judge=judge)
    return JudgeVerdict(relation, float(certainty), str(getattr(value, "reason", "") or ""),
                        str(getattr(value, "judge", "") or judge))


def valid(verdict: JudgeVerdict) -> bool:
    """Whether a verdict record holds a relation, a certainty from 0 to 1 and a judge's name."""
    certainty = verdict.certainty
    return (verdict.relation in RELATIONS and type(certainty) is float and 0.0 <= certainty <= 1.0
            and type(verdict.reason) is str and type(verdict.judge) is str and bool(verdict.judge))
