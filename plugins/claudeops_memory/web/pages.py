"""``/memories``: the operator's view of what the agent knows, with create, edit and delete.

Every scenario of SPEC-0015's "Dashboard Memories Page", "Dashboard Memory CRUD" and "Inactive
Memory Handling" lands here. The page is readable without JavaScript; with htmx the table polls
(keeping its filters), rows are edited in place, and every change fires ``memories-changed`` so
the table refreshes itself. Writes go through :mod:`claudeops_memory.repository`, which owns the
rules (clamping, reactivation at the threshold, ``updated_at``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any
from urllib.parse import urlencode

from claudeops_web import OverviewCard, SessionPanel
from claudeops_web.context import WebContext
from claudeops_web.forms import FormData
from claudeops_web.pagination import Page
from claudeops_web.rendering import (
    CHANGED_EVENT_HEADER,
    VARY,
    changed,
    jinja_environment,
    operator_errors,
    page,
    rendered,
    wants_fragment,
)
from litestar import MediaType, Response, delete, get, post, put
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException, ValidationException
from litestar.params import FromPath, JSONBody, QueryParameter
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Redirect, Template
from markupsafe import Markup

from claudeops import counted, db, time_bucket
from claudeops_memory import repository
from claudeops_memory.change_stamp import by_memories
from claudeops_memory.context import plan_memory_context
from claudeops_memory.decay_policy import DecayPolicy
from claudeops_memory.flags import flag_reasons
from claudeops_memory.operator_text import warn_if_redacted, without_secrets
from claudeops_memory.pins import PinResult, pin_memory, unpin_memory
from claudeops_memory.repository import CATEGORIES, GENERAL, MemoryRecord
from claudeops_memory.session_report import session_report, told_summary
from claudeops_memory.settings import SECTION, MemorySettings
from claudeops_memory.web import forms
from claudeops_memory.web.rows import decay_lines, rendered_rows

TABLE = "memories/partials/table.html"
CHANGED = "memories-changed"
"""The htmx event every write fires; the table listens for it and reloads with its filters."""



def _settings(web: WebContext) -> MemorySettings:
    settings: MemorySettings = web.section(SECTION)
    return settings


def _statuses(web: WebContext, memories: list[MemoryRecord], flagged: dict[int, str] | None = None) -> dict[int, str]:
    settings = _settings(web)
    return repository.injection_status(memories, settings.budget_tokens, settings.min_confidence, flagged)


def _decay_lines(web: WebContext, memories: list[MemoryRecord]) -> dict[int, str]:
    """When each memory decays next and when it would fall under the floor (beside it, never in the prompt)."""
    return decay_lines(memories, DecayPolicy.of(_settings(web)), time_bucket(web.settings.poll_seconds))


def _table_context(web: WebContext, service: str | None, category: str | None, show: str,
                   page_number: int) -> dict[str, Any]:
    filters = forms.visibility(show)
    with operator_errors():
        total = repository.count_memories(service=service, category=category, **filters)
        current = Page.of(page_number, web.settings.page_size, total,
                          {"service": service, "category": category, "show": show if show != "all" else None})
        memories = repository.list_memories(service=service, category=category, limit=current.size,
                                            offset=current.offset, **filters)
    flagged = flag_reasons(memory.id for memory in memories if not memory.active)
    return {"memories": memories, "statuses": _statuses(web, memories, flagged), "flags": flagged,
            "decay": _decay_lines(web, memories), "page": current, "service": service, "category": category,
            "show": show,
            "categories": CATEGORIES, "general": GENERAL, "min_confidence": _settings(web).min_confidence}


@get("/memories", name="memories", sync_to_thread=True)
def memories_page(request: HTMXRequest, web: NamedDependency[WebContext],
                  service: Annotated[str | None, QueryParameter()] = None,
                  category: Annotated[str | None, QueryParameter()] = None,
                  show: Annotated[str | None, QueryParameter()] = None,
                  page_number: Annotated[int, QueryParameter(name="page", ge=1)] = 1,
                  added: Annotated[int | None, QueryParameter()] = None,
                  deleted: Annotated[int | None, QueryParameter()] = None) -> Template | Response[str]:
    """All memories, filterable by service (``general`` included), category and active state.

    ``added`` names a memory just added through the form: its row is highlighted. ``deleted``
    names one just deleted from its own page, for the notice that says so.
    """
    chosen = (forms.service_filter(service), forms.category_filter(category), forms.show_filter(show))
    fragment = wants_fragment(request)
    with db.connection_context():
        context, table = by_memories.get(
            ("memories-table", *chosen, page_number, added, time_bucket(web.settings.poll_seconds)),
            lambda: _rendered_table(request, web, *chosen, page_number, added), owner=web)
        if fragment:
            return Response(str(table), media_type=MediaType.HTML, headers=VARY)
        services = by_memories.get("memory-services", repository.list_services)
    return page(request, "memories/page.html", TABLE, {
        **context, "table_html": table, "services": services, "deleted": deleted,
        "default_confidence": _settings(web).default_confidence})


def _rendered_table(request: HTMXRequest, web: WebContext, service: str | None, category: str | None, show: str,
                    page_number: int, added: int | None) -> tuple[dict[str, Any], Markup]:
    """The table's context and its HTML: what the page and its poll show, the costly part of both (kept
    until the memories change, and each row until what it shows changes)."""
    context = {**_table_context(web, service, category, show, page_number), "added": added}
    context["rows"] = rendered_rows(jinja_environment(request), context["memories"], context["statuses"],
                                    context["flags"], context["decay"], context["min_confidence"], added)
    return context, rendered(request, TABLE, context)


@post("/memories", sync_to_thread=True, status_code=201)
def create_memory(request: HTMXRequest, web: NamedDependency[WebContext], data: FormData) -> Response[Any]:
    """Add an operator memory (``session_id`` NULL); ``service`` empty or ``general`` means general."""
    settings = _settings(web)
    observation, secrets = without_secrets(forms.text_field(data, "observation"))
    if observation is None or not observation.strip():
        raise ValidationException("observation is required: what should the agent remember?")
    confidence = forms.confidence_field(data)
    with db.connection_context(), operator_errors():
        memory = repository.create_memory(
            category=forms.text_field(data, "category") or "", observation=observation,
            service=forms.text_field(data, "service"),
            confidence=settings.default_confidence if confidence is None else confidence,
            session_id=None, min_confidence=settings.min_confidence, max_chars=settings.max_observation_chars)
        warn_if_redacted(web.record_event, secrets, f"memory #{memory.id}, added by an operator in the dashboard")
        shown_at = _shown_at(web, memory)
    if not request.htmx:
        return Redirect(shown_at, status_code=303)
    return Response("", status_code=201, headers={"HX-Redirect": shown_at}, media_type="text/html")


def _shown_at(web: WebContext, memory: MemoryRecord) -> str:
    """Where a memory just added is visible: its service and category, on the page it sorts to, highlighted.

    The table is sorted by confidence, so a memory added with a low one would otherwise land on
    a page the operator is not looking at.
    """
    service = memory.service or GENERAL
    before = repository.count_listed_before(memory, service=service, category=memory.category)
    query = urlencode({"service": service, "category": memory.category,
                       "page": before // web.settings.page_size + 1, "added": memory.id})
    return f"/memories?{query}#memory-{memory.id}"


def _row(web: WebContext, memory: MemoryRecord, editing: bool = False) -> Template:
    context = {"memory": memory, "status": _statuses(web, [memory])[memory.id],
               "min_confidence": _settings(web).min_confidence, "editing": editing,
               "flag": flag_reasons([memory.id]).get(memory.id), "decay": _decay_lines(web, [memory])[memory.id]}
    return Template("memories/partials/row.html", context=context)


def _existing(memory_id: int) -> MemoryRecord:
    memory = repository.get_memory(memory_id)
    if memory is None:
        raise NotFoundException(f"no memory with id {memory_id}")
    return memory


@get("/memories/{memory_id:int}/row", sync_to_thread=True)
def memory_row(web: NamedDependency[WebContext], memory_id: FromPath[int]) -> Template:
    """One row as displayed (what "Cancel" in the inline editor swaps back)."""
    with db.connection_context():
        return _row(web, _existing(memory_id))


@get("/memories/{memory_id:int}/edit", sync_to_thread=True)
def memory_editor(request: HTMXRequest, web: NamedDependency[WebContext], memory_id: FromPath[int],
                  saved: Annotated[bool, QueryParameter()] = False) -> Template:
    """The inline editor (one row, its observation in a text area) for htmx; for any other request
    the memory's own page, whose plain forms save and delete it without JavaScript."""
    with db.connection_context():
        memory = _existing(memory_id)
        context = {"memory": memory, "status": _statuses(web, [memory])[memory.id],
                   "min_confidence": _settings(web).min_confidence, "editing": True, "saved": saved,
                   "decay": _decay_lines(web, [memory])[memory.id]}
    return page(request, "memories/edit.html", "memories/partials/row.html", context)


