"""Turning a group's answers into something else, once per answer object rather than once per memory.

A marker is judged against every memory of its group, a thousand of them or more, and nearly all
get one of a few answers: the offline judge gives every far-apart pair the same "different facts"
object.  Each step between the judge and the writes (the verdict record, its check, what the store
does with it) is a pure function of the answer, so it is computed for each distinct object and
handed to every memory that got that object, in C loops (``map``, ``dict``) instead of a Python
statement per memory.  Objects are told apart by identity, which the list keeps alive meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

Answer = TypeVar("Answer")
Result = TypeVar("Result")


def convert_each_once(convert: Callable[[Answer], Result], answers: Sequence[Answer]) -> list[Result]:
    """``[convert(answer) for answer in answers]``, calling ``convert`` once per distinct object."""
    keys = list(map(id, answers))
    distinct = dict(zip(keys, answers, strict=True))
    if len(distinct) == 1:
        return [convert(answers[0])] * len(answers)
    converted = {key: convert(answer) for key, answer in distinct.items()}
    return list(map(converted.__getitem__, keys))


def distinct(answers: Sequence[Answer]) -> list[Answer]:
    """The distinct objects of ``answers`` (by identity), in the order they first appear."""
    return list(dict(zip(map(id, answers), answers, strict=True)).values())


def positions_where(wanted: Callable[[Answer], bool], answers: Sequence[Answer],
                    kinds: Sequence[Answer] | None = None) -> list[int]:
    """The positions of the answers for which ``wanted`` holds, asking it once per distinct object;
    ``kinds`` is :func:`distinct` of ``answers`` when the caller already has it."""
    hits = {id(answer) for answer in (distinct(answers) if kinds is None else kinds) if wanted(answer)}
    if not hits:
        return []
    return [position for position, key in enumerate(map(id, answers)) if key in hits]
