"""Built-in plugin: events, the feed of what an operator should see.

Stores the agent's ``[EVENT:<level>:<service>] message`` markers and every other notable
happening (escalations, failed sessions, blocked remediations, contradicted memories) that any
plugin or the runner reports through the ``record_event`` hook, all in one ``events`` table.
The dashboard reads it through :mod:`claudeops_events.repository`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from claudeops import NotableEvent, ServiceStatus, hookimpl
from claudeops_events.marker import event_marker_type
from claudeops_events.models import MIGRATIONS
from claudeops_events.repository import store_event
from claudeops_events.status import service_statuses as current_statuses
from claudeops_events.web import register_web  # noqa: F401  the /events dashboard page

OWNER = "events"


@hookimpl
def register_migrations(register: Callable[..., None]) -> None:
    register(OWNER, MIGRATIONS)


@hookimpl
def register_marker_types(register: Callable[..., None]) -> None:
    register(event_marker_type())


@hookimpl
def record_event(event: NotableEvent) -> None:
    store_event(event)


@hookimpl
def register_commands(cli: click.Group) -> None:
    from claudeops_events.cli import events_group  # here: a session does not use it

    cli.add_command(events_group)


@hookimpl
def service_statuses() -> list[ServiceStatus]:
    return current_statuses()


@hookimpl
def collect_metrics() -> list[Any]:
    from prometheus_client.core import CounterMetricFamily

    from claudeops_events.repository import count_events_by_level

    family = CounterMetricFamily("claudeops_events", "Events recorded, by level", labels=["level"])
    for level, count in count_events_by_level().items():
        family.add_metric([level], count)
    return [family]
