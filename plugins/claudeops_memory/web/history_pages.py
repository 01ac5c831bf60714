"""A memory's timeline (``/memories/{id}``), the recent changes across memories
(``/memories/changes``), and the undo buttons: revert a change, restore a deleted memory, purge one.

The pages are plain HTML with plain forms (they work without JavaScript); each action answers
with a redirect back to where the operator was (``next``, a path of this dashboard), carrying
what was done in the query string so the page can say so. A refusal (an older change, a
successor changed since) is a 400 with the one-line reason.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode, urlsplit

from claudeops_web.context import WebContext
from claudeops_web.forms import FormData
from claudeops_web.pagination import Page
from claudeops_web.rendering import operator_errors, page
from litestar import get, post
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException, ValidationException
from litestar.params import FromPath, QueryParameter
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Redirect, Template

from claudeops import db, now_timestamp
from claudeops_memory import history, ledger, repository, undo
from claudeops_memory.settings import SECTION, MemorySettings
from claudeops_memory.web import forms
from claudeops_memory.web.timeline import confidence_timeline


def _settings(web: WebContext) -> MemorySettings:
    settings: MemorySettings = web.section(SECTION)
    return settings


def back_to(data: dict[str, Any], default: str) -> str:
    """The ``next`` field when it is a path of this dashboard, else ``default`` (never another site)."""
    target = forms.text_field(data, "next") or ""
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return default
    return target


def with_notice(path: str, **done: int) -> str:
    separator = "&" if "?" in path else "?"
    return f"{path}{separator}{urlencode(done)}"


@get("/memories/{memory_id:int}", name="memory-history", sync_to_thread=True)
def memory_timeline(request: HTMXRequest, web: NamedDependency[WebContext], memory_id: FromPath[int],
                    reverted: Annotated[int | None, QueryParameter()] = None,
                    restored: Annotated[bool, QueryParameter()] = False) -> Template:
    """One memory: its state, how often it was injected, why it is (not) in the prompt now, its
    confidence over time and every change with the session that made it — also once deleted."""
    settings = _settings(web)
    with db.connection_context():
        memory = repository.get_memory(memory_id)
        entries = history.memory_history(memory_id)
        if memory is None and not entries:
            raise NotFoundException(f"no memory with id {memory_id}, stored or in the history")
        standing = history.standing_changes(memory_id)
        count = ledger.injection_counts([memory_id])[memory_id]
        now_reason = "deleted" if memory is None else repository.injection_reason(
            memory, settings.budget_tokens, settings.min_confidence)
    removal = next((entry for entry in reversed(entries) if entry.snapshot), None)
    shown = memory or (history.read_snapshot(removal.snapshot)[0] if removal and removal.snapshot else None)
    context = {"memory": memory, "shown": shown, "memory_id": memory_id, "entries": list(reversed(entries)),
               "revertible": standing.latest.id if standing.latest and standing.latest.kind in undo.REVERTIBLE
               else None, "undone_by": standing.undone_by, "count": count, "now_reason": now_reason,
               "timeline": confidence_timeline(entries, settings.min_confidence, now_timestamp(), memory is not None),
               "min_confidence": settings.min_confidence, "reverted": reverted, "restored": restored,
               "here": f"/memories/{memory_id}"}
    return page(request, "memories/history.html", "memories/history.html", context)


@get("/memories/changes", name="memory-changes", sync_to_thread=True)
def recent_changes(request: HTMXRequest, web: NamedDependency[WebContext],
                   kind: Annotated[str | None, QueryParameter()] = None,
                   actor: Annotated[str | None, QueryParameter()] = None,
                   page_number: Annotated[int, QueryParameter(name="page", ge=1)] = 1,
                   purged: Annotated[int | None, QueryParameter()] = None,
                   erased: Annotated[int | None, QueryParameter()] = None) -> Template:
    """What changed across all memories, newest first, filterable by kind and actor.

    ``purged`` and ``erased`` name a memory just purged and how many entries went with it.
    """
    with operator_errors():
        kind = history.validate_kind(kind) if kind else None
        actor = history.validate_actor(actor) if actor else None
    with db.connection_context():
        current = Page.of(page_number, web.settings.page_size, history.count_changes(kind=kind, actor=actor),
                          {"kind": kind, "actor": actor})
        entries = history.recent_changes(kind=kind, actor=actor, limit=current.size, offset=current.offset)
    context = {"entries": entries, "page": current, "kind": kind, "actor": actor, "kinds": history.KINDS,
               "actors": history.ACTORS, "purged": purged, "erased": erased}
    return page(request, "memories/changes.html", "memories/partials/changes_table_page.html", context)


@post("/memories/changes/{change_id:int}/revert", sync_to_thread=True, status_code=303)
def revert_change(web: NamedDependency[WebContext], change_id: FromPath[int], data: FormData) -> Redirect:
    """Undo one change from its history entry (the timeline's Revert button)."""
    with db.connection_context(), operator_errors():
        reverted = undo.revert_change(change_id, _settings(web))
    target = back_to(data, f"/memories/{reverted.entry.memory_id}")
    return Redirect(with_notice(target, reverted=change_id), status_code=303)


@post("/memories/{memory_id:int}/restore", sync_to_thread=True, status_code=303)
def restore_memory(memory_id: FromPath[int], data: FormData) -> Redirect:
    """Bring a deleted memory back exactly as it was."""
    with db.connection_context(), operator_errors():
        undo.restore_memory(memory_id)
    return Redirect(with_notice(back_to(data, f"/memories/{memory_id}"), restored=1), status_code=303)


@post("/memories/{memory_id:int}/purge", sync_to_thread=True, status_code=303)
def purge_memory(memory_id: FromPath[int], data: FormData) -> Redirect:
    """Delete a memory and its whole history for good; asks for the word ``purge`` to be typed."""
    if (forms.text_field(data, "confirm") or "").strip().lower() != "purge":
        raise ValidationException('type "purge" to confirm: the memory and its history cannot be restored after')
    with db.connection_context(), operator_errors():
        erased = undo.purge_memory(memory_id)
    return Redirect(with_notice("/memories/changes", purged=memory_id, erased=erased), status_code=303)


ROUTES = [memory_timeline, recent_changes, revert_change, restore_memory, purge_memory]
