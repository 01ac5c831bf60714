"""Recording an observation: reinforce the same fact, contradict a conflicting one, or add a new one.

The candidates are the *active* memories with the same category and the same service (a general
memory, ``service IS NULL``, only meets other general memories). The judges (``judging``: the
``judge_memory_relations`` hook for the whole group, then ``judge_memory_relation`` per pair, with
the plugin's offline judge last) give a verdict on each candidate that is not the same text; a
``reinforce`` or ``contradict`` below ``memory.judge_min_certainty`` counts as ``distinct``. Most
trusted candidate first:

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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from claudeops import db
from claudeops_memory import upsert_store
from claudeops_memory.judging import acted_relation
from claudeops_memory.repository import MemoryRecord
from claudeops_memory.settings import MemorySettings
from claudeops_memory.verdict import JudgeVerdict

Judge = Callable[[str, list[str], "str | None", str], list[JudgeVerdict]]
"""``judge(new, existing_texts, service, category)``: one verdict per existing text (``judging.Judges``)."""


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
    """What recording one observation did: ``created``, ``reinforced``, ``reactivated`` or ``repeated``."""

    action: str
    memory: MemoryRecord
    contradicted: tuple[MemoryRecord, ...] = field(default=())


def same_text(first: str, second: str) -> bool:
    """Exactly the same observation, ignoring case and spacing: no judge needed."""
    return " ".join(first.casefold().split()) == " ".join(second.casefold().split())


def judge_candidates(judge: Judge, observation: Observation, candidates: list[MemoryRecord],
                     min_certainty: float) -> tuple[MemoryRecord | None, list[MemoryRecord]]:
    """The candidate to reinforce (if any) and every candidate the observation contradicts."""
    judged = [candidate for candidate in candidates if not same_text(candidate.observation, observation.text)]
    verdicts = dict(zip((candidate.id for candidate in judged),
                        judge(observation.text, [candidate.observation for candidate in judged],
                              observation.service, observation.category), strict=True))
    reinforced: MemoryRecord | None = None
    contradicted: list[MemoryRecord] = []
    for candidate in candidates:
        verdict = verdicts.get(candidate.id)
        relation = "reinforce" if verdict is None else acted_relation(verdict, min_certainty)
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
    target, contradicted = judge_candidates(judge, observation, candidates, settings.judge_min_certainty)
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
