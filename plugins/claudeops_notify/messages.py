"""What each notification says: a short title and a Markdown body, redacted before anything else sees it.

A message about a service names it, says what was found (the agent's own words from the
session's latest finding), what was done about it or what a human should do, and links the
session (``web.public_url`` + ``/sessions/<id>`` when the dashboard's public address is set,
else ``session #<id>``). Every title and body goes through ``claudeops.redact_secrets``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from claudeops import COOLDOWN_REFUSED, FINDING, NotableEvent, Outcome, Session, from_timestamp, one_line, redact
from claudeops_notify.outages import CHANGED, FLAPPING, PROBLEM, RESOLVED, Outage, OutageNews
from claudeops_notify.repository import Notice

MAX_QUOTE = 400
"""Longest quotation of the agent's text in a message (a final report can be pages long)."""


@dataclass(frozen=True)
class SessionFacts:
    """What a message may say about the session that found something."""

    id: int
    tier: int
    status: str
    events: tuple[NotableEvent, ...]
    escalation: str | None
    result_text: str | None
    link: str

    @classmethod
    def of(cls, session: Session, outcome: Outcome, public_url: str) -> SessionFacts:
        escalation = session.escalation.reason if session.escalation is not None else None
        return cls(session.id, session.tier, outcome.status, tuple(session.recorded_events), escalation,
                   outcome.result_text, session_link(session.id, public_url))

    def latest_finding(self, service: str) -> str | None:
        found = [event.message for event in self.events if event.kind == FINDING and event.service == service]
        return found[-1] if found else None

    def done(self, service: str | None = None) -> str:
        """What the agent did about it, or what it leaves to a human."""
        next_tier = self.tier + 1
        if self.status == "escalated":
            return f"Tier {self.tier} handed over to tier {next_tier}: {_quote(self.escalation or '')}"
        if self.escalation is not None:
            starts = (f"escalation to tier {next_tier}", f"tier {next_tier} not started")
            why = next((event.message for event in self.events if event.message.startswith(starts)), "see the session")
            return (f"Tier {self.tier} asked for tier {next_tier}, which did not start ({_quote(why)}): "
                    "a human should look.")
        refused = [event for event in self.events if event.kind == COOLDOWN_REFUSED
                   and (service is None or event.service == service)]
        if refused:
            return f"A remediation was refused by its cooldown ({_quote(refused[-1].message)}): a human should decide."
        if self.tier == 1:
            return "Nothing was changed: tier 1 only observes."
        summary = _quote(self.result_text or "") or "no report"
        return f"Tier {self.tier} session {self.status}: {summary}"


def session_link(session_id: int, public_url: str) -> str:
    if public_url:
        return f"[session #{session_id}]({public_url.rstrip('/')}/sessions/{session_id})"
    return f"session #{session_id}"


def outage_notice(news: OutageNews, facts: SessionFacts | None) -> Notice:
    """The message for an outage's news (opened, changed, flapping, resolved)."""
    outage = news.outage
    title, lines = _outage_text(news, outage)
    if facts is not None:
        if news.what != RESOLVED:
            if finding := facts.latest_finding(outage.service):
                lines.append(f"**Found:** {_quote(finding)}")
            lines.append(f"**Done:** {facts.done(outage.service)}")
        lines.append(f"**Session:** {facts.link}")
    level = "resolved" if news.what.startswith(RESOLVED) else ("critical" if outage.condition == "down" else "warning")
    return _notice("outage", news.fingerprint, level, title, lines, outage.service, facts.id if facts else None)


def _outage_text(news: OutageNews, outage: Outage) -> tuple[str, list[str]]:
    service, condition = outage.service, outage.condition
    if news.what == PROBLEM:
        return f"{service} is {condition}", [f"**{service}** is **{condition}** since {outage.opened_at}."]
    if news.what == CHANGED:
        return (f"{service} is now {condition} (was {news.previous})",
                [f"**{service}** is now **{condition}**; in trouble since {outage.opened_at}."])
    if news.what == FLAPPING:
        return (f"{service} is flapping: {condition} again",
                [f"**{service}** is **{condition}** again soon after it recovered (in trouble since "
                 f"{outage.opened_at}). Further changes are not notified until it is stable."])
    lasted = duration(outage.opened_at, outage.resolved_at or outage.opened_at)
    if news.what == RESOLVED:
        return (f"{service} recovered after {lasted}",
                [f"**{service}** is **up** again since {outage.resolved_at}; the outage began {outage.opened_at} "
                 f"and lasted {lasted}."])
    return (f"{service} recovered (stable again after flapping)",
            [f"**{service}** has stayed **up** since {outage.resolved_at} after flapping {outage.flaps} "
             f"time{'s' if outage.flaps != 1 else ''}; the trouble began {outage.opened_at} and lasted {lasted}."])


