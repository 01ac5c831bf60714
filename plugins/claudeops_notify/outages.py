"""One outage, one message: a service's trouble is followed from its first report to its recovery.

A service's status is what the ``service_statuses`` hook says (the level of its latest finding:
critical = down, warning = degraded, info = up). After each session, every service the
session's findings named is looked at, and its outage (at most one open per service) moves:

============================  ==============================================================
the service is now            what happens
============================  ==============================================================
down/degraded, no outage      an outage opens: **one "down" (or "degraded") message**
down/degraded, same as open   a repeat: suppressed as a duplicate of the open outage (unless no
                              message about it reached anyone yet: held back by a maintenance
                              window or failed, it is sent now)
down ↔ degraded while open    the outage's condition changes: one "now down/degraded" message
down/degraded again, within   the outage that just recovered is re-opened, not a new one:
``flap_minutes`` of recovery  **flapping**. The first return sends one "flapping" message;
                              later returns, changes and recoveries are suppressed
up, outage open               **one "resolved" message** with how long it lasted; a flapping
                              outage's recovery is held back instead
up for ``flap_minutes`` after its resolution is sent then ("resolved after flapping"), by the
a held-back recovery          first session or run that looks (:func:`held_back_recoveries`)
============================  ==============================================================

Statuses below ``notify.events`` (degraded, when only ``critical`` notifies) neither open nor
close an outage. The fingerprint of an outage's messages is ``outage:<service>:<condition>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from claudeops import ServiceStatus, db, from_timestamp, to_timestamp, write_patiently
from claudeops_notify.models import OutageRow

PROBLEM, CHANGED, FLAPPING, RESOLVED, RESOLVED_AFTER_FLAPPING = (
    "problem", "changed", "flapping", "resolved", "resolved_after_flapping")
UP = "up"


@dataclass(frozen=True)
class Outage:
    """A snapshot of an outage, for the message about it."""

    id: int
    service: str
    condition: str
    opened_at: str
    resolved_at: str | None
    flaps: int


@dataclass(frozen=True)
class OutageNews:
    """What an observation means for the operator: a message to send (``suppressed`` is ``None``),
    or a suppressed one with the reason. ``previous`` is the condition before a change."""

    what: str
    outage: Outage
    suppressed: str | None = None
    previous: str | None = None

    @property
    def fingerprint(self) -> str:
        return f"outage:{self.outage.service}:{self.outage.condition}"


def observe(status: ServiceStatus, notifying: tuple[str, ...], now: str, flap: timedelta) -> OutageNews | None:
    """Move ``status.service``'s outage for its current status; ``None`` when there is nothing to say."""
    return write_patiently(lambda: _observe(status, notifying, now, flap), "tracking an outage")


def _observe(status: ServiceStatus, notifying: tuple[str, ...], now: str, flap: timedelta) -> OutageNews | None:
    with db.atomic():
        open_row = _open(status.service)
        if status.status == UP:
            return _recovered(open_row, status, flap) if open_row is not None else None
        if status.status not in notifying:
            return None
        if open_row is not None:
            return _still_in_trouble(open_row, status, now)
        recent = _recently_resolved(status.service, now, flap)
        if recent is not None:
            return _back_in_trouble(recent, status, now, flap)
        row = OutageRow.create(service=status.service, condition=status.status, opened_at=status.since,
                               changed_at=now)
        return OutageNews(PROBLEM, _snapshot(row))


def _still_in_trouble(row: OutageRow, status: ServiceStatus, now: str) -> OutageNews:
    if row.condition == status.status:
        return OutageNews(PROBLEM, _snapshot(row), suppressed=(
            f"duplicate: {row.service} has been {row.condition} since {row.opened_at} (outage #{row.id}, "
            "notified when it began)"))
    previous = row.condition
    row.condition, row.changed_at = status.status, now
    row.save()
    suppressed = "flapping: quiet until it is stable" if row.flaps else None
    return OutageNews(CHANGED, _snapshot(row), suppressed=suppressed, previous=previous)


def _back_in_trouble(row: OutageRow, status: ServiceStatus, now: str, flap: timedelta) -> OutageNews:
    first_return = row.flaps == 0
    row.flaps += 1
    row.condition, row.changed_at, row.resolved_at, row.resolution_sent = status.status, now, None, False
    row.save()
    if first_return:
        return OutageNews(FLAPPING, _snapshot(row))
    return OutageNews(FLAPPING, _snapshot(row), suppressed=(
        f"flapping: {row.service} is back in trouble for the {_nth(row.flaps)} time within {_minutes(flap)} of "
        "recovering (the first return was notified); quiet until it is stable"))


def _recovered(row: OutageRow, status: ServiceStatus, flap: timedelta) -> OutageNews:
    row.resolved_at = status.since
    row.resolution_sent = row.flaps == 0
    row.save()
    if row.flaps == 0:
        return OutageNews(RESOLVED, _snapshot(row))
    return OutageNews(RESOLVED, _snapshot(row), suppressed=(
        f"flapping: {row.service} recovered again; the resolution is sent once it has stayed up for "
        f"{_minutes(flap)}"))


def held_back_recoveries(now: str, flap: timedelta) -> list[OutageNews]:
    """Flapping outages whose recovery has held for ``flap``: each one "resolved" message, once."""
    cutoff = to_timestamp(from_timestamp(now) - flap)

    def collect() -> list[OutageNews]:
        with db.atomic():
            rows = list(OutageRow.select().where(
                OutageRow.resolved_at.is_null(False) & (OutageRow.resolution_sent == False)  # noqa: E712 SQL
                & (OutageRow.resolved_at <= cutoff)))
            for row in rows:
                row.resolution_sent = True
                row.save()
        return [OutageNews(RESOLVED_AFTER_FLAPPING, _snapshot(row)) for row in rows]

    return write_patiently(collect, "settling flapping outages")


def open_outages() -> list[Outage]:
    """Outages still open, oldest first (for the digest)."""
    rows = OutageRow.select().where(OutageRow.resolved_at.is_null()).order_by(OutageRow.opened_at)
    return [_snapshot(row) for row in rows]


def _open(service: str) -> OutageRow | None:
    row: OutageRow | None = OutageRow.select().where(
        (OutageRow.service == service) & OutageRow.resolved_at.is_null()).first()
    return row


def _recently_resolved(service: str, now: str, flap: timedelta) -> OutageRow | None:
    cutoff = to_timestamp(from_timestamp(now) - flap)
    row: OutageRow | None = (OutageRow.select()
                             .where((OutageRow.service == service) & (OutageRow.resolved_at >= cutoff))
                             .order_by(OutageRow.resolved_at.desc(), OutageRow.id.desc()).first())
    return row


def _nth(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _minutes(flap: timedelta) -> str:
    return f"{flap.total_seconds() / 60:g} min"


def _snapshot(row: OutageRow) -> Outage:
    return Outage(row.id, row.service, row.condition, row.opened_at, row.resolved_at, row.flaps)
