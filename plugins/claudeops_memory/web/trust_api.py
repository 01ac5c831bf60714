"""The history, undo and review part of the JSON API: the same operations as the pages and the CLI.

``GET /memories/{id}/history``, ``GET /memory-changes``, ``POST /memory-changes/{id}/revert``,
``POST /memories/{id}/restore``, ``POST /memories/{id}/purge``, ``GET /memory-review`` and
``POST /memory-review/{accept,revert,merge,keep-both,resolve}`` (all under ``/api/v1``). An operation
refused as things stand is a 409 with the one-line reason, unknown ids a 404.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from claudeops_web.context import WebContext
from claudeops_web.pagination import ApiLimit, ApiOffset, OffsetPagination
from claudeops_web.rendering import StateConflict, operator_errors, state_conflicts
from litestar import get, post
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException, ValidationException
from litestar.params import FromPath, JSONBody, Parameter, QueryParameter

from claudeops import db
from claudeops_memory import history, ledger, repository, review, sync_conflicts, undo
from claudeops_memory.history import HistoryEntry
from claudeops_memory.models import MemoryRecord
from claudeops_memory.settings import SECTION, MemorySettings

TAGS = ["memory history"]
REFUSALS = [NotFoundException, StateConflict]
"""What the writes answer besides success: an unknown id (404), an operation refused as things stand (409)."""


@dataclass(frozen=True)
class MemoryHistory:
    """A memory (null once deleted), its injections, why it is (not) in the prompt now, its changes."""

    memory: MemoryRecord | None
    deleted: bool
    injected_sessions: int
    last_injected_session: int | None
    now: str
    changes: list[HistoryEntry]


@dataclass(frozen=True)
class RevertResult:
    """The revert's own entry, the memory as it now stands (null when removed) and the memories removed."""

    entry: HistoryEntry
    memory: MemoryRecord | None
    removed: list[int]


@dataclass(frozen=True)
class ReviewItemOut:
    key: str
    kind: str
    actions: list[str]
    first: MemoryRecord
    second: MemoryRecord | None
    change: HistoryEntry | None
    similarity: int | None
    conflict_id: int | None = None


@dataclass(frozen=True)
class ChangeRef:
    change_id: int


@dataclass(frozen=True)
class Merge:
    """``other_id`` is merged into ``keep_id``, which takes the text of ``text_from`` (itself by default)."""

    keep_id: int
    other_id: int
    text_from: int | None = None


@dataclass(frozen=True)
class Pair:
    first_id: int
    second_id: int


@dataclass(frozen=True)
class ConflictResolution:
    """How to decide sync conflict ``conflict_id``: take theirs, keep ours, or keep both (theirs as a new memory)."""

    conflict_id: int
    resolution: Annotated[str, Parameter(schema_extra={"enum": list(sync_conflicts.RESOLUTIONS)})]


@dataclass(frozen=True)
class Purged:
    """How many history entries were erased with the memory."""

    erased: int


def _settings(web: WebContext) -> MemorySettings:
    settings: MemorySettings = web.section(SECTION)
    return settings


def _result(reverted: undo.Reverted) -> RevertResult:
    return RevertResult(reverted.entry, reverted.memory, list(reverted.removed))


@get("/memories/{memory_id:int}/history", sync_to_thread=True, tags=TAGS, raises=[NotFoundException])
def memory_history(web: NamedDependency[WebContext], memory_id: FromPath[int]) -> MemoryHistory:
    """One memory's timeline, oldest change first; a deleted memory's until it is purged."""
    settings = _settings(web)
    with db.connection_context():
        memory = repository.get_memory(memory_id)
        changes = history.memory_history(memory_id)
        if memory is None and not changes:
            raise NotFoundException(f"no memory with id {memory_id}, stored or in the history")
        count = ledger.injection_counts([memory_id])[memory_id]
        now = "deleted" if memory is None else repository.injection_reason(memory, settings.budget_tokens,
                                                                             settings.min_confidence)
    return MemoryHistory(memory, memory is None, count.sessions, count.last_session_id, now, changes)