@post("/memories/{memory_id:int}/edit", sync_to_thread=True, status_code=303)
def save_memory_form(web: NamedDependency[WebContext], memory_id: FromPath[int], data: FormData) -> Redirect:
    """The edit page's form (no JavaScript): observation, confidence and status, then back to the page."""
    with db.connection_context(), operator_errors():
        _save(web, memory_id, data)
    return Redirect(f"/memories/{memory_id}/edit?saved=true", status_code=303)


def _save(web: WebContext, memory_id: int, data: FormData) -> MemoryRecord:
    """An operator's edit from either form: the text without its secrets (and a warning event when it
    held one), the confidence and the state; in the caller's connection and error mapping."""
    settings = _settings(web)
    observation, secrets = without_secrets(forms.text_field(data, "observation"))
    memory = repository.update_memory(memory_id, observation=observation, confidence=forms.confidence_field(data),
                                      active=forms.bool_field(data, "active"), min_confidence=settings.min_confidence,
                                      max_chars=settings.max_observation_chars)
    warn_if_redacted(web.record_event, secrets,
                     f"the new text of memory #{memory.id}, edited by an operator in the dashboard")
    return memory


@post("/memories/{memory_id:int}/delete", sync_to_thread=True, status_code=303)
def delete_memory_form(memory_id: FromPath[int], data: FormData) -> Redirect:
    """The edit page's delete form (no JavaScript, so no dialog: a ticked box confirms it)."""
    if forms.text_field(data, "confirm") != "yes":
        raise ValidationException(f"tick \"Delete memory #{memory_id}\" to confirm; nothing was deleted")
    with db.connection_context(), operator_errors():
        repository.delete_all_or_none([memory_id])
    return Redirect(f"/memories?deleted={memory_id}", status_code=303)


