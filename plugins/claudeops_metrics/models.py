"""The metrics plugin's one table: how many markers of each type every session recorded.

Markers are stored by their owners in many shapes (a memory reinforced, an event, a cooldown
action, an escalation request) and some leave no row of their own, so ``/metrics`` counts them
where they pass: ``on_marker`` (after a handler recorded one), written per session at its end.
"""

from __future__ import annotations

import peewee

from claudeops import BaseModel, Migration, SessionRow, create_frozen_tables

OWNER = "metrics"


class MarkerCountRow(BaseModel):
    """``count`` markers of ``marker_type`` recorded by one session."""

    id = peewee.AutoField()
    session = peewee.ForeignKeyField(SessionRow, null=True, column_name="session_id", backref="+",
                                     on_delete="SET NULL")
    session_id: int | None
    marker_type = peewee.TextField()
    count = peewee.IntegerField()

    class Meta:
        table_name = "marker_counts"


def _create_marker_counts(database: peewee.Database) -> None:
    class MarkerCount0001(peewee.Model):
        id = peewee.AutoField()
        session = peewee.ForeignKeyField(SessionRow, null=True, column_name="session_id", backref="+",
                                         on_delete="SET NULL")
        marker_type = peewee.TextField()
        count = peewee.IntegerField()

        class Meta:
            table_name = "marker_counts"
            legacy_table_names = False

    create_frozen_tables(database, MarkerCount0001)


MIGRATIONS = (Migration("0001_create_marker_counts", _create_marker_counts),)
