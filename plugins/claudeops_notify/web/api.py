"""The notifications part of the JSON API: ``GET /api/v1/notifications``."""

from __future__ import annotations

from typing import Annotated

from claudeops_web.pagination import ApiLimit, ApiOffset, OffsetPagination
from litestar import get
from litestar.params import QueryParameter

from claudeops import db
from claudeops_notify import repository
from claudeops_notify.repository import NotificationRecord
from claudeops_notify.targets import KINDS
from claudeops_notify.web.pages import check_filters


@get("/notifications", sync_to_thread=True, tags=["notifications"])
def list_notifications(outcome: Annotated[str | None, QueryParameter(
                           description="sent, partial, failed, suppressed or pending",
                           schema_extra={"enum": list(repository.OUTCOMES)})] = None,
                       kind: Annotated[str | None, QueryParameter(
                           description="outage, event, session, cooldown, budget, review, digest or test",
                           schema_extra={"enum": list(KINDS)})] = None,
                       limit: ApiLimit = 50, offset: ApiOffset = 0) -> OffsetPagination[NotificationRecord]:
    """Notifications, newest first, with their outcome and reason (never a URL)."""
    check_filters(outcome, kind)
    with db.connection_context():
        items = repository.list_notifications(outcome=outcome, kind=kind, limit=limit, offset=offset)
        total = repository.count_notifications(outcome=outcome, kind=kind)
    return OffsetPagination(items=items, total=total, limit=limit, offset=offset)
