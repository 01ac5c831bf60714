"""What a relation judge answers: the relation, how sure it is, and why.

The ``judge_memory_relation`` hook may answer with a :class:`JudgeVerdict` or, as third-party
judges written before it did, with a bare string; :func:`as_verdict` reads either, so the upsert
has one shape to decide on. A verdict less certain than ``memory.judge_min_certainty`` is not
acted on: the observation is treated as a distinct fact and the decision is flagged for review,
because a duplicate costs a little budget and is easy to merge, whereas a wrong ``reinforce``
loses a fact and a wrong ``contradict`` erodes one.
"""

from __future__ import annotations

from dataclasses import dataclass

RELATIONS = ("reinforce", "contradict", "distinct")


@dataclass(frozen=True)
class JudgeVerdict:
    relation: str            # "reinforce" | "contradict" | "distinct"
    certainty: float = 1.0   # 0..1; below the plugin's `memory.judge_min_certainty` the upsert treats it as distinct and flags it for review  # noqa: E501
    reason: str = ""
    judge: str = "offline"   # "offline" | "claude" | a third-party plugin's name


def as_verdict(value: str | JudgeVerdict | None, judge: str) -> JudgeVerdict | None:
    """The hook's answer as a verdict; a bare string is credited to ``judge`` and taken as certain.

    ``None`` (every judge deferred) stays ``None``. An answer that is no known relation is not
    guessed at: the caller logs it and treats the pair as distinct.
    """
    if value is None or isinstance(value, JudgeVerdict):
        return value
    return JudgeVerdict(relation=str(value), judge=judge)
