"""Receiving alerts and running them: de-duplicated by fingerprint, queued while a run is busy,
coalesced into one run when the lock frees, never dropped.

:func:`receive` stores what a webhook said (each alert's state decided here, see
:data:`claudeops_alerts.models.STATES`); :func:`dispatch_queued` is called by the dashboard's
background task every half second: when alerts are queued and the run lock is free it starts one
``claudeops run`` (trigger ``alert``, the sources as trigger source) whose prompt quotes every
queued alert's brief, at the highest tier their rules ask for. A run that cannot start leaves
them queued. A run refused permission to start (a spend cap, exit 77) leaves them queued and
*held*, with the reason on each: the queue then asks :func:`claudeops.start_refusal` (which records
nothing) until the refusal lifts — the cap's period changes, or the dashboard restarts with a
higher cap — instead of starting a run that would be refused again, so the refusal is recorded once.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import pluggy

from claudeops import (
    Config,
    RunBusy,
    RunOrder,
    StartRefused,
    counted,
    db,
    is_paused,
    lock_holder,
    start_refusal,
    start_run,
    to_timestamp,
    utc_now,
)
from claudeops_alerts.models import AlertRow
from claudeops_alerts.parse import Alert
from claudeops_alerts.settings import SECTION, AlertSettings, Rule, parse_rules

WAITING = ("queued", "starting")
MAX_SERVICES_NAMED = 10
"""Services of the alerts left out of a prompt that its count line names."""


def receive(config: Config, alerts: Sequence[Alert], now: datetime | None = None) -> list[AlertRow]:
    """Store ``alerts`` (one transaction) and return their rows, each with the state it was given."""
    now = now or utc_now()
    settings: AlertSettings = config.section(SECTION)
    rules = parse_rules(settings.rules)
    rows = []
    with db.atomic():
        for alert in alerts:
            rows.append(AlertRow.create(
                received_at=to_timestamp(now), source=alert.source, fingerprint=alert.fingerprint,
                status=alert.status, name=alert.name, services=",".join(alert.services), severity=alert.severity,
                brief=alert.brief, state=_state(config, alert, now, settings),
                tier=tier_for(alert, rules, settings.default_tier, config.core.max_tier)))
    return rows


def _state(config: Config, alert: Alert, now: datetime, settings: AlertSettings) -> str:
    if alert.status in ("test", "resolved"):
        return alert.status
    if all(is_paused(config, service, now) for service in alert.services or [None]):
        return "maintenance"
    cutoff = to_timestamp(now - timedelta(minutes=settings.dedup_minutes))
    same = AlertRow.select().where((AlertRow.fingerprint == alert.fingerprint) & (
        AlertRow.state.in_(WAITING) | ((AlertRow.state == "started") & (AlertRow.received_at >= cutoff))))
    return "repeat" if same.exists() else "queued"


def tier_for(alert: Alert, rules: Sequence[Rule], default: int, max_tier: int) -> int:
    """The highest tier a rule gives the alert (else ``default``), at most ``max_tier``."""
    values = {"source": [alert.source], "severity": [alert.severity], "service": list(alert.services),
              "name": [alert.name]}
    matched = [rule.tier for rule in rules if rule.matches(values)]
    return min(max(matched, default=default), max_tier)


def recover_unstarted() -> int:
    """Alerts left ``starting`` by a dashboard that stopped mid-start go back to the queue."""
    recovered: int = AlertRow.update(state="queued").where(
        (AlertRow.state == "starting") & AlertRow.session_id.is_null()).execute()
    return recovered


class Held(Exception):
    """The queued alerts wait for a refusal to lift; ``reason`` is on each of them. ``first``: a run was
    refused just now (the refusal was recorded once, as an event); otherwise it still stands."""

    def __init__(self, reason: str, first: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.first = first


def dispatch_queued(config: Config, hook: pluggy.HookRelay, command: Sequence[str] = ()) -> int | None:
    """Start one run for every queued alert when the lock is free; the session id, or ``None``.

    ``LaunchError`` (the run cannot start at all) is raised with the alerts back in the queue;
    :class:`Held` when a refusal holds them (checked without starting a run once one was refused).
    """
    if not AlertRow.select().where(AlertRow.state == "queued").exists() or lock_holder(config.state_dir):
        return None
    waiting = list(AlertRow.select().where(AlertRow.state == "queued"))
    tier = max(row.tier for row in waiting)
    if any(row.held for row in waiting):
        reason = start_refusal(config, hook, tier)
        if reason is not None:
            _hold(reason)
            raise Held(reason, first=False)
    with db.atomic():
        rows = list(AlertRow.select().where(AlertRow.state == "queued").order_by(AlertRow.id))
        ids = [row.id for row in rows]
        AlertRow.update(state="starting").where(AlertRow.id.in_(ids)).execute()
    order = RunOrder(tier=max(row.tier for row in rows), trigger="alert",
                     trigger_source="+".join(sorted({row.source for row in rows})),
                     alerts=quoted_briefs(rows, config.section(SECTION).max_briefs))
    try:
        started = start_run(config, order, command)
    except BaseException as exc:
        AlertRow.update(state="queued").where(AlertRow.id.in_(ids)).execute()
        if isinstance(exc, StartRefused):
            _hold(str(exc))
            raise Held(str(exc), first=True) from None
        if isinstance(exc, RunBusy):
            return None
        raise
    AlertRow.update(state="started", session_id=started.session_id, held=None).where(
        AlertRow.id.in_(ids)).execute()
    return started.session_id


def quoted_briefs(rows: Sequence[AlertRow], most: int) -> tuple[str, ...]:
    """The briefs one run quotes: the oldest ``most``, then one line counting the others and the
    services they name, so a flood of alerts makes one bounded prompt and none goes unmentioned."""
    briefs = tuple(row.brief for row in rows[:most])
    rest = rows[most:]
    if not rest:
        return briefs
    services = sorted({name for row in rest for name in row.service_list})
    named = f"; services named: {', '.join(services[:MAX_SERVICES_NAMED])}" if services else ""
    if len(services) > MAX_SERVICES_NAMED:
        named += f" and {len(services) - MAX_SERVICES_NAMED} more"
    return (*briefs, f"(and {counted(len(rest), 'more alert')} not quoted here, alerts.max_briefs = {most}{named}; "
                     "all are listed on the dashboard's /alerts page)")


def _hold(reason: str) -> None:
    """Every queued alert is held by ``reason`` (the ones that arrived since included)."""
    AlertRow.update(held=reason).where(AlertRow.state == "queued").execute()


def recent_alerts(limit: int = 50) -> list[AlertRow]:
    return list(AlertRow.select().order_by(AlertRow.id.desc()).limit(limit))


def alerts_of_session(session_id: int) -> list[AlertRow]:
    return list(AlertRow.select().where(AlertRow.session_id == session_id).order_by(AlertRow.id))
