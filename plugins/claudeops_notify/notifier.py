"""From what a session or a run did to notifications sent: routing, de-duplication, delivery.

The rules (docs/notifications.md § Rules):

* **Service problems** the agent reports (findings, ``[EVENT:<level>:<service>]``) go through the
  outage tracker (:mod:`claudeops_notify.outages`): one message when the trouble starts, one
  when it ends, flapping damped.
* **Findings about no service** at or above ``notify.events``, **session outcomes** in
  ``notify.sessions``, **cooldown refusals**, **review items** and **refused starts** notify
  once per fingerprint within ``notify.repeat_hours``; repeats are recorded as suppressed.
* A plugin may hold any notification back (``suppress_notification``: a maintenance window).
* Delivery is bounded by ``notify.max_seconds`` per session end or run end, retries included
  (:mod:`claudeops_notify.delivery`); a notification never fails a session: a failure here is
  logged and recorded, and the session's outcome is already stored when this runs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from claudeops import (
    COOLDOWN_REFUSED,
    FINDING,
    REVIEW_ITEM,
    Config,
    Outcome,
    PluginError,
    Run,
    RunOutcome,
    ServiceStatus,
    Session,
    canonical_service,
    from_timestamp,
    to_timestamp,
)
from claudeops_notify import outages, repository
from claudeops_notify.delivery import FAILED, Message, deliver
from claudeops_notify.messages import (
    SessionFacts,
    cooldown_notice,
    finding_notice,
    outage_notice,
    refusal_notice,
    review_notice,
    session_notice,
)
from claudeops_notify.repository import Notice
from claudeops_notify.settings import EVENT_THRESHOLDS, SECTION, NotifySettings
from claudeops_notify.targets import Target, load_targets

log = logging.getLogger(__name__)

LEVEL_RANK = {"info": 0, "warning": 1, "critical": 2}
Decision = tuple[Notice, str | None]
"""A notice and why it is suppressed (``None``: send it)."""


def configured_targets(config: Config) -> list[Target]:
    settings: NotifySettings = config.section(SECTION)
    return load_targets(settings.urls, settings.urls_file)


def public_url(config: Config) -> str:
    """``web.public_url``, or empty when the dashboard plugin (and its section) is not loaded."""
    return str(getattr(config.sections.get("web"), "public_url", "") or "")


def after_session(session: Session, outcome: Outcome) -> None:
    """Decide and send what this session's findings and outcome mean for the operator."""
    targets = configured_targets(session.config)
    if not targets:
        return
    settings: NotifySettings = session.config.section(SECTION)
    now = session.now()
    facts = SessionFacts.of(session, outcome, public_url(session.config))
    decisions = [*_held_back(now, settings), *_outage_decisions(session, facts, settings, now),
                 *_event_decisions(session.recorded_events, facts, settings)]
    if (what := _session_outcome(session.tier, outcome.status)) in settings.sessions:
        decisions.append((session_notice(facts, what, outcome.reason), None))
    send_all(decisions, targets, session, now)


def after_run(run: Run, outcome: RunOutcome) -> None:
    """A refused start, flapping recoveries that held, and the daily digest when it is due."""
    from claudeops_notify.digest import digest_decision

    targets = configured_targets(run.config)
    if not targets:
        return
    settings: NotifySettings = run.config.section(SECTION)
    now = run.now()
    decisions = list(_held_back(now, settings))
    if outcome.refused is not None and settings.start_refusals:
        session_id = outcome.session_ids[-1] if outcome.session_ids else None
        decisions.append((refusal_notice(outcome.refused, session_id), None))
    if (digest := digest_decision(run, settings)) is not None:
        decisions.append(digest)
    send_all(decisions, targets, run, now)


def _session_outcome(tier: int, status: str) -> str:
    """``failed``, ``interrupted``, ``escalated``, ``remediated`` (tier 3 completed), or the status."""
    return "remediated" if status == "completed" and tier == 3 else status


def _held_back(now: str, settings: NotifySettings) -> Iterable[Decision]:
    for news in outages.held_back_recoveries(now, timedelta(minutes=settings.flap_minutes)):
        yield outage_notice(news, None), None


def _outage_decisions(session: Session, facts: SessionFacts, settings: NotifySettings, now: str) -> Iterable[Decision]:
    services = dict.fromkeys(event.service for event in session.recorded_events
                             if event.kind == FINDING and event.service)
    if not services:
        return
    statuses = _statuses(session)
    for service in services:
        status = statuses.get(canonical_service(str(service)))
        if status is None:
            continue
        news = outages.observe(status, EVENT_THRESHOLDS[settings.events], now,
                               timedelta(minutes=settings.flap_minutes))
        if news is not None:
            yield outage_notice(news, facts), None if _never_told(news) else news.suppressed


