"""``POST /api/v1/alerts`` and the task that turns queued alerts into runs.

The endpoint is a webhook: the dashboard lets it through only with ``Authorization: Bearer`` and
``web.alert_token`` (or ``web.token``); with neither set every request is refused. It answers
``202`` at once; the background task starts the run within half a second when the lock is free.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Annotated, Any

from claudeops_web.context import WebContext
from litestar import post
from litestar.di import NamedDependency
from litestar.exceptions import ValidationException
from litestar.params import JSONBody, QueryParameter

from claudeops import LaunchError, db
from claudeops_alerts import queue
from claudeops_alerts.parse import AlertPayloadError, parse_alerts

log = logging.getLogger(__name__)

POLL_SECONDS = 0.5
"""How often the queue looks for a free lock: a queued alert starts within this of the lock freeing."""
RETRY_AFTER_FAILURE = 60.0
"""A run that cannot start at all (no credentials, a broken config) is retried this much later, not every poll."""
RETRY_WHILE_HELD = 60.0
"""Alerts held by a refused start (a spend cap) ask ``claudeops.start_refusal`` this often: a query, no run."""


@dataclass(frozen=True)
class AlertOut:
    id: int
    source: str
    status: str
    name: str
    services: list[str]
    state: str
    tier: int
    brief: str


@dataclass(frozen=True)
class AlertsReceived:
    """What became of each alert: ``queued`` (a run starts when the lock is free), ``repeat``, ``resolved``…"""

    received: int
    queued: int
    alerts: list[AlertOut]


# Not in the OpenAPI document: the body is one of four external formats (docs/web.md), which the
# document could only call "any object", so a client could not learn from it what is refused.
@post("/alerts", sync_to_thread=True, status_code=202, tags=["alerts"], include_in_schema=False)
def receive_alerts(web: NamedDependency[WebContext], data: JSONBody[dict[str, Any]],
                   source: Annotated[str | None, QueryParameter()] = None) -> AlertsReceived:
    """An Alertmanager, Grafana, Uptime Kuma or generic alert (``?source=`` forces the shape).

    Needs ``Authorization: Bearer <web.alert_token or web.token>``; refused when neither is set.
    """
    try:
        alerts = parse_alerts(data, web.config.inventory, source)
    except AlertPayloadError as exc:
        raise ValidationException(str(exc)) from None
    with db.connection_context():
        rows = queue.receive(web.config, alerts)
    out = [AlertOut(row.id, row.source, row.status, row.name, row.service_list, row.state, row.tier, row.brief)
           for row in rows]
    return AlertsReceived(len(out), sum(1 for item in out if item.state == "queued"), out)


async def run_alert_queue(web: WebContext) -> None:
    """For the dashboard's lifetime: start a run for the queued alerts whenever the lock is free."""
    await asyncio.to_thread(_in_connection, queue.recover_unstarted)
    while True:
        try:
            session_id = await asyncio.to_thread(_in_connection, queue.dispatch_queued, web.config, web.hook,
                                                 web.settings.run_command)
        except queue.Held as held:
            if held.first:
                log.warning("queued alerts are held (asked again every %g s, no run started meanwhile): %s",
                            RETRY_WHILE_HELD, held.reason)
            await asyncio.sleep(RETRY_WHILE_HELD)
            continue
        except LaunchError as exc:
            log.error("queued alerts could not start a run (retrying in %g s): %s", RETRY_AFTER_FAILURE, exc)
            await asyncio.sleep(RETRY_AFTER_FAILURE)
            continue
        except Exception:
            log.exception("the alert queue failed; retrying in %g s", RETRY_AFTER_FAILURE)
            await asyncio.sleep(RETRY_AFTER_FAILURE)
            continue
        if session_id is not None:
            log.info("queued alerts started session #%d", session_id)
        await asyncio.sleep(POLL_SECONDS)


def _in_connection(function: Any, *args: Any) -> Any:
    with db.connection_context():
        return function(*args)
