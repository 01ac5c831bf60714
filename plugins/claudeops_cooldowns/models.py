"""The ``cooldown_actions`` table: every restart and redeployment the agent reported."""

from __future__ import annotations

import peewee

from claudeops import BaseModel, Migration, SessionRow, create_frozen_tables, redact_columns

TABLE = "cooldown_actions"
INDEXES = (
    (("service", "action", "created_at"), False),  # the sliding-window count of one service
    (("created_at", "id"), False),                 # the state of every service, the history
)


class CooldownActionRow(BaseModel):
    """One remediation action. ``cleared_at`` is set when an operator resets the service: the
    row stays as history but no longer counts towards the limit."""

    id = peewee.AutoField()
    service = peewee.TextField()
    action = peewee.TextField()
    success = peewee.BooleanField()
    message = peewee.TextField()
    tier = peewee.IntegerField(null=True)
    session = peewee.ForeignKeyField(SessionRow, null=True, column_name="session_id", backref="+",
                                     on_delete="SET NULL")
    session_id: int | None  # peewee's accessor for the column behind `session`, declared for type checkers
    created_at = peewee.TextField()
    cleared_at = peewee.TextField(null=True)

    class Meta:
        table_name = TABLE
        indexes = INDEXES


def _create_cooldown_actions(database: peewee.Database) -> None:
    """Create the table from a frozen copy of its first schema, so later model changes need
    their own migration instead of silently changing what this one creates."""

    class CooldownAction(peewee.Model):
        id = peewee.AutoField()
        service = peewee.TextField()
        action = peewee.TextField()
        success = peewee.BooleanField()
        message = peewee.TextField()
        tier = peewee.IntegerField(null=True)
        session = peewee.ForeignKeyField(SessionRow, null=True, column_name="session_id", backref="+",
                                         on_delete="SET NULL")
        created_at = peewee.TextField()
        cleared_at = peewee.TextField(null=True)

        class Meta:
            table_name = TABLE
            indexes = INDEXES
            legacy_table_names = False  # index names start with the table name, as the core's do

    create_frozen_tables(database, CooldownAction)


class CooldownRefusalRow(BaseModel):
    """One restart or redeployment the plugin refused because its service was in cooldown (for ``/metrics``)."""

    id = peewee.AutoField()
    service = peewee.TextField()
    action = peewee.TextField()
    tier = peewee.IntegerField(null=True)
    session = peewee.ForeignKeyField(SessionRow, null=True, column_name="session_id", backref="+",
                                     on_delete="SET NULL")
    session_id: int | None
    created_at = peewee.TextField()

    class Meta:
        table_name = "cooldown_refusals"


def _create_cooldown_refusals(database: peewee.Database) -> None:
    """The refusals were only events until /metrics had to count them by action (issue 17)."""

    class CooldownRefusal(peewee.Model):
        id = peewee.AutoField()
        service = peewee.TextField()
        action = peewee.TextField()
        tier = peewee.IntegerField(null=True)
        session = peewee.ForeignKeyField(SessionRow, null=True, column_name="session_id", backref="+",
                                         on_delete="SET NULL")
        created_at = peewee.TextField()

        class Meta:
            table_name = "cooldown_refusals"
            legacy_table_names = False

    create_frozen_tables(database, CooldownRefusal)


MIGRATIONS = (
    Migration("0001_create_cooldown_actions", _create_cooldown_actions),
    # secrets out of messages stored before every path redacted them (issue 12 item 3)
    Migration("0002_redact_secrets", redact_columns(TABLE, "message")),
    # the refusals were only events until /metrics had to count them by action (issue 17)
    Migration("0003_create_cooldown_refusals", _create_cooldown_refusals),
)
