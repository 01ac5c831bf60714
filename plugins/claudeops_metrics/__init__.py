"""Built-in plugin: ``/metrics`` for Prometheus and ``/api/v1/status`` for home-lab dashboards (issue 17).

The figures are read from the database at every scrape: the core's sessions (by tier and
status, duration and cost histograms, the last success per tier), the markers sessions
recorded (counted here, ``marker_counts``), the services' statuses, and each plugin's own
families through the ``collect_metrics`` hook (memories, events, cooldown refusals,
notifications, spend), so plugins report their tables without anyone importing them.
"""

from __future__ import annotations

from collections.abc import Callable

from claudeops import Marker, Outcome, Session, hookimpl
from claudeops_metrics.counting import count_marker, keep_counts
from claudeops_metrics.models import MIGRATIONS, OWNER
from claudeops_metrics.web import register_web  # noqa: F401  /metrics and /api/v1/status


@hookimpl
def register_migrations(register: Callable[..., None]) -> None:
    register(OWNER, MIGRATIONS)


@hookimpl
def on_marker(session: Session, marker: Marker) -> None:
    count_marker(session, marker)


@hookimpl
def after_session(session: Session, outcome: Outcome) -> None:
    keep_counts(session)
