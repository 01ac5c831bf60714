"""The host's own pages: the overview (cards contributed by plugins) and the sessions.

Handlers are synchronous and run in worker threads (``sync_to_thread=True``); each opens its
database connection inside the thread that runs the queries, because peewee connections are
thread-local and Litestar's middleware runs on the event loop.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import get
from litestar.di import NamedDependency
from litestar.exceptions import NotFoundException, ValidationException
from litestar.params import FromPath, QueryParameter
from litestar.plugins.htmx import HTMXRequest
from litestar.response import Template

from claudeops import SESSION_STATUSES as STATUSES
from claudeops import count_sessions, db, get_session_dict, session_dicts
from claudeops_web import session_queries
from claudeops_web.context import WebContext
from claudeops_web.contributions import OverviewCard
from claudeops_web.pagination import Page
from claudeops_web.rendering import page, wants_fragment
from claudeops_web.transcript import read_transcript

TRANSCRIPT_POLL_SECONDS = 1
"""A running session's transcript tail is fetched this often: a poll that finds nothing new costs about 7 ms
of server time (measured in-process), and the transcript itself is flushed at most 0.5 s after a line, so a
line shows within about 1.5 s (tests/web/test_web_operator_browser.py measured 1.8 s on a busy machine)."""

PageNumber = Annotated[int, QueryParameter(name="page", ge=1)]


@get("/", name="overview", sync_to_thread=True)
def overview(request: HTMXRequest, web: NamedDependency[WebContext]) -> Template:
    """Is anything wrong? Wide cards (the status board) across the top, the other cards in a grid below;
    it all re-fetches itself every ``poll_seconds``. An empty install (no inventory, no session) shows
    the two commands that fill it instead of the wide cards."""
    cards = sorted(web.contributions.overview_cards, key=lambda card: card.order)
    with db.connection_context():
        empty = not web.config.inventory and count_sessions() == 0
        rendered = [(card.template, dict(card.context(web)), card.wide) for card in cards if not (empty and card.wide)]
    context = {"wide": [(template, card) for template, card, wide in rendered if wide],
               "grid": [(template, card) for template, card, wide in rendered if not wide],
               "empty": empty, "max_tier": web.config.core.max_tier}
    return page(request, "web/overview.html", "web/partials/overview_cards.html", context)


def sessions_card() -> OverviewCard:
    """The host's own overview card: sessions of the last 24 h by status, and their cost."""
    return OverviewCard("web/partials/sessions_card.html",
                        lambda web: {"stats": session_queries.session_stats(hours=24)}, order=0)


def last_runs_card() -> OverviewCard:
    """The last session of each tier: how long ago, and how it ended (a wide card, after the status board)."""
    return OverviewCard("web/partials/last_runs_card.html",
                        lambda web: {"runs": session_queries.last_run_per_tier(web.config.core.max_tier),
                                     "stats": session_queries.session_stats(hours=24)}, order=0, wide=True)


@get("/sessions", name="sessions", sync_to_thread=True)
def sessions_list(request: HTMXRequest, web: NamedDependency[WebContext],
                  status: Annotated[str | None, QueryParameter()] = None, page_number: PageNumber = 1) -> Template:
    """Every session, newest first, with its escalation chain; the table polls for new ones."""
    status = status or None
    if status is not None and status not in STATUSES:
        raise ValidationException(f"unknown status {status!r}; use one of {', '.join(STATUSES)}")
    with db.connection_context():
        current = Page.of(page_number, web.settings.page_size, count_sessions(status),
                          {"status": status})
        rows = session_dicts(status=status, limit=current.size, offset=current.offset)
        chains = session_queries.escalation_chains(rows)
    context = {"rows": rows, "chains": chains, "page": current, "status": status, "statuses": STATUSES}
    return page(request, "sessions/list.html", "sessions/partials/table.html", context)


@get("/sessions/{session_id:int}", name="session", sync_to_thread=True)
def session_detail(request: HTMXRequest, web: NamedDependency[WebContext],
                   session_id: FromPath[int]) -> Template:
    """One session: summary, plugin panels (what it recorded) and the transcript, live while running."""
    with db.connection_context():
        row = get_session_dict(session_id)
        if row is None:
            raise NotFoundException(f"there is no session #{session_id}")
        chain = session_queries.escalation_chains([row])[session_id]
        panels = [(panel.template, dict(panel.context(web, session_id)))
                  for panel in sorted(web.contributions.session_panels, key=lambda panel: panel.order)]
    fragment = wants_fragment(request)
    context: dict[str, Any] = {"row": row, "chain": chain, "panels": panels,
                               "transcript_poll": TRANSCRIPT_POLL_SECONDS, "fragment": fragment}
    if not fragment:  # the whole page: also a boosted link or a history restore
        context["chunk"] = read_transcript(row["transcript_path"], web.markers)
    return page(request, "sessions/detail.html", "sessions/partials/summary.html", context)


@get("/sessions/{session_id:int}/transcript", name="session-transcript", sync_to_thread=True)
def session_transcript(request: HTMXRequest, web: NamedDependency[WebContext], session_id: FromPath[int],
                       offset: Annotated[int, QueryParameter(ge=0)] = 0) -> Template:
    """The transcript from byte ``offset`` on; the fragment ends with a poller while more may come."""
    with db.connection_context():
        row = get_session_dict(session_id)
    if row is None:
        raise NotFoundException(f"there is no session #{session_id}")
    chunk = read_transcript(row["transcript_path"], web.markers, offset)
    context = {"row": row, "chunk": chunk, "transcript_poll": TRANSCRIPT_POLL_SECONDS}
    return page(request, "sessions/transcript.html", "sessions/partials/transcript_items.html", context)
