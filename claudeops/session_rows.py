"""The ``sessions`` table the core owns: one row per agent session, from start to outcome."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, cast

import peewee

from claudeops.clock import from_timestamp, now_timestamp, utc_now
from claudeops.maintenance import create_pauses_table
from claudeops.redaction import may_hold_secret, redact
from claudeops.store import (
    MIGRATIONS_TABLE,
    BaseModel,
    Migration,
    add_column,
    add_flag_column,
    create_frozen_tables,
    db,
    insert_returning_id,
    is_row_id,
    portable_sql,
    redact_columns,
)

log = logging.getLogger(__name__)

STATUSES = ("running", "completed", "failed", "interrupted", "escalated")


class SessionRow(BaseModel):
    """One session. Escalated children point at their parent through ``parent_session_id``."""

    id = peewee.AutoField()
    tier = peewee.IntegerField()
    model = peewee.TextField()
    trigger = peewee.TextField(default="scheduled")
    trigger_source = peewee.TextField(null=True)
    """Who or what the trigger was: ``dashboard`` or ``api`` for Run now, the monitoring for ``alert``
    (``alertmanager``, ``uptime-kuma+grafana``); ``NULL`` for cron, escalations and older rows."""
    status = peewee.TextField(default="running", index=True)
    started_at = peewee.TextField(index=True)
    ended_at = peewee.TextField(null=True)
    cost_usd = peewee.FloatField(null=True)
    num_turns = peewee.IntegerField(null=True)
    duration_ms = peewee.IntegerField(null=True)
    duration_api_ms = peewee.IntegerField(null=True)
    result = peewee.TextField(null=True)
    sdk_session_id = peewee.TextField(null=True)
    parent_session_id = peewee.ForeignKeyField("self", null=True, backref="children",
                                               column_name="parent_session_id", on_delete="SET NULL")
    transcript_path = peewee.TextField(null=True)
    error = peewee.TextField(null=True)
    runner = peewee.TextField(null=True)
    replayed = peewee.BooleanField(default=False)

    class Meta:
        table_name = "sessions"


def _create_sessions(database: peewee.Database) -> None:
    """Create the table from a frozen copy of its first schema: later columns come from later migrations."""

    class Session0001(peewee.Model):
        id = peewee.AutoField()
        tier = peewee.IntegerField()
        model = peewee.TextField()
        trigger = peewee.TextField(default="scheduled")
        status = peewee.TextField(default="running", index=True)
        started_at = peewee.TextField(index=True)
        ended_at = peewee.TextField(null=True)
        cost_usd = peewee.FloatField(null=True)
        num_turns = peewee.IntegerField(null=True)
        duration_ms = peewee.IntegerField(null=True)
        result = peewee.TextField(null=True)
        sdk_session_id = peewee.TextField(null=True)
        parent_session_id = peewee.ForeignKeyField("self", null=True, backref="children",
                                                   column_name="parent_session_id", on_delete="SET NULL")
        transcript_path = peewee.TextField(null=True)
        error = peewee.TextField(null=True)

        class Meta:
            table_name = "sessions"
            legacy_table_names = False

    create_frozen_tables(database, Session0001)


RENAMED_OWNERS = {"claudeops_events": "events", "claudeops_cooldowns": "cooldowns"}
"""Migration owners from before the one naming rule (owner = settings section), and their names now."""


def _rename_owners(database: peewee.Database) -> None:
    """Record the events' and cooldowns' applied migrations under their section names.

    Core's migrations run first, so the plugins' own steps then find theirs applied.
    """
    for old, new in RENAMED_OWNERS.items():
        database.execute_sql(portable_sql(f"UPDATE {MIGRATIONS_TABLE} SET owner = ? WHERE owner = ?"), (new, old))


def _redact_sessions(database: peewee.Database) -> None:
    """Secrets out of what earlier versions kept of a session: its final report, its failure reason and
    its transcript file (whose redaction missed GitHub, AWS, Slack keys, PEM blocks and ``password=``)."""
    redact_columns("sessions", "result", "error")(database)
    paths = database.execute_sql("SELECT transcript_path FROM sessions WHERE status <> 'running' "
                                 "AND transcript_path IS NOT NULL").fetchall()
    rewritten = sum(redact_transcript_file(Path(path)) for (path,) in paths)
    if rewritten:
        log.warning("removed secrets from %d transcript file(s) written by an earlier version", rewritten)


def redact_transcript_file(path: Path) -> bool:
    """Rewrite a finished session's transcript without its secrets; whether it changed.

    The new text goes to a file beside it that then replaces it, so a crash leaves one or the
    other whole. A file that is missing (another host's, or deleted) or unreadable is left alone.
    """
    try:
        text = path.read_bytes().decode("utf-8", "surrogateescape")
    except OSError:
        return False
    if not may_hold_secret(text):
        return False
    redacted = redact(text)
    if redacted == text:
        return False
    with tempfile.NamedTemporaryFile("wb", dir=path.parent, prefix=f".{path.name}.", delete=False) as handle:
        handle.write(redacted.encode("utf-8", "surrogateescape"))
    shutil.copymode(path, handle.name)
    os.replace(handle.name, path)
    return True


CORE_MIGRATIONS = (
    Migration("0001_create_sessions", _create_sessions),
    # the time the model API spent on the session (ResultMessage.duration_api_ms), next to the wall time
    Migration("0002_add_duration_api_ms", add_column("sessions", "duration_api_ms", peewee.IntegerField(null=True))),
    # which runner a row belongs to (lock.run_domain): hosts sharing a database settle only their own rows
    Migration("0003_add_runner", add_column("sessions", "runner", peewee.TextField(null=True))),
    Migration("0004_owners_named_by_section", _rename_owners),
    # operators' maintenance pauses (claudeops pause, the dashboard), read by claudeops.maintenance.is_paused
    Migration("0005_create_maintenance_pauses", create_pauses_table),
    # who started a Run now or which monitoring sent the alerts of an alert-triggered session
    Migration("0006_add_trigger_source", add_column("sessions", "trigger_source", peewee.TextField(null=True))),
    # secrets out of what earlier versions stored verbatim (issue 12 item 3)
    Migration("0007_redact_secrets", _redact_sessions),
    # a replayed (or scripted) session spends nothing: spend caps and cost totals leave it out
    Migration("0008_add_replayed", add_flag_column("sessions", "replayed")),
)


def start_session_row(tier: int, model: str, trigger: str, parent_id: int | None, started_at: str,
                      runner: str | None = None, trigger_source: str | None = None,
                      replayed: bool = False) -> SessionRow:
    """Insert the ``running`` row a session lives in, committed at once, as a model instance."""
    with db.atomic():
        session_id = insert_session_row(tier, model, trigger, parent_id, started_at, runner, trigger_source, replayed)
    return SessionRow.get_by_id(session_id)


def insert_session_row(tier: int, model: str, trigger: str, parent_id: int | None, started_at: str,
                       runner: str | None = None, trigger_source: str | None = None, replayed: bool = False) -> int:
    """Insert a ``running`` row and return its id; the caller commits (inside ``db.atomic()``).

    Hand-written SQL, like :func:`update_session_row`: every session pays for its row at start
    and end, and peewee's query builder costs several times the statement itself (about 0.6 ms
    of a replayed 200-message session, measured with ``bench/runner_overhead.py``).
    """
    return insert_returning_id(
        "INSERT INTO sessions (tier, model, trigger, status, started_at, parent_session_id, runner, trigger_source, "
        "replayed) VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?)",
        (tier, model, trigger, started_at, parent_id, runner, trigger_source, replayed))


def update_session_row(session_id: int, **fields: Any) -> None:
    """Set columns of one row by field name; the caller commits (inside ``db.atomic()``)."""
    columns = SessionRow._meta.fields  # a misspelt field name is a KeyError, never SQL
    assignments = ", ".join(f"{columns[name].column_name} = ?" for name in fields)
    db.execute_sql(portable_sql(f"UPDATE sessions SET {assignments} WHERE id = ?"), (*fields.values(), session_id))


ABANDONED_REASON = ("the runner stopped before recording how the session ended "
                    "(it died, or could not write to the database)")
"""The reason a row left ``running`` gets at the next start: a killed runner and a full disk look alike then."""


def interrupt_abandoned_sessions(runner: str) -> int:
    """Mark ``runner``'s rows left ``running`` by a crashed process as ``interrupted``; returns how many.

    Called only while holding ``runner``'s lock, so none of its live sessions can be among them.
    Rows of other runners sharing the database (other hosts, other state directories) are theirs
    to settle; rows from before runners were recorded (``NULL``) are taken as this runner's.
    """
    interrupted: int = (
        SessionRow.update(status="interrupted", error=ABANDONED_REASON, ended_at=now_timestamp())
        .where((SessionRow.status == "running") & ((SessionRow.runner == runner) | SessionRow.runner.is_null()))
        .execute())
    return interrupted


def session_dicts(*, status: str | None = None, limit: int | None = None, offset: int = 0) -> list[dict[str, Any]]:
    """Sessions, newest first, as plain dicts of column values plus ``elapsed_ms``.

    Dicts, not model instances: no lazy foreign-key loads, so a page of sessions costs one query
    (the dashboard, its API and ``claudeops sessions list`` all read them this way).
    """
    query = SessionRow.select().order_by(SessionRow.id.desc())
    if status:
        query = query.where(SessionRow.status == status)
    if limit is not None:
        query = query.limit(limit).offset(offset)
    rows = cast("Iterable[dict[str, Any]]", query.dicts())  # peewee's stubs type .dicts() as the model query
    return [with_elapsed(row) for row in rows]


def count_sessions(status: str | None = None) -> int:
    query = SessionRow.select()
    if status:
        query = query.where(SessionRow.status == status)
    return query.count()


def get_session_dict(session_id: int) -> dict[str, Any] | None:
    if not is_row_id(session_id):  # a number no row can have (SQLite could not even bind it)
        return None
    row = SessionRow.select().where(SessionRow.id == session_id).dicts().first()
    return with_elapsed(row) if row else None


def with_elapsed(row: dict[str, Any], now: datetime | None = None) -> dict[str, Any]:
    """Add ``elapsed_ms``: the recorded duration, or the time since start while running."""
    elapsed = row.get("duration_ms")
    if elapsed is None and row.get("started_at"):
        try:
            start = from_timestamp(row["started_at"])
            end = from_timestamp(row["ended_at"]) if row.get("ended_at") else (now or utc_now())
            elapsed = max(0, int((end - start).total_seconds() * 1000))
        except ValueError:
            elapsed = None
    return {**row, "elapsed_ms": elapsed}


def spend_since(start: str, end: str | None = None) -> float:
    """USD the sessions started from ``start`` (and before ``end``) really spent: the one cost rule.

    Replayed sessions are left out (a recording's cost was spent when it was recorded), and so
    is a session with no cost yet (still running, or it failed before any result). Whatever
    else a session spent on the model (a Claude judge) is part of its ``cost_usd``. Spend caps,
    the daily digest and ``/metrics`` all total cost with this, so they agree.
    """
    query = SessionRow.select(peewee.fn.SUM(SessionRow.cost_usd)).where(
        (SessionRow.started_at >= start) & (SessionRow.replayed == False))  # noqa: E712  SQL, not Python
    if end is not None:
        query = query.where(SessionRow.started_at < end)
    total = query.scalar()
    return round(float(total or 0.0), 6)
