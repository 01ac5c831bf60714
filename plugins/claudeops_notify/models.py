"""The notify plugin's tables: every notification decided (sent, failed or suppressed), the
outages it is tracking per service, and the days whose digest went out."""

from __future__ import annotations

import peewee

from claudeops import BaseModel, Migration, SessionRow, create_frozen_tables

OWNER = "notify"


class NotificationRow(BaseModel):
    """One notification: what it said, to whom (by kind), and what became of it.

    ``outcome`` is ``pending`` while it is being sent, then ``sent``, ``partial`` (some targets
    failed), ``failed`` or ``suppressed``; ``reason`` says why it was not (fully) sent. The body
    is Markdown, redacted before it was stored; no URL is ever in a row.
    """

    id = peewee.AutoField()
    created_at = peewee.TextField()
    kind = peewee.TextField()
    fingerprint = peewee.TextField()
    service = peewee.TextField(null=True)
    session = peewee.ForeignKeyField(SessionRow, null=True, column_name="session_id", backref="+",
                                     on_delete="SET NULL")
    session_id: int | None  # peewee's accessor for the column behind `session`, declared for type checkers
    level = peewee.TextField()
    title = peewee.TextField()
    body = peewee.TextField()
    outcome = peewee.TextField()
    reason = peewee.TextField(null=True)
    attempts = peewee.IntegerField(default=0)
    sent_at = peewee.TextField(null=True)

    class Meta:
        table_name = "notifications"
        indexes = ((("created_at", "id"), False), (("fingerprint", "created_at"), False), (("outcome",), False))


class OutageRow(BaseModel):
    """A service's trouble from its first notifying status to its recovery: one outage, one message.

    ``condition`` is the status it is in (``down``/``degraded``); ``flaps`` counts returns within
    ``notify.flap_minutes`` of a recovery; ``resolution_sent`` stays false while a flapping
    outage's recovery waits to be confirmed.
    """

    id = peewee.AutoField()
    service = peewee.TextField()
    condition = peewee.TextField()
    opened_at = peewee.TextField()
    changed_at = peewee.TextField()
    resolved_at = peewee.TextField(null=True)
    flaps = peewee.IntegerField(default=0)
    resolution_sent = peewee.BooleanField(default=False)

    class Meta:
        table_name = "notify_outages"
        indexes = ((("service", "resolved_at"), False),)


class DigestRow(BaseModel):
    """A day (local date, ``YYYY-MM-DD``) whose digest was claimed by a run, so it is never sent twice;
    the message itself is the notification with fingerprint ``digest:<day>``."""

    day = peewee.TextField(primary_key=True)
    claimed_at = peewee.TextField()

    class Meta:
        table_name = "notify_digests"


def _create_tables(database: peewee.Database) -> None:
    """Create the three tables from frozen copies of their first schema."""

    class Notification0001(peewee.Model):
        id = peewee.AutoField()
        created_at = peewee.TextField()
        kind = peewee.TextField()
        fingerprint = peewee.TextField()
        service = peewee.TextField(null=True)
        session = peewee.ForeignKeyField(SessionRow, null=True, column_name="session_id", backref="+",
                                         on_delete="SET NULL")
        level = peewee.TextField()
        title = peewee.TextField()
        body = peewee.TextField()
        outcome = peewee.TextField()
        reason = peewee.TextField(null=True)
        attempts = peewee.IntegerField(default=0)
        sent_at = peewee.TextField(null=True)

        class Meta:
            table_name = "notifications"
            indexes = ((("created_at", "id"), False), (("fingerprint", "created_at"), False), (("outcome",), False))
            legacy_table_names = False

    class Outage0001(peewee.Model):
        id = peewee.AutoField()
        service = peewee.TextField()
        condition = peewee.TextField()
        opened_at = peewee.TextField()
        changed_at = peewee.TextField()
        resolved_at = peewee.TextField(null=True)
        flaps = peewee.IntegerField(default=0)
        resolution_sent = peewee.BooleanField(default=False)

        class Meta:
            table_name = "notify_outages"
            indexes = ((("service", "resolved_at"), False),)
            legacy_table_names = False

    class Digest0001(peewee.Model):
        day = peewee.TextField(primary_key=True)
        claimed_at = peewee.TextField()

        class Meta:
            table_name = "notify_digests"
            legacy_table_names = False

    create_frozen_tables(database, Notification0001, Outage0001, Digest0001)


MIGRATIONS = (Migration("0001_create_notifications_outages_digests", _create_tables),)
