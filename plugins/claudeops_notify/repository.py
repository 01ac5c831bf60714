"""Reading and writing the ``notifications`` table: the only code that touches it.

A notification is written ``pending`` before it is sent, so one a crash interrupts is still
there, and then updated with its outcome, each in its own short transaction (the run goes on
writing markers meanwhile).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, cast

import peewee

from claudeops import db, write_patiently
from claudeops_notify.models import NotificationRow

PENDING, SUPPRESSED = "pending", "suppressed"
OUTCOMES = ("sent", "partial", "failed", SUPPRESSED, PENDING)
DELIVERED = ("sent", "partial")


@dataclass(frozen=True)
class Notice:
    """A notification decided on, before it is recorded: what it is about and what it says."""

    kind: str
    fingerprint: str
    level: str
    title: str
    body: str
    service: str | None = None
    session_id: int | None = None


@dataclass(frozen=True)
class NotificationRecord:
    """One stored notification, detached from the database."""

    id: int
    created_at: str
    kind: str
    service: str | None
    session_id: int | None
    level: str
    title: str
    body: str
    outcome: str
    reason: str | None
    attempts: int
    sent_at: str | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def record(notice: Notice, now: str, outcome: str = PENDING, reason: str | None = None) -> int:
    """Store ``notice`` with ``outcome`` (``pending`` until sent); returns its id."""
    def write() -> int:
        with db.atomic():
            row = NotificationRow.create(created_at=now, kind=notice.kind, fingerprint=notice.fingerprint,
                                         service=notice.service, session=notice.session_id, level=notice.level,
                                         title=notice.title, body=notice.body, outcome=outcome, reason=reason)
        return int(row.id)

    return write_patiently(write, "recording a notification")


def settle(notification_id: int, outcome: str, reason: str | None, attempts: int, sent_at: str | None) -> None:
    """Record how sending went."""
    def write() -> None:
        with db.atomic():
            NotificationRow.update(outcome=outcome, reason=reason, attempts=attempts, sent_at=sent_at).where(
                NotificationRow.id == notification_id).execute()

    write_patiently(write, "recording how a notification went")


def last_delivered(fingerprint: str, since: str) -> NotificationRecord | None:
    """The latest notification with ``fingerprint`` that reached someone since ``since``."""
    row = (NotificationRow.select()
           .where((NotificationRow.fingerprint == fingerprint) & (NotificationRow.created_at >= since)
                  & NotificationRow.outcome.in_(DELIVERED))
           .order_by(NotificationRow.created_at.desc(), NotificationRow.id.desc()).first())
    return _record(row) if row is not None else None


def list_notifications(*, outcome: str | None = None, kind: str | None = None, limit: int | None = None,
                       offset: int = 0) -> list[NotificationRecord]:
    """Notifications, newest first."""
    query = _filtered(NotificationRow.select(), outcome, kind).order_by(
        NotificationRow.created_at.desc(), NotificationRow.id.desc()).offset(offset or None)
    if limit is not None:
        query = query.limit(limit)
    return [_record(row) for row in query]


def count_notifications(*, outcome: str | None = None, kind: str | None = None) -> int:
    return _filtered(NotificationRow.select(), outcome, kind).count()


def count_by_outcome_and_kind() -> dict[tuple[str, str], int]:
    """``(outcome, kind) → count`` over every notification (for ``/metrics``)."""
    query = (NotificationRow.select(NotificationRow.outcome, NotificationRow.kind, peewee.fn.COUNT(NotificationRow.id))
             .group_by(NotificationRow.outcome, NotificationRow.kind))
    rows = cast("Iterable[tuple[str, str, int]]", query.tuples())
    return {(outcome, kind): count for outcome, kind, count in rows}


def latest(limit: int) -> list[NotificationRecord]:
    return list_notifications(limit=limit)


def _filtered(query: peewee.ModelSelect[NotificationRow], outcome: str | None,
              kind: str | None) -> peewee.ModelSelect[NotificationRow]:
    if outcome is not None:
        query = query.where(NotificationRow.outcome == outcome)
    if kind is not None:
        query = query.where(NotificationRow.kind == kind)
    return query


def _record(row: NotificationRow) -> NotificationRecord:
    return NotificationRecord(row.id, row.created_at, row.kind, row.service, row.session_id, row.level, row.title,
                              row.body, row.outcome, row.reason, row.attempts, row.sent_at)