def finding_notice(event: NotableEvent, facts: SessionFacts) -> Notice:
    """A finding about no particular service (``[EVENT:warning] backups are 3 days old``)."""
    lines = [f"**Found:** {_quote(event.message)}", f"**Done:** {facts.done()}", f"**Session:** {facts.link}"]
    return _notice("event", f"event:{event.level}:{event.message}", event.level,
                   f"{event.level}: {one_line(event.message)[:80]}", lines, None, facts.id)


def session_notice(facts: SessionFacts, what: str, reason: str | None) -> Notice:
    """A session outcome: failed, interrupted, escalated or remediated (tier 3 completed)."""
    titles = {"failed": f"tier {facts.tier} session failed", "interrupted": f"tier {facts.tier} session interrupted",
              "escalated": f"tier {facts.tier} escalated to tier {facts.tier + 1}",
              "remediated": f"tier {facts.tier} remediation done"}
    lines = []
    if reason:
        lines.append(f"**Why:** {_quote(reason)}")
    lines += [f"**Done:** {facts.done()}", f"**Session:** {facts.link}"]
    fingerprint = f"session:{what}:{reason or facts.escalation or facts.id}"
    level = {"failed": "critical", "interrupted": "warning", "escalated": "warning"}.get(what, "info")
    return _notice("session", fingerprint, level, titles[what], lines, None, facts.id)


def cooldown_notice(event: NotableEvent, facts: SessionFacts | None) -> Notice:
    lines = [f"**Refused:** {_quote(event.message)}", "An operator should decide whether it needs doing "
             "(`claudeops cooldowns reset SERVICE` lifts the limit)."]
    if facts is not None:
        lines.append(f"**Session:** {facts.link}")
    return _notice("cooldown", f"cooldown:{event.service}", "warning",
                   f"cooldown refused a remediation of {event.service or 'a service'}", lines, event.service,
                   event.session_id)


REVIEW_KINDS = {"info": "a judge was unsure", "warning": "a memory was weakened or held back"}
"""The kinds of review item, by the level of their event: the routine one (the judge could not tell
whether two memories state the same fact, which a conservative judge says often) and the ones
where something changed (a memory replaced or contradicted, an instruction-like marker held back)."""
MAX_REVIEW_QUOTES = 5


def review_notice(items: list[NotableEvent], facts: SessionFacts) -> Notice:
    """One message for every review item of one kind a session added, with their count.

    The fingerprint is the kind's (``review:warning``), not the item's: a repeat within
    ``notify.repeat_hours`` is held back, because the queue on the dashboard lists them all and
    one message per kind is enough to send the operator there.
    """
    level = items[0].level
    count = "1 item waits" if len(items) == 1 else f"{len(items)} items wait"
    lines = [f"- {_quote(event.message)}" for event in items[:MAX_REVIEW_QUOTES]]
    if len(items) > MAX_REVIEW_QUOTES:
        lines.append(f"- … and {len(items) - MAX_REVIEW_QUOTES} more")
    lines += ["See the dashboard's review queue; more items of this kind are not announced again within "
              "notify.repeat_hours.", f"**Session:** {facts.link}"]
    services = {event.service for event in items}
    return _notice("review", f"review:{level}", "info",
                   f"memory review: {count} for you ({REVIEW_KINDS.get(level, level)})", lines,
                   services.pop() if len(services) == 1 else None, facts.id)


def refusal_notice(reason: str, session_id: int | None) -> Notice:
    return _notice("budget", "start_refused", "warning", "claudeops refused to start a session",
                   [f"**Why:** {_quote(reason)}", "Raise `[budget]` caps or wait for the next day or month."],
                   None, session_id)


def _notice(kind: str, fingerprint: str, level: str, title: str, lines: list[str], service: str | None,
            session_id: int | None) -> Notice:
    return Notice(kind, redact(fingerprint), level, redact(one_line(title)), redact("\n\n".join(lines)), service,
                  session_id)


def _quote(text: str) -> str:
    text = one_line(text)
    return text if len(text) <= MAX_QUOTE else text[:MAX_QUOTE - 1] + "…"


def duration(start: str, end: str) -> str:
    """``2 h 14 min``, ``45 min``, ``30 s``, ``3 d 2 h``: how long from ``start`` to ``end``."""
    seconds = max(0, int((from_timestamp(end) - from_timestamp(start)).total_seconds()))
    delta = timedelta(seconds=seconds)
    days, hours, minutes = delta.days, delta.seconds // 3600, delta.seconds % 3600 // 60
    if days:
        return f"{days} d {hours} h" if hours else f"{days} d"
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    return f"{minutes} min" if minutes else f"{seconds} s"
