"""The events part of the JSON API: ``GET /api/v1/events`` with the page's filters."""

from __future__ import annotations

from typing import Annotated, TypedDict

from claudeops_web.pagination import ApiLimit, ApiOffset, OffsetPagination
from claudeops_web.rendering import operator_errors
from litestar import get
from litestar.params import QueryParameter

from claudeops import EVENT_LEVELS as LEVELS
from claudeops import MAX_SERVICE_LENGTH, db
from claudeops_events import repository
from claudeops_events.repository import EventRecord

SERVICE_PATTERN = f"^[A-Za-z0-9_.-]{{1,{MAX_SERVICE_LENGTH}}}$"
"""What the service filter accepts, as the OpenAPI document states it (the one service-name rule, dots allowed)."""


class EventFilters(TypedDict):
    """The filters the list and its count share."""

    level: str | None
    service: str | None
    since: str | None
    session_id: int | None


@get("/events", sync_to_thread=True, tags=["events"])
def list_events(level: Annotated[str | None, QueryParameter(description="info, warning or critical",
                                                            schema_extra={"enum": list(LEVELS)})] = None,
                service: Annotated[str | None, QueryParameter(schema_extra={"pattern": SERVICE_PATTERN})] = None,
                since: Annotated[str | None, QueryParameter(description="30m, 24h, 7d or an ISO time")] = None,
                session_id: Annotated[int | None, QueryParameter()] = None,
                limit: ApiLimit = 50, offset: ApiOffset = 0) -> OffsetPagination[EventRecord]:
    """Events, newest first, matching every given filter."""
    filters: EventFilters = {"level": level, "service": service, "since": since, "session_id": session_id}
    with db.connection_context(), operator_errors():
        items = repository.list_events(limit=limit, offset=offset, **filters)
        total = repository.count_events(**filters)
    return OffsetPagination(items=items, total=total, limit=limit, offset=offset)
