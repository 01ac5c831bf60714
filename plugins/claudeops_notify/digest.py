"""The daily digest: one message a day, sent by the first run after ``notify.digest`` (local time).

Cron drives claudeops, so there is no daemon to wake at 08:00: the first run that ends at or
after that local time sends the day's digest. The day is claimed in ``notify_digests`` before
the message is built (a primary key on the local date), so two runs can never both send it,
and a digest whose delivery failed is not retried by a later run (it is in the notifications
list, ``failed``, with the reason).

What it says: services up / degraded / down (``service_statuses``), what is still open (outages
this plugin tracks), the cost of the last 24 h (``claudeops.spend_since``: replays cost
nothing), and each plugin's own lines (``digest_lines``: the memory plugin's memories created
and changed).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from itertools import chain

import peewee

from claudeops import PluginError, Run, db, one_line, redact, spend_since, to_timestamp, write_patiently
from claudeops_notify.models import DigestRow
from claudeops_notify.outages import open_outages
from claudeops_notify.repository import Notice
from claudeops_notify.settings import NotifySettings

log = logging.getLogger(__name__)

DAY = timedelta(hours=24)


def due_day(now: datetime, at: str) -> str | None:
    """The local date whose digest is due at ``now`` (``at`` is HH:MM local), or ``None`` before ``at``."""
    local = now.astimezone()
    hour, minute = (int(part) for part in at.split(":"))
    if (local.hour, local.minute) < (hour, minute):
        return None
    return local.date().isoformat()


def claim(day: str, now: str) -> bool:
    """Take the day's digest for this run; ``False`` when another run already did."""
    def insert() -> bool:
        try:
            with db.atomic():
                DigestRow.create(day=day, claimed_at=now)
        except peewee.IntegrityError:
            return False
        return True

    return write_patiently(insert, "claiming the daily digest")


def digest_decision(run: Run, settings: NotifySettings) -> tuple[Notice, None] | None:
    """The digest to send now, claimed, or ``None`` when none is due (or it went out already)."""
    if not settings.digest:
        return None
    moment = run.clock()
    day = due_day(moment, settings.digest)
    if day is None or not claim(day, run.now()):
        return None
    return build_digest(run, day, moment), None


def build_digest(run: Run, day: str, moment: datetime) -> Notice:
    until, since = to_timestamp(moment), to_timestamp(moment - DAY)
    lines = [*_service_lines(run), *_open_lines(), f"**Cost, last 24 h:** ${spend_since(since):.2f}"]
    lines += _plugin_lines(run, since, until)
    body = "\n\n".join(lines)
    return Notice("digest", f"digest:{day}", "info", redact(f"claudeops daily digest for {day}"), redact(body))


def _service_lines(run: Run) -> list[str]:
    try:
        statuses = run.hook.service_statuses() or []
    except PluginError as exc:
        log.error("%s", exc)
        return ["**Services:** unknown (the status check failed)"]
    counts = {status: sum(1 for item in statuses if item.status == status) for status in ("up", "degraded", "down")}
    line = f"**Services:** {counts['up']} healthy, {counts['degraded']} degraded, {counts['down']} down"
    troubled = [f"{item.service} ({item.status} since {item.since})" for item in statuses
                if item.status in ("degraded", "down")]
    return [line + (": " + ", ".join(troubled) if troubled else "")]


def _open_lines() -> list[str]:
    still_open = open_outages()
    if not still_open:
        return ["**Open problems:** none"]
    items = ", ".join(f"{outage.service} {outage.condition} since {outage.opened_at}" for outage in still_open)
    return [f"**Open problems:** {len(still_open)}: {items}"]


def _plugin_lines(run: Run, since: str, until: str) -> list[str]:
    try:
        answers = run.hook.digest_lines(since=since, until=until)
    except PluginError as exc:
        log.error("%s", exc)
        return []
    return [one_line(line) for line in chain.from_iterable(answer or [] for answer in answers)]
