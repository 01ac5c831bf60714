"""Reads and writes of the ``memories`` table for the CLI and the dashboard.

Functions take plain values and return :class:`MemoryRecord` snapshots, never live models, so
callers cannot write behind the rules. They open no connection of their own: the runner and
the CLI already hold one, and a web handler wraps its calls in ``db.connection_context()``.
Writes run in ``db.atomic()`` (``BEGIN IMMEDIATE`` on SQLite); an edit reads and writes inside
that one transaction, and bulk confidence changes are single UPDATE statements, so a
concurrent writer (the dashboard and a cron session) never loses an update. The statements a
marker runs to find and adjust its candidates, or to add its memory, are in
:mod:`claudeops_memory.upsert_store`.

Rules every write follows (SPEC-0015): confidence clamped to [0, 1] and rounded to 2 decimals;
a memory is active only while its confidence is at least the threshold (0.3 by default);
``updated_at`` means "last reinforced or edited" and is what staleness decay counts from.

Every write appends its history entry (:mod:`claudeops_memory.history`) in its transaction:
the actor is the operator unless the caller says otherwise (a review), and a deletion keeps
the whole row in its entry, so the memory can be restored until it is purged.
No observation is stored with a secret in it (:func:`validate_observation` redacts), and a
flagged memory (:mod:`claudeops_memory.flags`) is activated only explicitly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

import peewee

from claudeops import db, is_row_id, now_timestamp, redact, service_name, text_problem
from claudeops_memory import flags, history, listing, upsert_store
from claudeops_memory.confidence import active_sql, clamp_confidence, confidence_sql, is_active_confidence
from claudeops_memory.context import plan_memory_context
from claudeops_memory.history import OPERATOR, Actor
from claudeops_memory.listing import MemoryFilter
from claudeops_memory.models import (
    ACTIVE,
    CATEGORIES,
    GENERAL,
    INACTIVE,
    Memory,
    MemoryChangeRow,
    MemoryDecay,
    MemoryRecord,
    same_service,
)
from claudeops_memory.settings import DEFAULT_CONFIDENCE, MAX_OBSERVATION_CHARS, MIN_CONFIDENCE

__all__ = [
    "CATEGORIES",
    "GENERAL",
    "MAX_OBSERVATION_CHARS",
    "MemoryRecord",
    "adjust_confidence",
    "count_memories",
    "create_memory",
    "delete_memories",
    "get_memory",
    "injection_reason",
    "injection_status",
    "list_memories",
    "list_services",
    "memory_counts",
    "update_memory",
]

_IDS_PER_STATEMENT = 500
"""Most ids one ``IN (...)`` list carries: each is a bound parameter, and SQLite caps their number."""


# --------------------------------------------------------------------------- validation


def normalise_observation(text: str) -> str:
    """One line with single spaces: newlines or runs of blanks could break the injected block."""
    return " ".join(text.split())


def validate_category(category: str) -> str:
    if category not in CATEGORIES:
        raise ValueError(f"unknown memory category {category!r} (expected one of: {', '.join(CATEGORIES)})")
    return category


def normalise_service(service: str | None) -> str | None:
    """``None``, blank or ``general`` mean a general memory; anything else is a service name.

    The one service-name rule (:func:`claudeops.service_name`, SPEC-0015's characters, at most
    100 of them, lower-cased as events and cooldowns store theirs), so ``Jellyfin`` and
    ``jellyfin`` are one service for reinforcement, filters and the context's headings.
    """
    if service is None or not service.strip() or service.strip().lower() == GENERAL:
        return None
    return service_name(service)


def validate_observation(text: str, max_chars: int = MAX_OBSERVATION_CHARS) -> str:
    """One line, secrets redacted (the callers that can record a warning event redacted it already)."""
    if (problem := text_problem(text)) is not None:
        raise ValueError(f"the observation is {problem}")
    observation = normalise_observation(redact(text))
    if not observation:
        raise ValueError("the observation must not be empty")
    if len(observation) > max_chars:
        raise ValueError(f"the observation has {len(observation)} characters; the limit is {max_chars}")
    return observation


def _id_chunks(ids: Iterable[int]) -> Iterable[list[int]]:
    """The distinct ``ids`` in order, in lists short enough for one statement each.

    Numbers that cannot be an id are dropped: they match no memory anyway, and SQLite could not bind them.
    """
    return peewee.chunked(sorted({memory_id for memory_id in ids if is_row_id(memory_id)}), _IDS_PER_STATEMENT)


# --------------------------------------------------------------------------- reads


def _filtered(service: str | None, category: str | None, include_inactive: bool,
              only_inactive: bool, session_id: int | None = None) -> peewee.ModelSelect[Memory]:
    query = Memory.select()
    if session_id is not None:
        query = query.where(Memory.session_id == session_id)
    if service is not None:
        query = query.where(same_service(normalise_service(service)))
    if category is not None:
        query = query.where(Memory.category == category)
    if only_inactive:
        query = query.where(INACTIVE)
    elif not include_inactive:
        query = query.where(ACTIVE)
    return query


def memory_filter(*, service: str | None = None, category: str | None = None, include_inactive: bool = True,
                  only_inactive: bool = False, session_id: int | None = None) -> MemoryFilter:
    """The filters of :func:`list_memories` as a :class:`~claudeops_memory.listing.MemoryFilter`."""
    return MemoryFilter(normalise_service(service) if service is not None else None, service is None, category,
                        include_inactive, only_inactive, session_id)


def list_memories(*, service: str | None = None, category: str | None = None, include_inactive: bool = True,
                  only_inactive: bool = False, session_id: int | None = None, limit: int | None = None,
                  offset: int = 0) -> list[MemoryRecord]:
    """Memories matching the filters, most trusted first (confidence, then newest id, descending).

    ``service="general"`` selects memories without a service. Inactive memories are included
    unless ``include_inactive`` is false; ``only_inactive`` selects nothing else. ``session_id``
    selects the memories that session recorded first.
    """
    wanted = memory_filter(service=service, category=category, include_inactive=include_inactive,
                           only_inactive=only_inactive, session_id=session_id)
    return listing.list_page(wanted, limit, offset)


def count_memories(*, service: str | None = None, category: str | None = None, include_inactive: bool = True,
                   only_inactive: bool = False) -> int:
    """How many memories :func:`list_memories` would return without a limit."""
    return listing.count(memory_filter(service=service, category=category, include_inactive=include_inactive,
                                       only_inactive=only_inactive))


def _row(memory_id: int) -> Memory | None:
    """The row with ``memory_id``, or None; an impossible id (0, 2**64) is simply not found."""
    return Memory.get_or_none(Memory.id == memory_id) if is_row_id(memory_id) else None


def count_listed_before(memory: MemoryRecord, *, service: str | None = None, category: str | None = None) -> int:
    """How many memories :func:`list_memories` (these filters, inactive included) lists before ``memory``.

    The dashboard uses it to open the page on which a memory just added appears.
    """
    ahead = (Memory.confidence > memory.confidence) | ((Memory.confidence == memory.confidence)
                                                       & (Memory.id > memory.id))
    return _filtered(service, category, True, False).where(ahead).count()


def get_memory(memory_id: int) -> MemoryRecord | None:
    row = _row(memory_id)
    return None if row is None else MemoryRecord.from_model(row)


def existing_ids(ids: Iterable[int]) -> set[int]:
    """Which of ``ids`` name a stored memory."""
    found: set[int] = set()
    for chunk in _id_chunks(ids):
        found.update(row.id for row in Memory.select(Memory.id).where(Memory.id.in_(chunk)))
    return found


def list_services() -> list[str]:
    """Every service some memory is about, sorted (general memories are not a service).

    Hand-written: the dashboard's filter asks for it on every read of the memories, and peewee building
    the statement cost ten times the statement (an index on ``service`` serves it)."""
    rows = db.execute_sql("SELECT DISTINCT service FROM memories WHERE service IS NOT NULL ORDER BY service")
    return [service for (service,) in rows.fetchall()]


def memory_counts() -> tuple[int, int]:
    """(active, inactive) memory counts, for summary cards: one grouped COUNT, not one per state."""
    query = (Memory.select(Memory.active, peewee.fn.COUNT(Memory.id)).where(ACTIVE | INACTIVE)
             .group_by(Memory.active))
    # peewee's stubs type .tuples() as the model query
    counts = dict(cast("Iterable[tuple[bool, int]]", query.tuples()))
    return counts.get(True, 0), counts.get(False, 0)


def injection_status(memories: Iterable[MemoryRecord], budget_tokens: int, min_confidence: float = MIN_CONFIDENCE,
                     flagged: Mapping[int, str] | None = None) -> dict[int, str]:
    """Why each of ``memories`` is or is not in the prompt now: ``injected``, ``over budget`` (a
    more trusted memory took the room), ``below threshold`` (its confidence is too low, active or
    not) or ``inactive`` (switched off although its confidence would qualify).

    A flagged memory (held back until an operator activates it) is ``flagged``, whatever its confidence.

    The status is computed from the records the caller has just loaded (a dashboard page, an API
    answer), so the rows are not read twice; only the prompt's plan and the flags are queried (the flags
    only when the caller has not read them already: ``flagged``, the inactive ones' :func:`flags.flag_reasons`).
    """
    memories = list(memories)
    if not memories:
        return {}
    injected = plan_memory_context(budget_tokens, min_confidence).injected_ids
    if flagged is None:
        flagged = flags.flag_reasons(memory.id for memory in memories if not memory.active)
    status: dict[int, str] = {}
    for memory in memories:
        if memory.id in flagged:
            status[memory.id] = "flagged"
        elif not is_active_confidence(memory.confidence, min_confidence):
            status[memory.id] = "below threshold"
        elif not memory.active:
            status[memory.id] = "inactive"
        else:
            status[memory.id] = "injected" if memory.id in injected else "over budget"
    return status


def injection_reason(memory: MemoryRecord, budget_tokens: int, min_confidence: float = MIN_CONFIDENCE) -> str:
    """Why one memory is or is not in the prompt now, with its rank when the budget cut it:
    ``injected``, ``inactive``, ``below threshold`` or ``cut by the budget at rank K``.

    K is its place in the trust order (confidence, then newest first) among the memories that
    qualify; the block holds a prefix of that order, so every memory from K on is cut.
    """
    status = injection_status([memory], budget_tokens, min_confidence)[memory.id]
    if status != "over budget":
        return status
    ahead = (Memory.confidence > memory.confidence) | ((Memory.confidence == memory.confidence)
                                                       & (Memory.id > memory.id))
    rank = Memory.select().where(ACTIVE, Memory.confidence >= clamp_confidence(min_confidence), ahead).count() + 1
    return f"cut by the budget at rank {rank}"


# --------------------------------------------------------------------------- writes


def create_memory(*, category: str, observation: str, service: str | None = None,
                  confidence: float = DEFAULT_CONFIDENCE, session_id: int | None = None, tier: int = 1,
                  now: str | None = None, min_confidence: float = MIN_CONFIDENCE,
                  max_chars: int = MAX_OBSERVATION_CHARS, actor: Actor = OPERATOR) -> MemoryRecord:
    """Insert a memory; ``ValueError`` (one line) for a bad category, service or observation.

    The confidence is clamped; the memory starts active unless it is below the threshold.
    """
    category = validate_category(category)
    text = validate_observation(observation, max_chars)
    service = normalise_service(service)
    stamp = now or now_timestamp()
    with db.atomic():
        memory = upsert_store.insert(service=service, category=category, observation=text, confidence=confidence,
                                     min_confidence=min_confidence, session_id=session_id, tier=tier, now=stamp)
        history.record_change("created", actor, stamp, after=memory)
        return memory


def update_memory(memory_id: int, *, observation: str | None = None, confidence: float | None = None,
                  active: bool | None = None, now: str | None = None, min_confidence: float = MIN_CONFIDENCE,
                  max_chars: int = MAX_OBSERVATION_CHARS, actor: Actor = OPERATOR) -> MemoryRecord:
    """Edit a memory as an operator does; ``KeyError`` if it does not exist.

    Refreshes ``updated_at``. A given confidence is clamped, and (unless ``active`` is given)
    decides the flag: at or above the threshold reactivates, below deactivates — except for a
    flagged memory, which only ``active=True`` activates (removing its flag). Asking for an
    active memory below the threshold is a ``ValueError``: it could never be injected.
    """
    text = None if observation is None else validate_observation(observation, max_chars)
    value = None if confidence is None else clamp_confidence(confidence)
    stamp = now or now_timestamp()
    with db.atomic():
        row = _row(memory_id)
        if row is None:
            raise KeyError(f"no memory with id {memory_id}")
        before = MemoryRecord.from_model(row)
        final_confidence = row.confidence if value is None else value
        flagged = flags.is_flagged(memory_id)
        if active is None:
            active = row.active if value is None or flagged else is_active_confidence(value, min_confidence)
        elif active and not is_active_confidence(final_confidence, min_confidence):
            raise ValueError(f"memory #{memory_id} has confidence {final_confidence}, below the "
                             f"{clamp_confidence(min_confidence)} threshold; raise its confidence to activate it")
        if active and flagged:
            flags.unflag_memory(memory_id)  # the operator activated it: reviewed
        changes: dict[Any, Any] = {Memory.updated_at: stamp, Memory.active: active}
        if text is not None:
            changes[Memory.observation] = text
        if value is not None:
            changes[Memory.confidence] = value
        Memory.update(changes).where(Memory.id == memory_id).execute()
        after = MemoryRecord.from_model(Memory.get_by_id(memory_id))
        history.record_change(edit_kind(before, after), actor, stamp, before=before, after=after)
        return after


def edit_kind(before: MemoryRecord, after: MemoryRecord) -> str:
    """How the history names an edit: ``deactivated`` or ``reactivated`` when the state flipped, else ``edited``."""
    if before.active and not after.active:
        return "deactivated"
    if after.active and not before.active:
        return "reactivated"
    return "edited"


def decay_ledger_entry(memory_id: int) -> tuple[str, int] | None:
    """The memory's row of the decay ledger (``base_updated_at``, ``weeks_applied``), kept with a deleted memory."""
    row = MemoryDecay.get_or_none(MemoryDecay.memory_id == memory_id)
    return None if row is None else (row.base_updated_at, row.weeks_applied)