@put("/memories/{memory_id:int}", sync_to_thread=True)
def update_memory(web: NamedDependency[WebContext], memory_id: FromPath[int], data: FormData) -> Template:
    """Change any of observation, confidence (clamped to [0, 1]) and active; answers with the row.

    Raising the confidence to the threshold or above reactivates an inactive memory.
    """
    if all(field is None for field in (forms.text_field(data, "observation"), forms.confidence_field(data),
                                       forms.bool_field(data, "active"))):
        raise ValidationException("nothing to change: send observation, confidence or active")
    with db.connection_context(), operator_errors():
        return _row(web, _save(web, memory_id, data))


@delete("/memories/{memory_id:int}", sync_to_thread=True, status_code=200)
def delete_memory(memory_id: FromPath[int]) -> Response[Any]:
    """Delete one memory (restorable from its history); the empty answer removes its row."""
    with db.connection_context():
        if not repository.delete_memories([memory_id]):
            raise NotFoundException(f"no memory with id {memory_id}")
    return changed(CHANGED)


@delete("/memories/bulk", sync_to_thread=True, status_code=200)
def delete_memories(ids: Annotated[list[str] | None, QueryParameter()] = None,
                    data: JSONBody[dict[str, Any] | None] = None) -> Response[Any]:
    """Delete the selected memories, all or none: repeated ``ids`` parameters (htmx 2 puts them in
    the query string for DELETE) or a JSON body ``{"ids": [...]}``."""
    wanted = forms.parse_ids(forms.as_list(ids) + forms.as_list((data or {}).get("ids")))
    with db.connection_context(), operator_errors():
        deleted = repository.delete_all_or_none(wanted)
    return _notice(f"Deleted {counted(deleted, 'memory', 'memories')}.")