def _never_told(news: outages.OutageNews) -> bool:
    """A repeat of an open outage whose message reached no one yet (held back while the service was in
    maintenance, or every delivery failed): it is sent now rather than kept quiet as a duplicate."""
    return (news.what == outages.PROBLEM and news.suppressed is not None
            and repository.last_delivered(news.fingerprint, news.outage.opened_at) is None)


def _statuses(session: Session) -> dict[str, ServiceStatus]:
    try:
        answer = session.hook.service_statuses()
    except PluginError as exc:
        log.error("%s", exc)
        return {}
    return {status.service: status for status in answer or ()}


def _event_decisions(events: Iterable[Any], facts: SessionFacts, settings: NotifySettings) -> Iterable[Decision]:
    threshold = {"warning": 1, "critical": 2}.get(settings.events)
    review_items: dict[str, list[Any]] = {}
    for event in events:
        if event.kind == FINDING and not event.service and threshold is not None \
                and LEVEL_RANK.get(event.level, 0) >= threshold:
            yield finding_notice(event, facts), None
        elif event.kind == COOLDOWN_REFUSED and settings.cooldown_refusals:
            yield cooldown_notice(event, facts), None
        elif event.kind == REVIEW_ITEM and settings.review_items:
            review_items.setdefault(event.level, []).append(event)
    for items in review_items.values():  # one message per kind of review item, however many joined
        yield review_notice(items, facts), None


def send_all(decisions: list[Decision], targets: list[Target], source: Session | Run, now: str) -> None:
    """Record every decision and send the ones not suppressed, all within ``notify.max_seconds``.

    ``source`` is the session or run the decisions come from: its configuration and plugins.
    """
    settings: NotifySettings = source.config.section(SECTION)
    deadline = time.monotonic() + settings.max_seconds
    for notice, suppressed in decisions:
        try:
            _send_one(notice, suppressed, targets, source, now, deadline)
        except Exception as exc:  # a notification never fails a session
            log.error("notification %r: %s: %s", notice.title, type(exc).__name__, exc)


def _send_one(notice: Notice, suppressed: str | None, targets: list[Target], source: Session | Run, now: str,
              deadline: float) -> None:
    settings: NotifySettings = source.config.section(SECTION)
    receivers = [target for target in targets if target.receives(notice.kind)]
    reason = (suppressed or _repeat(notice, settings, now) or _held_by_plugin(source, notice, now)
              or (None if receivers else f"no notify URL takes '{notice.kind}' notifications (see their tags)"))
    if reason is not None:
        repository.record(notice, now, repository.SUPPRESSED, reason)
        log.info("notification %r suppressed: %s", notice.title, reason)
        return
    notification_id = repository.record(notice, now)
    try:
        delivery = deliver(receivers, Message(notice.title, notice.body, notice.level),
                           timeout=settings.timeout_seconds, retries=settings.retries, deadline=deadline)
    except Exception as exc:  # recorded as failed, never left pending
        repository.settle(notification_id, FAILED, f"delivery failed: {type(exc).__name__}", 0, None)
        raise
    sent_at = now if delivery.outcome != FAILED else None
    repository.settle(notification_id, delivery.outcome, delivery.reason, delivery.attempts, sent_at)


def _repeat(notice: Notice, settings: NotifySettings, now: str) -> str | None:
    """Why a notice that is not about an outage repeats one sent within ``notify.repeat_hours``."""
    if notice.kind in ("outage", "digest", "test"):
        return None  # the outage tracker and the digest's day keep these unique
    since = to_timestamp(from_timestamp(now) - timedelta(hours=settings.repeat_hours))
    earlier = repository.last_delivered(notice.fingerprint, since)
    if earlier is None:
        return None
    return (f"duplicate: the same notification was sent at {earlier.created_at} (#{earlier.id}); repeats are held "
            f"back for notify.repeat_hours ({settings.repeat_hours:g} h)")


def _held_by_plugin(source: Session | Run, notice: Notice, now: str) -> str | None:
    try:
        reason = source.hook.suppress_notification(config=source.config, service=notice.service,
                                                    kind=notice.kind, now=now)
    except PluginError as exc:  # a broken check must not silence the operator's alerts
        log.error("%s; sending the notification anyway", exc)
        return None
    return f"suppressed by a plugin: {reason}" if reason else None
