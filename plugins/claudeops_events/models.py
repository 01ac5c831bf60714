"""The ``events`` table: one row per notable happening, written as it happens."""

from __future__ import annotations

import peewee

from claudeops import FINDING, BaseModel, Migration, SessionRow, add_column, create_frozen_tables, redact_columns

TABLE = "events"
INDEXES = (
    (("created_at", "id"), False),       # the feed: newest first, ties broken by id
    (("level", "created_at"), False),    # the level filter and the per-level counts
    (("service", "created_at"), False),  # the service filter
)


class EventRow(BaseModel):
    """One event. ``session`` is empty for things an operator did outside a session."""

    id = peewee.AutoField()
    session = peewee.ForeignKeyField(SessionRow, null=True, column_name="session_id", backref="+",
                                     on_delete="SET NULL")
    session_id: int | None  # peewee's accessor for the column behind `session`, declared for type checkers
    level = peewee.TextField()
    service = peewee.TextField(null=True)
    message = peewee.TextField()
    created_at = peewee.TextField()
    kind = peewee.TextField(null=True)
    """What sort of happening (``claudeops.EVENT_KINDS``, or a plugin's own word); only a ``finding``
    says where its service stands."""

    class Meta:
        table_name = TABLE
        indexes = INDEXES


def _create_events(database: peewee.Database) -> None:
    """Create the table from a frozen copy of its first schema, so later model changes need
    their own migration instead of silently changing what this one creates."""

    class Event(peewee.Model):
        id = peewee.AutoField()
        session = peewee.ForeignKeyField(SessionRow, null=True, column_name="session_id", backref="+",
                                         on_delete="SET NULL")
        level = peewee.TextField()
        service = peewee.TextField(null=True)
        message = peewee.TextField()
        created_at = peewee.TextField()

        class Meta:
            table_name = TABLE
            indexes = (
                (("created_at", "id"), False),
                (("level", "created_at"), False),
                (("service", "created_at"), False),
            )
            legacy_table_names = False  # index names start with the table name, as the core's do

    create_frozen_tables(database, Event)


def _add_kind(database: peewee.Database) -> None:
    """Keep what sort of happening each event is, so a memory or cooldown warning that names a
    service no longer reads as the service being degraded. Events stored before cannot be told
    apart: those naming a service count as findings, so no service's status changes on upgrade."""
    add_column(TABLE, "kind", peewee.TextField(null=True))(database)
    database.execute_sql(f"UPDATE {TABLE} SET kind = '{FINDING}' WHERE service IS NOT NULL")


MIGRATIONS = (
    Migration("0001_create_events", _create_events),
    # secrets out of messages stored before every path redacted them (issue 12 item 3)
    Migration("0002_redact_secrets", redact_columns(TABLE, "message")),
    Migration("0003_add_kind", _add_kind),
)
