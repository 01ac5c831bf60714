"""The figures ``/metrics`` and ``/api/v1/status`` serve: the core's sessions, markers, services, and
every plugin's own families through ``collect_metrics``.

Everything is read from the database at scrape time (a cron job has no long-lived process to
count in), so the numbers always agree with the tables:

=============================================  ==================================================
family                                         from
=============================================  ==================================================
``claudeops_sessions{tier,status}``            the ``sessions`` rows (a gauge: a running row ends)
``claudeops_session_duration_seconds``         histogram of ``duration_ms`` by tier
``claudeops_session_cost_usd``                 histogram of ``cost_usd`` by tier and ``replayed``
``claudeops_last_success_timestamp_seconds``   the newest completed or escalated session per tier
``claudeops_markers_total{type}``              ``marker_counts`` (this plugin)
``claudeops_services{status}``,                the ``service_statuses`` hook
``claudeops_service_status{service,status}``
everything else                                ``collect_metrics`` of each plugin (memories, events,
                                               cooldown refusals, notifications, spend)
=============================================  ==================================================
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import Any, cast

import peewee
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

from claudeops import Config, PluginError, ServiceStatus, SessionRow, from_timestamp
from claudeops_metrics.models import MarkerCountRow

log = logging.getLogger(__name__)

DURATION_BUCKETS = (10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 1800.0)
"""Seconds: a tier-1 check takes tens of seconds, a remediation minutes, the longest default limit 30 min."""
COST_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
"""USD: the default per-session limits are $0.50, $2 and $5 (tiers 1–3)."""
SERVICE_STATES = ("up", "degraded", "down")


class PluginFigures:
    """A prometheus_client collector asking the core tables and every plugin, per scrape."""

    def __init__(self, config: Config, hook: Any) -> None:
        self.config = config
        self.hook = hook

    def collect(self) -> Iterator[Metric]:
        yield from session_families()
        yield marker_family()
        yield from service_families(self.statuses())
        yield from self.plugin_families()

    def statuses(self) -> list[ServiceStatus]:
        try:
            return list(self.hook.service_statuses() or [])
        except PluginError as exc:
            log.error("%s", exc)
            return []

    def plugin_families(self) -> list[Metric]:
        """Every plugin's ``collect_metrics`` answer; a plugin that raises is logged and its figures left out.

        Called one implementation at a time, so one broken plugin does not take the others' figures down.
        """
        families: list[Metric] = []
        for impl in reversed(self.hook.collect_metrics.get_hookimpls()):
            arguments = {"config": self.config}
            try:
                families.extend(impl.function(*[arguments[name] for name in impl.argnames]) or [])
            except Exception as exc:
                log.error("plugin %r failed in hook collect_metrics: %s: %s", impl.plugin_name, type(exc).__name__,
                          exc)
        return families


def session_families() -> list[Metric]:
    sessions = GaugeMetricFamily("claudeops_sessions", "Sessions by tier and status (running ones end)",
                                 labels=["tier", "status"])
    query = SessionRow.select(SessionRow.tier, SessionRow.status, peewee.fn.COUNT(SessionRow.id)).group_by(
        SessionRow.tier, SessionRow.status)
    for tier, status, count in sorted(cast("Iterable[tuple[int, str, int]]", query.tuples())):
        sessions.add_metric([str(tier), status], count)
    return [sessions, _duration_histogram(), _cost_histogram(), _last_success()]


def _duration_histogram() -> Metric:
    family = HistogramMetricFamily("claudeops_session_duration_seconds", "Wall-clock duration of ended sessions",
                                   labels=["tier"])
    rows = SessionRow.select(SessionRow.tier, SessionRow.duration_ms).where(SessionRow.duration_ms.is_null(False))
    grouped: dict[tuple[str, ...], list[float]] = {}
    for tier, duration_ms in cast("Iterable[tuple[int, int]]", rows.tuples()):
        grouped.setdefault((str(tier),), []).append(duration_ms / 1000)
    _fill(family, grouped, DURATION_BUCKETS)
    return family


def _cost_histogram() -> Metric:
    family = HistogramMetricFamily("claudeops_session_cost_usd", "Cost of sessions that reported one; replayed "
                                   "sessions spent nothing (their cost is the recording's)",
                                   labels=["tier", "replayed"])
    rows = SessionRow.select(SessionRow.tier, SessionRow.replayed, SessionRow.cost_usd).where(
        SessionRow.cost_usd.is_null(False))
    grouped: dict[tuple[str, ...], list[float]] = {}
    for tier, replayed, cost in cast("Iterable[tuple[int, Any, float]]", rows.tuples()):
        grouped.setdefault((str(tier), "true" if replayed else "false"), []).append(cost)
    _fill(family, grouped, COST_BUCKETS)
    return family


def _fill(family: HistogramMetricFamily, grouped: dict[tuple[str, ...], list[float]],
          bounds: tuple[float, ...]) -> None:
    for labels, values in sorted(grouped.items()):
        buckets = [(_bound(bound), float(sum(1 for value in values if value <= bound))) for bound in bounds]
        buckets.append(("+Inf", float(len(values))))
        family.add_metric(list(labels), buckets, sum(values))


def _bound(bound: float) -> str:
    return f"{bound:g}" if bound != int(bound) else f"{bound:.1f}"


def _last_success() -> Metric:
    family = GaugeMetricFamily("claudeops_last_success_timestamp_seconds", "When the newest completed or escalated "
                               "session of each tier ended (Unix time)", labels=["tier"])
    query = (SessionRow.select(SessionRow.tier, peewee.fn.MAX(SessionRow.ended_at))
             .where(SessionRow.status.in_(("completed", "escalated")) & SessionRow.ended_at.is_null(False))
             .group_by(SessionRow.tier))
    for tier, ended_at in sorted(cast("Iterable[tuple[int, str]]", query.tuples())):
        family.add_metric([str(tier)], from_timestamp(ended_at).timestamp())
    return family


def marker_family() -> Metric:
    family = CounterMetricFamily("claudeops_markers", "Markers sessions recorded, by type", labels=["type"])
    query = (MarkerCountRow.select(MarkerCountRow.marker_type, peewee.fn.SUM(MarkerCountRow.count))
             .group_by(MarkerCountRow.marker_type))
    for marker_type, count in sorted(cast("Iterable[tuple[str, int]]", query.tuples())):
        family.add_metric([marker_type], count)
    return family


def service_families(statuses: list[ServiceStatus]) -> list[Metric]:
    counts = GaugeMetricFamily("claudeops_services", "Services by status: the level of each one's latest finding",
                               labels=["status"])
    for state in SERVICE_STATES:
        counts.add_metric([state], sum(1 for status in statuses if status.status == state))
    each = GaugeMetricFamily("claudeops_service_status", "1 for each service's current status",
                             labels=["service", "status"])
    for status in statuses:
        each.add_metric([status.service, status.status], 1)
    return [counts, each]