@post("/memories/bulk/confidence", sync_to_thread=True, status_code=200)
def adjust_memories(web: NamedDependency[WebContext], data: FormData) -> Response[Any]:
    """Add ``delta`` (e.g. 0.1 or -0.2) to the confidence of the selected memories."""
    wanted = forms.parse_ids(forms.as_list(data.get("ids")))
    raw_delta = forms.text_field(data, "delta")
    if raw_delta is None or not raw_delta.strip():
        raise ValidationException("delta is required: how much to add to each confidence (e.g. 0.1 or -0.1)")
    delta = forms.parse_number(raw_delta, "delta", "a number between -1 and 1")
    if not -1 <= delta <= 1:
        raise ValidationException(f"delta must be between -1 and 1, not {raw_delta!r}")
    with db.connection_context():
        changed = repository.adjust_confidence(wanted, delta, min_confidence=_settings(web).min_confidence)
    return _notice(f"Changed the confidence of {counted(changed, 'memory', 'memories')} by {delta:+.2f}.")


def _notice(message: str) -> Response[Any]:
    """A message for the page's status area, plus the event that refreshes the table."""
    return Template("memories/partials/notice.html", context={"message": message},
                    headers={CHANGED_EVENT_HEADER: CHANGED})


@post("/memories/{memory_id:int}/pin", sync_to_thread=True, status_code=200)
def pin(request: HTMXRequest, web: NamedDependency[WebContext], memory_id: FromPath[int]) -> Response[Any]:
    """Pin a memory (it does not decay): the row again for htmx, else back to the memory's own page."""
    return _pin_changed(request, web, pin_memory, memory_id)


@post("/memories/{memory_id:int}/unpin", sync_to_thread=True, status_code=200)
def unpin(request: HTMXRequest, web: NamedDependency[WebContext], memory_id: FromPath[int]) -> Response[Any]:
    """Unpin a memory: it decays again after a fresh grace period from now."""
    return _pin_changed(request, web, unpin_memory, memory_id)


def _pin_changed(request: HTMXRequest, web: WebContext, change: Callable[[int], PinResult],
                 memory_id: int) -> Response[Any]:
    with db.connection_context():
        try:
            memory = change(memory_id).memory
        except KeyError:
            raise NotFoundException(f"no memory with id {memory_id}") from None
        if not request.htmx:
            return Redirect(f"/memories/{memory_id}/edit", status_code=303)
        return _row(web, memory)


ROUTES = [memories_page, create_memory, memory_row, memory_editor, save_memory_form, delete_memory_form, update_memory,
          delete_memory, delete_memories, adjust_memories, pin, unpin]


# --------------------------------------------------------------------------- overview and session page


def overview_card() -> OverviewCard:
    return OverviewCard("memories/partials/card.html", _card_context, order=30)


def _card_context(web: WebContext) -> Mapping[str, Any]:
    """Active/inactive counts and how many memories the next session would be given."""
    settings = _settings(web)
    active, inactive = repository.memory_counts()
    plan = plan_memory_context(settings.budget_tokens, settings.min_confidence)
    return {"active": active, "inactive": inactive, "injected": len(plan.injected_ids), "qualifying": plan.total,
            "tokens": plan.tokens, "budget": settings.budget_tokens}


def session_panel() -> SessionPanel:
    return SessionPanel("memories/partials/session_panel.html", _session_memories, order=20)


def _session_memories(web: WebContext, session_id: int) -> Mapping[str, Any]:
    """What the session was told (its injection ledger) and every memory it created, reinforced,
    contradicted, replaced or reactivated (its history entries)."""
    report = session_report(session_id)
    return {"report": report, "told": told_summary(report.told)}

