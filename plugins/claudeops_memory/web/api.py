"""The memories part of the JSON API (``/api/v1/memories``): the same operations as the page.

Request bodies are typed, so the generated OpenAPI schema documents them; the repository still
owns the rules (clamping, reactivation, validation) and its ``ValueError`` becomes a 400 with
its one-line message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from claudeops_web.context import WebContext
from claudeops_web.pagination import ApiLimit, ApiOffset, OffsetPagination
from claudeops_web.rendering import operator_errors
from litestar import delete, get, patch, post
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException, ValidationException
from litestar.params import FromPath, JSONBody, Parameter, QueryParameter

from claudeops import MAX_ROW_ID, MAX_SERVICE_LENGTH, db, now_timestamp, time_bucket
from claudeops_memory import repository
from claudeops_memory.change_stamp import by_memories
from claudeops_memory.decay import outlooks
from claudeops_memory.decay_policy import DecayPolicy
from claudeops_memory.flags import flag_reasons
from claudeops_memory.models import CATEGORIES
from claudeops_memory.operator_text import warn_if_redacted, without_secrets
from claudeops_memory.pins import PinResult, pin_memory, unpin_memory
from claudeops_memory.repository import MemoryRecord
from claudeops_memory.settings import MAX_OBSERVATION_CHARS, SECTION, MemorySettings
from claudeops_memory.web import forms


@dataclass(frozen=True, kw_only=True)
class MemoryOut(MemoryRecord):
    """A memory plus why it is (not) in the prompt now: injected, over budget, below threshold, inactive
    or flagged; for a flagged memory, ``flag`` says why it is held back until an operator activates it.
    ``next_decay_at`` is when its next week of staleness decay falls due and ``floor_at`` when decay
    would take it under the threshold, without a reinforcement meanwhile (both null when that never
    happens: pinned, inactive, a category that does not decay)."""

    injection: str
    flag: str | None = None
    pinned: bool = False
    next_decay_at: str | None = None
    floor_at: str | None = None


# What the OpenAPI document says each field accepts; the repository still enforces the rules
# with its own one-line messages (these annotations document, they do not validate).
Category = Annotated[str, Parameter(schema_extra={"enum": list(CATEGORIES)})]
Observation = Annotated[str, Parameter(pattern=r"\S", max_length=MAX_OBSERVATION_CHARS,
                                       description="not blank; at most memory.max_observation_chars characters")]
SERVICE_FILTER = f"^[A-Za-z0-9_-]{{0,{MAX_SERVICE_LENGTH}}}$"
"""A service name (SPEC-0015's characters), ``general``, or empty: what the service fields accept."""
Service = Annotated[str | None, Parameter(pattern=SERVICE_FILTER,
                                          description="a service; empty or 'general' for a general memory")]
MemoryIdList = Annotated[list[Annotated[int, Parameter(ge=1, schema_extra={"maximum": MAX_ROW_ID})]],
                         Parameter(min_items=1)]


@dataclass(frozen=True)
class MemoryIn:
    """A new operator memory; ``service`` null, empty or ``general`` means a general memory."""

    category: Category
    observation: Observation
    service: Service = None
    confidence: float | None = None


@dataclass(frozen=True)
class MemoryChange:
    """Any of the three (none changes nothing); a confidence at or above the threshold reactivates the memory."""

    observation: Observation | None = None
    confidence: float | None = None
    active: bool | None = None


@dataclass(frozen=True)
class MemoryIds:
    ids: MemoryIdList


@dataclass(frozen=True)
class ConfidenceAdjustment:
    ids: MemoryIdList
    delta: Annotated[float, Parameter(ge=-1, le=1)]


@dataclass(frozen=True)
class Affected:
    """How many memories an operation changed or deleted."""

    count: int


def _settings(web: WebContext) -> MemorySettings:
    settings: MemorySettings = web.section(SECTION)
    return settings


def _out(web: WebContext, memories: list[MemoryRecord]) -> list[MemoryOut]:
    settings = _settings(web)
    reasons = flag_reasons(memory.id for memory in memories if not memory.active)
    status = repository.injection_status(memories, settings.budget_tokens, settings.min_confidence, reasons)
    ahead = outlooks(memories, DecayPolicy.of(settings), now_timestamp())
    return [MemoryOut(**memory.as_row(), injection=status[memory.id], flag=reasons.get(memory.id),
                      pinned=memory.pinned, next_decay_at=ahead[memory.id].next_decay_at,
                      floor_at=ahead[memory.id].floor_at)
            for memory in memories]


def _one(web: WebContext, memory: MemoryRecord) -> MemoryOut:
    return _out(web, [memory])[0]


@get("/memories", sync_to_thread=True, tags=["memories"])
def list_memories(web: NamedDependency[WebContext],
                  service: Annotated[str | None, QueryParameter(description="a service, or 'general'",
                                                                schema_extra={"pattern": SERVICE_FILTER})] = None,
                  category: Annotated[str | None, QueryParameter(schema_extra={"enum": ["", *CATEGORIES]})] = None,
                  show: Annotated[str, QueryParameter(description="all, active or inactive",
                                                      schema_extra={"enum": ["", *forms.SHOW_CHOICES]})] = "all",
                  limit: ApiLimit = 50, offset: ApiOffset = 0) -> OffsetPagination[MemoryOut]:
    """Memories, most trusted first, with the same filters as the page."""
    filters: dict[str, Any] = {"service": forms.service_filter(service), "category": forms.category_filter(category),
                               **forms.visibility(forms.show_filter(show))}
    with db.connection_context(), operator_errors():
        return by_memories.get(("api-memories", *filters.items(), limit, offset,
                                time_bucket(web.settings.poll_seconds)),
                               lambda: _listed(web, filters, limit, offset), owner=web)


def _listed(web: WebContext, filters: dict[str, Any], limit: int, offset: int) -> OffsetPagination[MemoryOut]:
    memories = repository.list_memories(limit=limit, offset=offset, **filters)
    return OffsetPagination(items=_out(web, memories), total=repository.count_memories(**filters),
                            limit=limit, offset=offset)


def _existing(web: WebContext, memory_id: int) -> MemoryOut:
    with db.connection_context():
        memory = repository.get_memory(memory_id)
        if memory is None:
            raise NotFoundException(f"no memory with id {memory_id}")
        return _one(web, memory)


@get("/memories/{memory_id:int}", sync_to_thread=True, tags=["memories"], raises=[NotFoundException])
def get_memory(web: NamedDependency[WebContext], memory_id: FromPath[int]) -> MemoryOut:
    return _existing(web, memory_id)


@post("/memories", sync_to_thread=True, tags=["memories"])
def create_memory(web: NamedDependency[WebContext], data: JSONBody[MemoryIn]) -> MemoryOut:
    """Add an operator memory (``session_id`` null); confidence defaults to ``memory.default_confidence``."""
    settings = _settings(web)
    confidence = settings.default_confidence if data.confidence is None else data.confidence
    observation, secrets = without_secrets(data.observation)
    with db.connection_context(), operator_errors():
        memory = repository.create_memory(category=data.category, observation=observation or "",
                                          service=data.service, confidence=confidence, session_id=None,
                                          min_confidence=settings.min_confidence,
                                          max_chars=settings.max_observation_chars)
        warn_if_redacted(web.record_event, secrets, f"memory #{memory.id}, added by an operator through the API")
        return _one(web, memory)


@patch("/memories/{memory_id:int}", sync_to_thread=True, tags=["memories"], raises=[NotFoundException])
def update_memory(web: NamedDependency[WebContext], memory_id: FromPath[int],
                  data: JSONBody[MemoryChange]) -> MemoryOut:
    """Change observation, confidence (clamped to [0, 1]) or active; sending none of them changes nothing."""
    if data.observation is None and data.confidence is None and data.active is None:
        return _existing(web, memory_id)  # nothing to change, not even the time it was last updated
    settings = _settings(web)
    observation, secrets = without_secrets(data.observation)
    with db.connection_context(), operator_errors():
        memory = repository.update_memory(memory_id, observation=observation, confidence=data.confidence,
                                          active=data.active, min_confidence=settings.min_confidence,
                                          max_chars=settings.max_observation_chars)
        warn_if_redacted(web.record_event, secrets,
                         f"the new text of memory #{memory.id}, edited by an operator through the API")
        return _one(web, memory)


@delete("/memories/{memory_id:int}", sync_to_thread=True, tags=["memories"], raises=[NotFoundException])
def delete_memory(memory_id: FromPath[int]) -> None:
    """Delete one memory (restorable from its history until purged)."""
    with db.connection_context():
        if not repository.delete_memories([memory_id]):
            raise NotFoundException(f"no memory with id {memory_id}")


@post("/memories/delete", sync_to_thread=True, status_code=200, tags=["memories"], raises=[NotFoundException])
def delete_memories(data: JSONBody[MemoryIds]) -> Affected:
    """Delete several memories (restorable until purged), all or none: an unknown id is a 404 naming it,
    and nothing is deleted."""
    wanted = forms.parse_ids(data.ids)
    with db.connection_context(), operator_errors():
        return Affected(repository.delete_all_or_none(wanted))


@post("/memories/adjust-confidence", sync_to_thread=True, status_code=200, tags=["memories"])
def adjust_confidence(web: NamedDependency[WebContext], data: JSONBody[ConfidenceAdjustment]) -> Affected:
    """Add ``delta`` (between -1 and 1) to the confidence of several memories, clamped to [0, 1]."""
    wanted = forms.parse_ids(data.ids)
    if not -1 <= data.delta <= 1:
        raise ValidationException(f"delta must be between -1 and 1, not {data.delta}")
    with db.connection_context():
        return Affected(repository.adjust_confidence(wanted, data.delta, min_confidence=_settings(web).min_confidence))


@post("/memories/{memory_id:int}/pin", sync_to_thread=True, status_code=200, tags=["memories"],
      raises=[NotFoundException])
def pin(web: NamedDependency[WebContext], memory_id: FromPath[int]) -> MemoryOut:
    """Pin a memory: an evergreen fact that does not decay (pinning a pinned memory changes nothing)."""
    return _pinned(web, pin_memory, memory_id)


@post("/memories/{memory_id:int}/unpin", sync_to_thread=True, status_code=200, tags=["memories"],
      raises=[NotFoundException])
def unpin(web: NamedDependency[WebContext], memory_id: FromPath[int]) -> MemoryOut:
    """Unpin a memory: it decays again after a fresh grace period from now."""
    return _pinned(web, unpin_memory, memory_id)


def _pinned(web: WebContext, change: Callable[[int], PinResult], memory_id: int) -> MemoryOut:
    with db.connection_context():
        try:
            return _one(web, change(memory_id).memory)
        except KeyError:
            raise NotFoundException(f"no memory with id {memory_id}") from None


ROUTES = [list_memories, get_memory, create_memory, update_memory, delete_memory, delete_memories, adjust_confidence,
          pin, unpin]
