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
review queue say who decided.  For the pairs the batch hook left open, each
``judge_memory_relation`` implementation is asked about all of them before the next one is asked
about those it left (the same first answer per pair as asking pair by pair, since a judge's answer
about one pair does not depend on the others); an implementation registered with
:func:`answers_in_groups` answers them all in one call (the offline judge settles far-apart pairs
of one group cheaply, see ``judge.group``).
"""

from __future__ import annotations

import logging
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from claudeops import Session
from claudeops_memory.shared_answers import convert_each_once
from claudeops_memory.verdict import JudgeVerdict, as_verdict

log = logging.getLogger(__name__)

NO_ANSWER = JudgeVerdict("distinct", 1.0, "no judge answered", "none")

GroupJudge = Callable[[str, list[str], "str | None"], list[Any]]
"""``judge(new, existing_texts, service)``: one ``judge_memory_relation`` answer per text, in order."""
_GROUP_FORMS: dict[Callable[..., Any], GroupJudge] = {}

PairHook = TypeVar("PairHook", bound=Callable[..., Any])


def answers_in_groups(group_form: GroupJudge) -> Callable[[PairHook], PairHook]:
    """Register ``group_form`` as the way to ask the decorated ``judge_memory_relation``
    implementation about many texts at once; it must answer exactly what the implementation would
    answer about each pair."""
    def register(implementation: PairHook) -> PairHook:
        _GROUP_FORMS[implementation] = group_form
        return implementation
    return register


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
        if answers is None:
            return self._pairs(new, existing, service, category)
        open_pairs = [index for index, answer in enumerate(answers) if answer is None]
        if open_pairs:
            for index, verdict in zip(open_pairs, self._pairs(new, [existing[index] for index in open_pairs],
                                                              service, category), strict=True):
                answers[index] = verdict
        return [answer or NO_ANSWER for answer in answers]

    def _batch(self, new: str, existing: list[str], service: str | None,
               category: str) -> list[JudgeVerdict | None] | None:
        """The batch hook's verdicts, ``None`` for each pair it left open; ``None`` when it left them all."""
        answers, plugin = _first_answer(self.hook.judge_memory_relations, new=new, existing=existing, service=service,
                                        category=category, session=self.session)
        if answers is None:
            return None
        if not isinstance(answers, Sequence) or isinstance(answers, str) or len(answers) != len(existing):
            log.warning("plugin %r answered judge_memory_relations with %r for %d memories; asking "
                        "judge_memory_relation about each instead", plugin, answers, len(existing))
            return None
        return [None if answer is None else _read(answer, plugin, "judge_memory_relations") for answer in answers]

    def _pairs(self, new: str, texts: list[str], service: str | None, category: str) -> list[JudgeVerdict]:
        """Each ``judge_memory_relation`` implementation in pluggy's order, asked about the pairs no
        earlier one answered (all at once when it has a group form)."""
        verdicts: list[JudgeVerdict | None] = [None] * len(texts)
        pending = list(range(len(texts)))
        for impl in reversed(self.hook.judge_memory_relation.get_hookimpls()):
            if not pending:
                break
            asked = texts if len(pending) == len(texts) else [texts[index] for index in pending]
            group_form = _GROUP_FORMS.get(impl.function)
            if group_form is not None:
                answers = group_form(new, asked, service)
            else:
                answers = [impl.function(*({"existing": text, "new": new, "service": service,
                                            "category": category}[name] for name in impl.argnames)) for text in asked]
            read = convert_each_once(partial(_pair_verdict, plugin=impl.plugin_name), answers)
            if len(pending) == len(texts) and not any(map(_is_none, read)):
                return read  # type: ignore[return-value]  # no None in it: checked
            still = []
            for index, verdict in zip(pending, read, strict=True):
                if verdict is None:
                    still.append(index)
                else:
                    verdicts[index] = verdict
            pending = still
        return [verdict or NO_ANSWER for verdict in verdicts]


_is_none = partial(operator.is_, None)
"""``None`` tested by identity in C (``None in verdicts`` would call the dataclass's ``__eq__`` per verdict)."""


def _pair_verdict(answer: Any, plugin: str) -> JudgeVerdict | None:
    """A ``judge_memory_relation`` answer as a verdict; ``None`` when it left the pair open, and
    ``distinct`` (logged) when it is not one."""
    if answer is None:
        return None
    return _read(answer, plugin, "judge_memory_relation") or JudgeVerdict(
        "distinct", 1.0, f"unreadable answer {answer!r}", plugin)
