"""The ``events`` table: one row per notable happening, written as it happens."""

from __future__ import annotations

import peewee

from claudeops import BaseModel, Migration, SessionRow, create_frozen_tables, redact_columns

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
            indexes = INDEXES
            legacy_table_names = False  # index names start with the table name, as the core's do

    create_frozen_tables(database, Event)


MIGRATIONS = (
    Migration("0001_create_events", _create_events),
    # secrets out of messages stored before every path redacted them (issue 12 item 3)
    Migration("0002_redact_secrets", redact_columns(TABLE, "message")),
)
