"""The ``alerts`` table: every alert received, and what became of it (queued, run, a repeat…).

It is the queue: an alert waits here, ``queued``, while another run holds the lock, survives a
restart of the dashboard, and is started with every other queued alert in one run as soon as
the lock frees. Nothing is deleted: the table is also the record of what the monitoring said.
"""

from __future__ import annotations

import peewee

from claudeops import BaseModel, Migration, add_column, create_frozen_tables

STATES = ("queued", "starting", "started", "repeat", "resolved", "maintenance", "test")
"""queued: waits for the lock; starting: a run is being started for it; started: its run has a session;
repeat: the same fingerprint is queued or ran within ``alerts.dedup_minutes``; resolved: a resolution,
no run; maintenance: every service it names is in maintenance, no run; test: a sender's test message.
A queued alert may also be *held* (:attr:`AlertRow.held`): its run was refused (a spend cap), and the
queue waits for the refusal to lift instead of retrying."""


class AlertRow(BaseModel):
    id = peewee.AutoField()
    received_at = peewee.TextField(index=True)
    source = peewee.TextField()
    fingerprint = peewee.TextField()
    status = peewee.TextField()
    name = peewee.TextField()
    services = peewee.TextField(default="")
    severity = peewee.TextField(default="")
    brief = peewee.TextField()
    state = peewee.TextField(index=True)
    tier = peewee.IntegerField(default=1)
    session_id = peewee.IntegerField(null=True, index=True)
    held = peewee.TextField(null=True)
    """Why its run is refused for now (``tier 2 not started: daily spend cap reached: …``), shown on /alerts;
    ``None`` when nothing holds it."""

    class Meta:
        table_name = "alerts"
        indexes = ((("fingerprint", "received_at"), False),)

    @property
    def service_list(self) -> list[str]:
        return [name for name in self.services.split(",") if name]


def _create_alerts(database: peewee.Database) -> None:
    class Alert0001(peewee.Model):
        id = peewee.AutoField()
        received_at = peewee.TextField(index=True)
        source = peewee.TextField()
        fingerprint = peewee.TextField()
        status = peewee.TextField()
        name = peewee.TextField()
        services = peewee.TextField(default="")
        severity = peewee.TextField(default="")
        brief = peewee.TextField()
        state = peewee.TextField(index=True)
        tier = peewee.IntegerField(default=1)
        session_id = peewee.IntegerField(null=True, index=True)

        class Meta:
            table_name = "alerts"
            legacy_table_names = False
            indexes = ((("fingerprint", "received_at"), False),)

    create_frozen_tables(database, Alert0001)


MIGRATIONS = (Migration("0001_create_alerts", _create_alerts),
              # why a queued alert's run is refused, so a spend cap is seen and not retried every minute
              Migration("0002_add_held", add_column("alerts", "held", peewee.TextField(null=True))))
