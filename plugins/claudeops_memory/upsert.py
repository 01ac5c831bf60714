"""Recording an observation: reinforce the same fact, contradict a conflicting one, or add a new one.

Who decides what a new observation means, in order of trust (DESIGN.md § Memory decisions):

1. **The agent's citation.** ``(confirms #12)`` reinforces memory 12; ``(replaces #12)`` is a
   contradiction of it: 12 loses ``contradict_step`` (deactivated below the threshold) and the
   observation is stored as a new memory, its successor. The marker handler has already checked
   that the citation counts (see :mod:`claudeops_memory.marker`); no judge is asked.
2. **An exact repeat** (same text, ignoring case and spacing) of an active memory reinforces it.
3. **The judges** for the rest (:mod:`claudeops_memory.judging`: the ``judge_memory_relations``
   hook for the whole group, then ``judge_memory_relation`` per pair, with the plugin's offline
   judge last) give a verdict on each *candidate* that is not the same text: the active memories
   with the same category and the same service (a general memory, ``service IS NULL``, only
   meets other general memories). Most trusted candidate first:

   * ``reinforce`` (same fact, however phrased): the first such memory gains
     ``reinforce_step`` (capped at 1.0) and its ``updated_at`` is refreshed; no row is added.
   * ``contradict`` (same subject, conflicting conclusion): that memory loses
     ``contradict_step`` and is deactivated below the threshold; its ``updated_at`` is kept (it
     was not reinforced). Every contradicted candidate is weakened, even when another one is
     reinforced: the new observation is evidence against all of them.
   * otherwise (``distinct``): the candidate is left alone.

   A ``reinforce`` or ``contradict`` less certain than ``memory.judge_min_certainty``
   (:mod:`claudeops_memory.verdict`) is treated as ``distinct`` and the resulting change is
   flagged for review; an unsure ``distinct`` is simply distinct.

A memory is reinforced at most once per session: an observation that the same session already
recorded or reinforced (restated in a final summary, say) changes nothing, because repeating
oneself is not new evidence. The caller passes the ids this session already touched.

When nothing was reinforced, the observation becomes a memory at ``default_confidence``. If an
inactive memory of the same service and category has the same text (ignoring case), that
memory is reactivated at ``default_confidence`` instead, keeping its id, ``created_at`` and
provenance, so re-recording a forgotten fact is neither a silent no-op nor a duplicate.

Every change is written to the history (:mod:`claudeops_memory.history`) in the same
transaction, with the session as actor and how it was decided.

The judge runs before the write transaction opens (a plugged-in LLM judge may take seconds and
must not hold the database lock). Inside the transaction the group of candidates is locked and
read again (:func:`~claudeops_memory.upsert_store.lock_group`); if a memory appeared meanwhile
— another runner recording the same fact at the same moment — the transaction ends without a
write, the newcomer is judged outside it, and the write is tried again. So two runners
recording one new fact leave one row (the second reinforces the first's), and the writes
tolerate a candidate deleted or deactivated meanwhile.

An observation that reads as an instruction to the agent takes another way,
:func:`hold_back_observation`: it is stored inactive and flagged, and judged against nothing, so
it can neither reinforce, contradict nor reactivate anything an operator has not reviewed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial

from claudeops import db
from claudeops_memory import flags, history, upsert_store
from claudeops_memory.citation import Citation
from claudeops_memory.history import Actor, Decision
from claudeops_memory.judging import acted_relation
from claudeops_memory.models import MemoryRecord
from claudeops_memory.settings import MemorySettings
from claudeops_memory.shared_answers import convert_each_once, distinct, positions_where
from claudeops_memory.verdict import JudgeVerdict

log = logging.getLogger(__name__)

Judge = Callable[[str, list[str], "str | None", str], list[JudgeVerdict]]
"""``judge(new, existing_texts, service, category)``: one verdict per existing text (``judging.Judges``)."""

MAX_ROUNDS = 5
"""Times a write is tried again because candidates appeared while it was being judged. Each round
needs a concurrent writer to add to the very same group meanwhile; past this, newcomers are left
unjudged (distinct) rather than retried forever."""

EXACT_REPEAT = Decision("exact repeat")
CITATION = "citation"


@dataclass(frozen=True)
class Observation:
    """A memory as the agent stated it, already valid: a known category, a normalised service (or
    ``None``), one line of text within ``memory.max_observation_chars`` with any citation removed,
    and the citation when it counts (see ``marker``)."""

    category: str
    service: str | None
    text: str
    session_id: int | None
    tier: int
    now: str
    citation: Citation | None = None

    @property
    def actor(self) -> Actor:
        return history.session_actor(self.session_id, self.tier)


@dataclass(frozen=True)
class UpsertResult:
    """What recording one observation did: ``created``, ``reinforced``, ``reactivated`` or ``repeated``;
    for an observation held back, ``flagged`` (a new inactive memory) or ``repeated`` (already flagged).

    ``replaced`` is the memory a ``(replaces #N)`` citation weakened; ``contradicted`` the ones a
    judge found the observation contradicts; ``unsure_of`` the candidate a judge was unsure about,
    beside which the observation was stored and flagged for review.
    """

    action: str
    memory: MemoryRecord
    contradicted: tuple[MemoryRecord, ...] = field(default=())
    replaced: MemoryRecord | None = None
    unsure_of: upsert_store.Candidate | None = None


@dataclass(frozen=True)
class Judged:
    """One candidate's relation to the observation, as acted on, and how that was decided."""

    relation: str
    decision: Decision
    unsure: bool = False


REPEATED = Judged("reinforce", EXACT_REPEAT)
"""An exact repeat of the observation: reinforced, no judge asked."""


@lru_cache(maxsize=8192)
def _plain(text: str) -> str:
    """``text`` ignoring case and spacing; cached because a group's memories are compared with every
    observation recorded in the process (a pure function of the text: never stale)."""
    return " ".join(text.casefold().split())


def same_text(first: str, second: str) -> bool:
    """Exactly the same observation, ignoring case and spacing: no judge needed."""
    return _plain(first) == _plain(second)


def judge_candidates(judge: Judge, observation: Observation, group: upsert_store.Group,
                     min_certainty: float) -> list[Judged]:
    """How ``observation`` relates to each memory of ``group``, in its order: an exact repeat, or the
    judges' verdict.

    The candidates that are not the same text go to the judges in one call. A ``reinforce`` or
    ``contradict`` the judge is unsure of is acted on as distinct and marked ``unsure`` (its
    decision is kept, for the history and the review queue).
    """
    plain = _plain(observation.text)
    plains = list(map(_plain, group.texts))
    repeats = {position for position, text in enumerate(plains) if text == plain} if plain in plains else set()
    others = [position for position in range(len(plains)) if position not in repeats] if repeats else None
    texts = group.texts if others is None else [group.texts[position] for position in others]
    if not texts:
        return [REPEATED] * len(plains)
    verdicts = judge(observation.text, texts, observation.service, observation.category)
    acted = convert_each_once(partial(_acted_on, min_certainty=min_certainty), verdicts)
    if others is None:
        return acted
    judged = [REPEATED] * len(plains)
    for position, found in zip(others, acted, strict=True):
        judged[position] = found
    return judged


@lru_cache(maxsize=4096)
def _acted_on(verdict: JudgeVerdict, min_certainty: float) -> Judged:
    """What the store does with a verdict, and the decision its history entry records.  Cached: most
    candidates of a large group get one of a few identical verdicts ("different facts", n % shared)."""
    decision = Decision(f"{verdict.judge} judge", verdict.certainty, verdict.reason or None)
    relation = acted_relation(verdict, min_certainty)
    return Judged(relation, decision, unsure=relation != verdict.relation)


def _reinforces(judged: Judged) -> bool:
    return judged.relation == "reinforce"


def _contradicts(judged: Judged) -> bool:
    return judged.relation == "contradict"


def _unsure(judged: Judged) -> bool:
    return judged.unsure


def record_observation(judge: Judge, observation: Observation, settings: MemorySettings,
                       touched_this_session: frozenset[int] = frozenset()) -> UpsertResult:
    """Store ``observation`` by the rules in the module docstring; the writes are one transaction.

    ``touched_this_session`` holds the ids this session already created, reinforced or
    reactivated; restating one of them is reported as ``repeated`` and writes nothing.
    """
    if observation.citation is not None:
        cited = _record_cited(observation, observation.citation, settings, touched_this_session)
        if cited is not None:
            return cited
    judged: dict[int, Judged] = {}
    rounds = 0
    while True:
        rounds += 1
        group = upsert_store.active_group(observation.service, observation.category)
        newcomers = _newcomers(group, judged)
        fresh = judge_candidates(judge, observation, newcomers, settings.judge_min_certainty)
        judged.update(zip(newcomers.ids, fresh, strict=True))
        # the group's, in its order (most trusted first): the fresh ones when none was judged before
        verdicts = fresh if newcomers is group else list(map(judged.__getitem__, group.ids))
        kinds = distinct(verdicts)
        reinforcing = positions_where(_reinforces, verdicts, kinds)
        target = group.candidate(reinforcing[0]) if reinforcing else None
        if target is not None and target.id in touched_this_session:
            repeated = upsert_store.get(target.id)
            if repeated is not None:  # else it vanished meanwhile: the write below finds nothing to reinforce
                return UpsertResult("repeated", repeated)
        with db.atomic():
            upsert_store.lock_group(observation.service, observation.category)
            appeared = set(upsert_store.active_ids(observation.service, observation.category)) - judged.keys()
            if appeared and rounds < MAX_ROUNDS:
                continue  # a memory appeared while judging: judge it (outside this transaction) and try again
            if appeared:
                log.warning("memory group [%s:%s] kept changing while an observation was judged; recording it "
                            "without judging the newest memories", observation.category,
                            observation.service or "general")
            return _write_judged(observation, settings, group, verdicts, kinds, target)


def _newcomers(group: upsert_store.Group, judged: dict[int, Judged]) -> upsert_store.Group:
    """The memories of ``group`` not judged yet (all of them in the first round)."""
    if not judged:
        return group
    fresh = [position for position, memory_id in enumerate(group.ids) if memory_id not in judged]
    return upsert_store.Group([group.ids[position] for position in fresh],
                              [group.texts[position] for position in fresh])


def _write_judged(observation: Observation, settings: MemorySettings, group: upsert_store.Group,
                  verdicts: list[Judged], kinds: list[Judged], target: upsert_store.Candidate | None) -> UpsertResult:
    """The writes of a judged observation (inside the caller's transaction), each with its history entry;
    ``verdicts`` holds each memory of ``group``'s judgement, in the group's order, ``kinds`` each distinct one.

    A new memory stored because the judge was unsure about a candidate is flagged for review,
    with that candidate (the most trusted one, if several) and the unsure verdict.
    """
    result: UpsertResult | None = None
    if target is not None:
        change = upsert_store.reinforce(target.id, settings.reinforce_step, observation.now)
        if change is not None:
            history.record_change("reinforced", observation.actor, observation.now, before=change.before,
                                  after=change.after, decision=verdicts[group.ids.index(target.id)].decision)
            result = UpsertResult("reinforced", change.after)
    if result is None:
        unsure = positions_where(_unsure, verdicts, kinds)
        if not unsure:
            result = _store_new(observation, settings, decision=_new_fact(group, verdicts, kinds))
        else:
            unsure_of = group.candidate(unsure[0])
            stored = _store_new(observation, settings, decision=verdicts[unsure[0]].decision, related=unsure_of.id,
                                needs_review=True)
            result = replace(stored, unsure_of=unsure_of)
    weakened = []
    for position in positions_where(_contradicts, verdicts, kinds):
        change = upsert_store.weaken(group.ids[position], settings.contradict_step, settings.min_confidence)
        if change is not None:
            history.record_change("contradicted", observation.actor, observation.now, before=change.before,
                                  after=change.after, decision=verdicts[position].decision,
                                  related=result.memory.id, needs_review=True)
            weakened.append(change.after)
    return replace(result, contradicted=tuple(weakened))


QUOTED_CHARS = 200
"""How much of the agent's wording a citation's history entry quotes."""

SHOWN_CANDIDATES = 5
"""How many judged candidates a new memory's history entry names before "and N more"."""


def _quoted(text: str) -> str:
    return repr(text if len(text) <= QUOTED_CHARS else text[:QUOTED_CHARS - 1] + "…")


def _new_fact(group: upsert_store.Group, verdicts: list[Judged], kinds: list[Judged]) -> Decision:
    """Why an observation became a new memory beside its group: the judges' verdicts on each candidate.

    Without candidates nothing was decided (:data:`history.NO_DECISION`); with them, the entry
    names the judges, the least certainty among their verdicts, and the candidates with the
    relation each was given, so "why is this a new memory?" has an answer in the history.
    """
    if not group.ids:
        return history.NO_DECISION
    decisions = [judged.decision for judged in kinds]  # the judges and the least certainty: each once is enough
    judges = sorted({decision.decided_by for decision in decisions if decision.decided_by})
    certainties = [decision.certainty for decision in decisions if decision.certainty is not None]
    named = [f"#{memory_id} {judged.relation}"
             for memory_id, judged in zip(group.ids[:SHOWN_CANDIDATES], verdicts, strict=False)]
    if len(group.ids) > SHOWN_CANDIDATES:
        named.append(f"and {len(group.ids) - SHOWN_CANDIDATES} more")
    return Decision(" + ".join(judges) or None, min(certainties, default=None),
                    f"a new fact beside {', '.join(named)}")


def _store_new(observation: Observation, settings: MemorySettings, *, decision: Decision = history.NO_DECISION,
               related: int | None = None, needs_review: bool = False) -> UpsertResult:
    """Reactivate an inactive memory with the same text, or insert a new one; with its history entry."""
    duplicate = upsert_store.inactive_duplicate(observation.service, observation.category, observation.text)
    if duplicate is not None:
        memory = upsert_store.reactivate(duplicate, settings.default_confidence, observation.now)
        history.record_change("reactivated", observation.actor, observation.now, before=duplicate, after=memory,
                              decision=EXACT_REPEAT if decision.decided_by is None else decision, related=related,
                              needs_review=needs_review)
        return UpsertResult("reactivated", memory)
    memory = upsert_store.insert(
        service=observation.service, category=observation.category, observation=observation.text,
        confidence=settings.default_confidence, min_confidence=settings.min_confidence,
        session_id=observation.session_id, tier=observation.tier, now=observation.now)
    history.record_change("created", observation.actor, observation.now, after=memory, decision=decision,
                          related=related, needs_review=needs_review)
    return UpsertResult("created", memory)


def _record_cited(observation: Observation, citation: Citation, settings: MemorySettings,
                  touched_this_session: frozenset[int]) -> UpsertResult | None:
    """Apply a citation that counts; ``None`` when the cited memory vanished meanwhile (then it is judged)."""
    decision = Decision(CITATION, reason=f"{citation.text} in the agent's marker: {_quoted(observation.text)}")
    if citation.verb == "confirms":
        if citation.memory_id in touched_this_session:
            cited = upsert_store.get(citation.memory_id)
            if cited is not None:
                log.info("memory #%d was already reinforced in this session; %s %s counted once",
                         cited.id, _quoted(observation.text), citation.text)
            return None if cited is None else UpsertResult("repeated", cited)
        with db.atomic():
            change = upsert_store.reinforce(citation.memory_id, settings.reinforce_step, observation.now)
            if change is None:
                return None
            history.record_change("reinforced", observation.actor, observation.now, before=change.before,
                                  after=change.after, decision=decision)
            return UpsertResult("reinforced", change.after)
    with db.atomic():
        upsert_store.lock_group(observation.service, observation.category)
        change = upsert_store.weaken(citation.memory_id, settings.contradict_step, settings.min_confidence)
        if change is None:
            return None
        successor = _store_new(observation, settings, decision=decision, related=citation.memory_id)
        history.record_change("replaced", observation.actor, observation.now, before=change.before,
                              after=change.after, decision=decision, related=successor.memory.id,
                              needs_review=True)
        return UpsertResult(successor.action, successor.memory, replaced=change.after)


def hold_back_observation(observation: Observation, settings: MemorySettings, reason: str) -> UpsertResult:
    """Store ``observation`` inactive with a flag saying ``reason``, and its history entry; one transaction.

    The same text already held back for the same service and category is not stored twice
    (``repeated``), so repeating an injected order does not flood the operator's review.
    """
    with db.atomic():
        existing = upsert_store.flagged_duplicate(observation.service, observation.category, observation.text)
        if existing is not None:
            return UpsertResult("repeated", existing)
        memory = upsert_store.insert(
            service=observation.service, category=observation.category, observation=observation.text,
            confidence=settings.default_confidence, min_confidence=settings.min_confidence,
            session_id=observation.session_id, tier=observation.tier, now=observation.now, active=False)
        flags.flag_memory(memory.id, reason, observation.now)
        history.record_change("created", observation.actor, observation.now, after=memory,
                              decision=Decision("held back", reason=reason), needs_review=True)
        return UpsertResult("flagged", memory)