@get("/memory-changes", sync_to_thread=True, tags=TAGS)
def memory_changes(kind: Annotated[str | None, QueryParameter(description="a kind of change",
                                                             schema_extra={"enum": ["", *history.KINDS]})] = None,
                   actor: Annotated[str | None, QueryParameter(description="who made the change",
                                                              schema_extra={"enum": ["", *history.ACTORS]})] = None,
                   limit: ApiLimit = 50, offset: ApiOffset = 0) -> OffsetPagination[HistoryEntry]:
    """Changes across all memories, newest first."""
    with operator_errors():
        kind = history.validate_kind(kind) if kind else None
        actor = history.validate_actor(actor) if actor else None
    with db.connection_context():
        return OffsetPagination(items=history.recent_changes(kind=kind, actor=actor, limit=limit, offset=offset),
                                total=history.count_changes(kind=kind, actor=actor), limit=limit, offset=offset)


@post("/memory-changes/{change_id:int}/revert", sync_to_thread=True, status_code=200, tags=TAGS, raises=REFUSALS)
def revert_change(web: NamedDependency[WebContext], change_id: FromPath[int]) -> RevertResult:
    """Undo one change (only a memory's latest); a replacement's successor is removed with it."""
    with db.connection_context(), state_conflicts():
        return _result(undo.revert_change(change_id, _settings(web)))


@post("/memories/{memory_id:int}/restore", sync_to_thread=True, status_code=200, tags=TAGS, raises=REFUSALS)
def restore_memory(memory_id: FromPath[int]) -> MemoryRecord:
    """Bring a deleted memory back exactly as it was."""
    with db.connection_context(), state_conflicts():
        return undo.restore_memory(memory_id)


@post("/memories/{memory_id:int}/purge", sync_to_thread=True, status_code=200, tags=TAGS, raises=REFUSALS)
def purge_memory(memory_id: FromPath[int]) -> Purged:
    """Delete a memory, its whole history and its ledger rows for good."""
    with db.connection_context(), state_conflicts():
        return Purged(undo.purge_memory(memory_id))


@get("/memory-review", sync_to_thread=True, tags=TAGS)
def review_queue(web: NamedDependency[WebContext]) -> list[ReviewItemOut]:
    """Everything waiting for review, with the actions each item offers."""
    with db.connection_context():
        items = review.review_items(_settings(web))
    return [ReviewItemOut(item.key, item.kind, list(item.actions), item.first, item.second, item.change,
                          item.similarity, None if item.conflict is None else item.conflict.id) for item in items]


@post("/memory-review/accept", sync_to_thread=True, status_code=200, tags=TAGS, raises=REFUSALS)
def accept(data: JSONBody[ChangeRef]) -> HistoryEntry:
    with db.connection_context(), state_conflicts():
        return review.accept(data.change_id)


@post("/memory-review/revert", sync_to_thread=True, status_code=200, tags=TAGS, raises=REFUSALS)
def revert(web: NamedDependency[WebContext], data: JSONBody[ChangeRef]) -> RevertResult:
    with db.connection_context(), state_conflicts():
        return _result(review.revert(data.change_id, _settings(web)))


@post("/memory-review/merge", sync_to_thread=True, status_code=200, tags=TAGS, raises=REFUSALS)
def merge(web: NamedDependency[WebContext], data: JSONBody[Merge]) -> MemoryRecord:
    with db.connection_context(), state_conflicts():
        return review.merge(data.keep_id, data.other_id, _settings(web), text_from=data.text_from)


@post("/memory-review/keep-both", sync_to_thread=True, status_code=200, tags=TAGS, raises=REFUSALS)
def keep_both(data: JSONBody[Pair]) -> list[HistoryEntry]:
    with db.connection_context(), state_conflicts():
        return review.keep_both(data.first_id, data.second_id)


@post("/memory-review/resolve", sync_to_thread=True, status_code=200, tags=TAGS, raises=REFUSALS)
def resolve(data: JSONBody[ConflictResolution]) -> MemoryRecord:
    """Decide a sync conflict; answers the memory that now stands for theirs (ours, or the one added)."""
    if data.resolution not in sync_conflicts.RESOLUTIONS:
        raise ValidationException(f"resolution must be one of: {', '.join(sync_conflicts.RESOLUTIONS)}")
    with db.connection_context(), state_conflicts():
        return sync_conflicts.resolve(data.conflict_id, data.resolution)


ROUTES = [memory_history, memory_changes, revert_change, restore_memory, purge_memory, review_queue, accept, revert,
          merge, keep_both, resolve]