def delete_memories(ids: Sequence[int], *, now: str | None = None, actor: Actor = OPERATOR) -> int:
    """Delete memories (their decay ledger rows go with them); returns how many.

    Each deletion is a ``deleted`` history entry holding the whole row, from which the memory can
    be restored (``memories restore``) until it is purged.
    """
    stamp = now or now_timestamp()
    deleted = 0
    with db.atomic():
        for chunk in _id_chunks(ids):
            for row in Memory.select().where(Memory.id.in_(chunk)).order_by(Memory.id):
                memory = MemoryRecord.from_model(row)
                snapshot = history.removal_snapshot(memory, decay_ledger_entry(memory.id))
                history.record_change("deleted", actor, stamp, before=memory, snapshot=snapshot)
            deleted += Memory.delete().where(Memory.id.in_(chunk)).execute()
    return deleted


def delete_all_or_none(ids: Iterable[int]) -> int:
    """Delete every memory of ``ids``, or none of them when any is unknown (``KeyError`` naming those).

    The CLI, the API and the dashboard treat a list with a wrong id alike: nothing is deleted, so
    a typo or a stale selection never deletes half of what the operator meant.
    """
    wanted = sorted(set(ids))
    with db.atomic():
        unknown = sorted(set(wanted) - existing_ids(wanted))
        if unknown:
            named = ", ".join(map(str, unknown[:10])) + (f" and {len(unknown) - 10} more" if len(unknown) > 10 else "")
            raise KeyError(f"no memory with id {named}; nothing deleted")
        return delete_memories(wanted)


