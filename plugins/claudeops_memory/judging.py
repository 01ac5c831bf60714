"""Asking the judges about one new observation: the batch hook first, then each pair it left.

The store compares a new observation with every active memory of its service and category that
is not the same text. It asks ``judge_memory_relations`` once for the whole group (a model judge
answers there, one request per marker), then ``judge_memory_relation`` for each pair the batch
answer left open (the offline judge, ``trylast``, always answers). Every answer, a bare string
or a record, becomes a :class:`~claudeops_memory.verdict.JudgeVerdict` naming the plugin that
gave it; an answer that is not a relation is logged and the pair treated as ``distinct``, as is
a pair no judge answers.

The hooks are called one implementation at a time, in pluggy's order, rather than through
pluggy's ``firstresult`` call, only to know *which* plugin answered: the memory's history and the
review queue say who decided.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from claudeops import Session
from claudeops_memory.verdict import JudgeVerdict, as_verdict

log = logging.getLogger(__name__)

NO_ANSWER = JudgeVerdict("distinct", 1.0, "no judge answered", "none")


def acted_relation(verdict: JudgeVerdict, min_certainty: float) -> str:
    """What the store does with a verdict: its relation when the judge is sure enough, else ``distinct``."""
    return verdict.relation if verdict.certainty >= min_certainty else "distinct"


def _first_answer(caller: Any, **kwargs: Any) -> tuple[Any, str]:
    """The first non-``None`` answer of a ``firstresult`` hook, and the plugin that gave it."""
    for impl in reversed(caller.get_hookimpls()):  # pluggy's call order
        answer = impl.function(*(kwargs[name] for name in impl.argnames))
        if answer is not None:
            return answer, impl.plugin_name
    return None, ""


def _read(answer: Any, plugin: str, hook: str) -> JudgeVerdict | None:
    """``answer`` as a verdict, or ``None`` (logged) when it is not one."""
    try:
        return as_verdict(answer, plugin)
    except ValueError as exc:
        log.warning("plugin %r answered %s with %s; treating the pair as distinct", plugin, hook, exc)
        return None


@dataclass(frozen=True)
class Judges:
    """The judge hooks as the store asks them about one observation (``upsert.Judge``)."""

    hook: Any
    """The plugin manager's hook relay (``session.hook``)."""
    session: Session | None = None

    def __call__(self, new: str, existing: list[str], service: str | None, category: str) -> list[JudgeVerdict]:
        """One verdict per text of ``existing``, in order."""
        if not existing:
            return []
        answers = self._batch(new, existing, service, category)
        return [answer or self._pair(text, new, service, category)
                for text, answer in zip(existing, answers, strict=True)]

    def _batch(self, new: str, existing: list[str], service: str | None, category: str) -> list[JudgeVerdict | None]:
        answers, plugin = _first_answer(self.hook.judge_memory_relations, new=new, existing=existing, service=service,
                                        category=category, session=self.session)
        if answers is None:
            return [None] * len(existing)
        if not isinstance(answers, Sequence) or isinstance(answers, str) or len(answers) != len(existing):
            log.warning("plugin %r answered judge_memory_relations with %r for %d memories; asking "
                        "judge_memory_relation about each instead", plugin, answers, len(existing))
            return [None] * len(existing)
        return [None if answer is None else _read(answer, plugin, "judge_memory_relations") for answer in answers]

    def _pair(self, existing: str, new: str, service: str | None, category: str) -> JudgeVerdict:
        answer, plugin = _first_answer(self.hook.judge_memory_relation, existing=existing, new=new, service=service,
                                       category=category)
        if answer is None:
            return NO_ANSWER
        verdict = _read(answer, plugin, "judge_memory_relation")
        return verdict or JudgeVerdict("distinct", 1.0, f"unreadable answer {answer!r}", plugin)
