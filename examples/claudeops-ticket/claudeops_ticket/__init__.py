"""A complete third-party claudeops plugin: the agent files tickets with ``[TICKET:service] text``.

It adds a marker type, its own table (through its own migrations), a prompt section that
teaches the model the marker, and a ``claudeops tickets`` command, using only the public
hooks: nothing in claudeops core knows it exists.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import click
import peewee

from claudeops import (
    App,
    BaseModel,
    Marker,
    MarkerType,
    Migration,
    Session,
    create_frozen_tables,
    db,
    echo_listing,
    hookimpl,
    open_store_or_fail,
    pass_app,
)

TICKET_PATTERN = re.compile(r"\[TICKET:([a-zA-Z0-9_-]+)\][ \t]*(.+)")

PROMPT_SECTION = """\
## Tickets

When something needs a human (a disk to replace, a licence to renew), file a ticket on a line
of its own:

    [TICKET:<service>] <what a human must do, and why>

Example: `[TICKET:nas] Disk /dev/sdb reports 12 reallocated sectors; plan a replacement`."""


class Ticket(BaseModel):
    """One ticket the agent filed."""

    id = peewee.AutoField()  # peewee adds it anyway; declared, so type checkers know tickets have ids
    service = peewee.TextField()
    text = peewee.TextField()
    session_id = peewee.IntegerField(null=True)
    created_at = peewee.TextField()

    class Meta:
        table_name = "tickets"

    def as_dict(self) -> dict[str, object]:
        return {"id": self.id, "service": self.service, "text": self.text, "session_id": self.session_id,
                "created_at": self.created_at}

    def as_row(self) -> tuple[str, ...]:
        return (f"#{self.id}", self.created_at, self.service, self.text)


def _create_tickets(database: peewee.Database) -> None:
    """The table as first released, frozen here: a later change to ``Ticket`` gets its own migration."""

    class Ticket0001(peewee.Model):
        service = peewee.TextField()
        text = peewee.TextField()
        session_id = peewee.IntegerField(null=True)
        created_at = peewee.TextField()

        class Meta:
            table_name = "tickets"

    create_frozen_tables(database, Ticket0001)


@hookimpl
def register_migrations(register: Callable[..., None]) -> None:
    """Owner ``ticket``, the plugin's name, as claudeops' own plugins name theirs (``memory``, ``events``)."""
    register("ticket", [Migration("0001_create_tickets", _create_tickets)])


@hookimpl
def register_marker_types(register: Callable[..., None]) -> None:
    register(MarkerType("TICKET", TICKET_PATTERN, PROMPT_SECTION, store_ticket))


def store_ticket(session: Session, marker: Marker) -> None:
    """Store the ticket as soon as the marker is seen."""
    service, text = marker.groups
    with db.atomic():
        Ticket.create(service=service, text=text, session_id=session.id, created_at=session.now())


@hookimpl
def register_commands(cli: click.Group) -> None:
    @cli.command("tickets")
    @click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of a table.")
    @pass_app
    def tickets(app: App, as_json: bool) -> None:
        """List the tickets the agent filed, newest first."""
        open_store_or_fail(app)
        echo_listing(list(Ticket.select().order_by(Ticket.id.desc())), as_json=as_json, to_json=Ticket.as_dict,
                     header=("ID", "FILED", "SERVICE", "TICKET"), to_row=Ticket.as_row, nothing="No tickets.")