def adjust_confidence(ids: Sequence[int], delta: float, now: str | None = None,
                      min_confidence: float = MIN_CONFIDENCE, actor: Actor = OPERATOR) -> int:
    """Add ``delta`` to the confidence of several memories at once (clamped, rounded).

    Each memory is then active exactly when its new confidence reaches the threshold (a flagged
    memory stays inactive: only an explicit activation lifts a flag), and its ``updated_at`` is
    refreshed. Returns how many memories changed; each change is a history
    entry, written from the same expressions as the UPDATE.
    """
    stamp = now or now_timestamp()
    new_confidence = confidence_sql(Memory.confidence + delta)
    flagged = Memory.id.in_(flags.MemoryFlag.select(flags.MemoryFlag.memory_id))
    new_active = peewee.Case(None, ((flagged, 0),), active_sql(new_confidence, min_confidence))
    changed = 0
    with db.atomic():
        for chunk in _id_chunks(ids):
            _record_adjustments(chunk, new_confidence, new_active, stamp, actor)
            query = Memory.update({Memory.confidence: new_confidence, Memory.active: new_active,
                                   Memory.updated_at: stamp})
            changed += query.where(Memory.id.in_(chunk)).execute()
    return changed


def _record_adjustments(chunk: list[int], new_confidence: peewee.ColumnBase, new_active: peewee.ColumnBase,
                        now: str, actor: Actor) -> None:
    """The history entries of one bulk confidence change, one per memory (``INSERT … SELECT``)."""
    kind = peewee.Case(None, ((Memory.active > new_active, "deactivated"), (Memory.active < new_active,
                                                                            "reactivated")), "edited")
    rows = Memory.select(Memory.id, peewee.Value(now), kind, peewee.Value(actor.kind), Memory.confidence,
                         new_confidence, Memory.active, new_active, Memory.updated_at,
                         peewee.Value(now)).where(Memory.id.in_(chunk))
    MemoryChangeRow.insert_from(rows, [
        MemoryChangeRow.memory_id, MemoryChangeRow.changed_at, MemoryChangeRow.kind, MemoryChangeRow.actor,
        MemoryChangeRow.old_confidence, MemoryChangeRow.new_confidence, MemoryChangeRow.old_active,
        MemoryChangeRow.new_active, MemoryChangeRow.old_updated_at, MemoryChangeRow.new_updated_at,
    ]).as_rowcount().execute()
