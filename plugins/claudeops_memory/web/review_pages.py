"""``/review``: the machine's decisions a person should look at, one action each.

Plain forms (no JavaScript needed); each action redirects back to the review with what was done.
The queue and the actions are :mod:`claudeops_memory.review`'s, as ``claudeops memories review``
uses them; the review count is offered to the overview as a card.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any
from urllib.parse import urlencode

from claudeops_web import OverviewCard
from claudeops_web.context import WebContext
from claudeops_web.forms import FormData
from claudeops_web.rendering import operator_errors, page
from litestar import get, post
from litestar.di import NamedDependency
from litestar.exceptions import ValidationException
from litestar.params import QueryParameter
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Redirect, Template

from claudeops import db, is_row_id
from claudeops_memory import review, sync_conflicts
from claudeops_memory.settings import SECTION, MemorySettings
from claudeops_memory.web import forms

REVIEW_PATH = "/review"
"""Not under /memories: the sidebar marks an entry current for every path below its own."""
DONE = ("accept", "revert", "merge", "keep-both", "resolve")


def _settings(web: WebContext) -> MemorySettings:
    settings: MemorySettings = web.section(SECTION)
    return settings


def _id(data: Mapping[str, Any], name: str) -> int:
    """A memory or change id from a form field; anything else is a 400 naming the field."""
    raw = forms.text_field(data, name)
    try:
        value = int((raw or "").strip())
    except ValueError:
        value = 0
    if not is_row_id(value):
        raise ValidationException(f"{name} must be an id (a whole number from 1), not {raw!r}")
    return value


def _done(action: str, *ids: int) -> Redirect:
    """Back to the review, saying what was done (an action word and ids only: nothing to spoof)."""
    return Redirect(f"{REVIEW_PATH}?{urlencode({'done': action, 'ids': ids}, doseq=True)}", status_code=303)


@get(REVIEW_PATH, name="memory-review", sync_to_thread=True)
def review_page(request: HTMXRequest, web: NamedDependency[WebContext],
                done: Annotated[str | None, QueryParameter()] = None,
                ids: Annotated[list[int] | None, QueryParameter()] = None) -> Template:
    """Every open item with its actions; ``done`` and ``ids`` say which action was just taken."""
    if done is not None and done not in DONE:
        raise ValidationException(f"done must be one of {', '.join(DONE)}, not {done!r}")
    with db.connection_context():
        items = review.review_items(_settings(web))
    return page(request, "memories/review.html", "memories/review.html",
                {"items": items, "done": done, "done_ids": ids or []})


@post(f"{REVIEW_PATH}/accept", sync_to_thread=True, status_code=303)
def accept(data: FormData) -> Redirect:
    change_id = _id(data, "change")
    with db.connection_context(), operator_errors():
        review.accept(change_id)
    return _done("accept", change_id)


@post(f"{REVIEW_PATH}/revert", sync_to_thread=True, status_code=303)
def revert(web: NamedDependency[WebContext], data: FormData) -> Redirect:
    change_id = _id(data, "change")
    with db.connection_context(), operator_errors():
        review.revert(change_id, _settings(web))
    return _done("revert", change_id)


@post(f"{REVIEW_PATH}/merge", sync_to_thread=True, status_code=303)
def merge(web: NamedDependency[WebContext], data: FormData) -> Redirect:
    """Merge ``other`` into ``keep``, which keeps its own text."""
    keep, other = _id(data, "keep"), _id(data, "other")
    with db.connection_context(), operator_errors():
        review.merge(keep, other, _settings(web), text_from=keep)
    return _done("merge", other, keep)


@post(f"{REVIEW_PATH}/keep-both", sync_to_thread=True, status_code=303)
def keep_both(data: FormData) -> Redirect:
    first, second = _id(data, "first"), _id(data, "second")
    if first == second:
        raise ValidationException("name two different memories")
    with db.connection_context(), operator_errors():
        review.keep_both(first, second)
    return _done("keep-both", first, second)


@post(f"{REVIEW_PATH}/resolve", sync_to_thread=True, status_code=303)
def resolve(data: FormData) -> Redirect:
    """Decide a sync conflict: ``resolution`` is take theirs, keep ours or keep both."""
    conflict_id = _id(data, "conflict")
    resolution = forms.text_field(data, "resolution")
    if resolution not in sync_conflicts.RESOLUTIONS:
        raise ValidationException(f"resolution must be one of: {', '.join(sync_conflicts.RESOLUTIONS)}")
    with db.connection_context(), operator_errors():
        memory = sync_conflicts.resolve(conflict_id, resolution)
    return _done("resolve", conflict_id, memory.id)


ROUTES = [review_page, accept, revert, merge, keep_both, resolve]


def review_card() -> OverviewCard:
    """The number of items waiting for review, for the overview (whose layout is the host's)."""
    return OverviewCard("memories/partials/review_card.html",
                        lambda web: {"count": review.review_count(_settings(web))}, order=35)
