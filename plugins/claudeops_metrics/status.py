"""``GET /api/v1/status``: the small answer a home-lab dashboard shows (gethomepage.dev's custom API widget).

The last run is the newest session (its status, when it started and ended, how long ago);
services come from the ``service_statuses`` hook; ``items_to_review`` is the sum of the
``claudeops_review_items`` gauge a plugin reports through ``collect_metrics`` (the memory review
queue), ``null`` while no plugin reports one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from claudeops import ServiceStatus, SessionRow, from_timestamp
from claudeops_metrics.figures import PluginFigures

REVIEW_FAMILY = "claudeops_review_items"


@dataclass(frozen=True)
class LastRun:
    session_id: int
    tier: int
    status: str
    trigger: str
    started_at: str
    ended_at: str | None
    age_seconds: int
    """Seconds since it ended (since it started, while it runs)."""


@dataclass(frozen=True)
class Status:
    last_run: LastRun | None
    services_up: int
    services_degraded: int
    services_down: int
    down: list[str]
    degraded: list[str]
    items_to_review: int | None


def status_summary(figures: PluginFigures, now: datetime) -> Status:
    statuses = figures.statuses()
    return Status(_last_run(now), _count(statuses, "up"), _count(statuses, "degraded"), _count(statuses, "down"),
                  _named(statuses, "down"), _named(statuses, "degraded"), _review_items(figures))


def _last_run(now: datetime) -> LastRun | None:
    row: SessionRow | None = SessionRow.select().order_by(SessionRow.id.desc()).first()
    if row is None:
        return None
    moment = from_timestamp(row.ended_at or row.started_at)
    return LastRun(row.id, row.tier, row.status, row.trigger, row.started_at, row.ended_at,
                   max(0, int((now - moment).total_seconds())))


def _count(statuses: list[ServiceStatus], state: str) -> int:
    return sum(1 for status in statuses if status.status == state)


def _named(statuses: list[ServiceStatus], state: str) -> list[str]:
    return [status.service for status in statuses if status.status == state]


def _review_items(figures: PluginFigures) -> int | None:
    families = [family for family in figures.plugin_families() if family.name == REVIEW_FAMILY]
    if not families:
        return None
    return int(sum(sample.value for family in families for sample in family.samples))
