"""Recording an observation: reinforce the same fact, contradict a conflicting one, or add a new one.

The candidates are the *active* memories with the same category and the same service (a general
memory, ``service IS NULL``, only meets other general memories). The relation judge — the
``judge_memory_relation`` hook, ``firstresult``, with the plugin's offline default last — is
asked about each candidate, most trusted first:

* ``reinforce`` (same fact, however phrased): the first such memory gains ``reinforce_step``
  (capped at 1.0) and its ``updated_at`` is refreshed; no row is added.
* ``contradict`` (same subject, conflicting conclusion): that memory loses ``contradict_step``
  and is deactivated below the threshold; its ``updated_at`` is kept (it was not reinforced).
  Every contradicted candidate is weakened, even when another one is reinforced: the new
  observation is evidence against all of them.
* otherwise (``distinct``): the candidate is left alone.

A memory is reinforced at most once per session: an observation that the same session already
recorded or reinforced (restated in a final summary, say) changes nothing, because repeating
oneself is not new evidence. The caller passes the ids this session already touched.

When nothing was reinforced, the observation becomes a memory at ``default_confidence``. If an
inactive memory of the same service and category has the same text (ignoring case), that
memory is reactivated at ``default_confidence`` instead, keeping its id, ``created_at`` and
provenance, so re-recording a forgotten fact is neither a silent no-op nor a duplicate.

The judge runs before the write transaction opens (a plugged-in LLM judge may take seconds and
must not hold the database lock); the writes then run in one transaction and tolerate a
candidate deleted or deactivated meanwhile.

An observation that reads as an instruction to the agent takes another way,
:func:`hold_back_observation`: it is stored inactive and flagged, and judged against nothing, so
it can neither reinforce, contradict nor reactivate anything an operator has not reviewed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from claudeops import db
from claudeops_memory import flags, upsert_store
from claudeops_memory.repository import MemoryRecord
from claudeops_memory.settings import MemorySettings

log = logging.getLogger(__name__)

RELATIONS = ("reinforce", "contradict", "distinct")

Judge = Callable[..., "str | None"]
"""``judge(existing=…, new=…, service=…, category=…)`` — the ``judge_memory_relation`` hook caller."""


@dataclass(frozen=True)
class Observation:
    """A memory as the agent stated it, already valid: a known category, a normalised service (or
    ``None``) and one line of text within ``memory.max_observation_chars`` (see ``markers``)."""

    category: str
    service: str | None
    text: str
    session_id: int | None
    tier: int
    now: str


@dataclass(frozen=True)
class UpsertResult:
    """What recording one observation did: ``created``, ``reinforced``, ``reactivated`` or ``repeated``;
    for an observation held back, ``flagged`` (a new inactive memory) or ``repeated`` (already flagged)."""

    action: str
    memory: MemoryRecord
    contradicted: tuple[MemoryRecord, ...] = field(default=())


def same_text(first: str, second: str) -> bool:
    """Exactly the same observation, ignoring case and spacing: no judge needed."""
    return " ".join(first.casefold().split()) == " ".join(second.casefold().split())


def judge_candidates(judge: Judge, observation: Observation,
                     candidates: list[MemoryRecord]) -> tuple[MemoryRecord | None, list[MemoryRecord]]:
    """The candidate to reinforce (if any) and every candidate the observation contradicts."""
    reinforced: MemoryRecord | None = None
    contradicted: list[MemoryRecord] = []
    for candidate in candidates:
        if same_text(candidate.observation, observation.text):
            relation: str | None = "reinforce"
        else:
            relation = judge(existing=candidate.observation, new=observation.text,
                             service=observation.service, category=observation.category)
        if relation not in RELATIONS:
            if relation is not None:
                log.warning("memory relation judge answered %r (expected one of %s); treating it as distinct",
                            relation, ", ".join(RELATIONS))
            relation = "distinct"
        if relation == "reinforce" and reinforced is None:
            reinforced = candidate
        elif relation == "contradict":
            contradicted.append(candidate)
    return reinforced, contradicted


def record_observation(judge: Judge, observation: Observation, settings: MemorySettings,
                       touched_this_session: frozenset[int] = frozenset()) -> UpsertResult:
    """Store ``observation`` by the rules in the module docstring; one transaction.

    ``touched_this_session`` holds the ids this session already created, reinforced or
    reactivated; restating one of them is reported as ``repeated`` and writes nothing.
    """
    candidates = upsert_store.active_group(observation.service, observation.category)
    target, contradicted = judge_candidates(judge, observation, candidates)
    if target is not None and target.id in touched_this_session:
        return UpsertResult("repeated", target)
    with db.atomic():
        weakened = tuple(memory for candidate in contradicted
                         if (memory := upsert_store.weaken(candidate.id, settings.contradict_step,
                                                         settings.min_confidence)) is not None)
        if target is not None:
            memory = upsert_store.reinforce(target.id, settings.reinforce_step, observation.now)
            if memory is not None:
                return UpsertResult("reinforced", memory, weakened)
        duplicate = upsert_store.inactive_duplicate(observation.service, observation.category, observation.text)
        if duplicate is not None:
            memory = upsert_store.reactivate(duplicate, settings.default_confidence, observation.now)
            return UpsertResult("reactivated", memory, weakened)
        memory = upsert_store.insert(
            service=observation.service, category=observation.category, observation=observation.text,
            confidence=settings.default_confidence, min_confidence=settings.min_confidence,
            session_id=observation.session_id, tier=observation.tier, now=observation.now)
        return UpsertResult("created", memory, weakened)


def hold_back_observation(observation: Observation, settings: MemorySettings, reason: str) -> UpsertResult:
    """Store ``observation`` inactive with a flag saying ``reason``; one transaction.

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
        return UpsertResult("flagged", memory)
