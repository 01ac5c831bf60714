"""Reading and writing events: the only code that touches the ``events`` table.

The dashboard and the command line read through these functions, so filters, ordering (newest
first, ties broken by id) and the accepted ``since`` spellings are the same everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, cast

import peewee

from claudeops import EVENT_LEVELS as LEVELS
from claudeops import NotableEvent, canonical_service, db, is_row_id, redact_secrets, redaction_warning, service_name
from claudeops_events.levels import normalise_level, parse_level
from claudeops_events.models import EventRow
from claudeops_events.since import parse_since


@dataclass(frozen=True)
class EventRecord:
    """One stored event, detached from the database."""

    id: int
    session_id: int | None
    level: str
    service: str | None
    message: str
    created_at: str
    kind: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def store_event(event: NotableEvent) -> EventRecord:
    """Write ``event`` in its own transaction; level normalised, service lower-cased, secrets redacted.

    Services are compared case-insensitively everywhere (``Jellyfin`` is ``jellyfin``), so
    they are stored in one case and the dashboard's service filter finds them all. A session's
    events arrive redacted (``Session.record_event``); anyone else's message that still holds a
    secret is stored redacted, next to a warning event naming the kinds.
    """
    service = canonical_service(event.service or "") or None
    redaction = redact_secrets(event.message.strip())
    with db.atomic():
        row = EventRow.create(session=event.session_id, level=normalise_level(event.level), service=service,
                              message=redaction.text, created_at=event.created_at, kind=event.kind)
        if redaction.changed:
            EventRow.create(session=event.session_id, level="warning", service=None, created_at=event.created_at,
                            message=redaction_warning(f"event #{row.id} before it was stored", redaction.kinds))
    return _record(row)


def list_events(*, level: str | None = None, service: str | None = None, since: str | None = None,
                session_id: int | None = None, limit: int | None = None, offset: int = 0) -> list[EventRecord]:
    """Events matching every given filter, newest first.

    ``level`` accepts the synonyms markers accept (``error`` is ``critical``); ``since`` is an age
    (``24h``, ``7d``, ``30m``) or an ISO time and is inclusive. A bad level or time raises
    ``ValueError`` with a one-line message. ``limit=None`` returns everything from ``offset`` on.
    """
    query = _filtered(EventRow.select(), level=level, service=service, since=since, session_id=session_id)
    query = query.order_by(EventRow.created_at.desc(), EventRow.id.desc()).offset(offset or None)
    if limit is not None:
        query = query.limit(limit)
    return [_record(row) for row in query]


def count_events(*, level: str | None = None, service: str | None = None, since: str | None = None,
                 session_id: int | None = None) -> int:
    """How many events ``list_events`` would return with the same filters (for paging)."""
    return _filtered(EventRow.select(), level=level, service=service, since=since, session_id=session_id).count()


def count_events_by_level(since: str | None = None) -> dict[str, int]:
    """Events per level since ``since`` (all time when ``None``); every level is present."""
    counts = dict.fromkeys(LEVELS, 0)
    query = _filtered(EventRow.select(EventRow.level, peewee.fn.COUNT(EventRow.id)), since=since)
    # peewee's stubs type .tuples() as the model query
    counts.update(cast("Iterable[tuple[str, int]]", query.group_by(EventRow.level).tuples()))
    return counts


def list_event_services() -> list[str]:
    """Every service some event names, sorted, for the dashboard's service filter."""
    query = (EventRow.select(EventRow.service).where(EventRow.service.is_null(False))
             .distinct().order_by(EventRow.service))
    return [row.service for row in query if row.service is not None]  # the SQL left NULL out; mypy cannot know


def _filtered(query: peewee.ModelSelect[EventRow], *, level: str | None = None, service: str | None = None,
              since: str | None = None, session_id: int | None = None) -> peewee.ModelSelect[EventRow]:
    if level is not None:
        query = query.where(EventRow.level == parse_level(level))
    if service is not None:
        query = query.where(EventRow.service == service_name(service, dots=True))
    if since is not None:
        query = query.where(EventRow.created_at >= parse_since(since))
    if session_id is not None:  # a number no row can have matches nothing (SQLite could not even bind it)
        query = query.where(EventRow.session == session_id) if is_row_id(session_id) else query.where(False)
    return query


def _record(row: EventRow) -> EventRecord:
    return EventRecord(row.id, row.session_id, row.level, row.service, row.message, row.created_at, row.kind)
