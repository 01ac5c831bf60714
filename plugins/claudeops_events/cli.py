"""``claudeops events list``: the event feed on the command line."""

from __future__ import annotations

import click

from claudeops import LIMIT, App, echo_listing, open_store_or_fail, pass_app, service_name
from claudeops_events.levels import parse_level
from claudeops_events.repository import EventRecord, list_events
from claudeops_events.since import parse_since


@click.group("events")
def events_group() -> None:
    """What the agent and the runner reported: findings, escalations, blocked actions."""


@events_group.command("list")
@click.option("--level", metavar="LEVEL", help="Only this level: info, warning or critical (synonyms accepted).")
@click.option("--service", metavar="NAME", help="Only events about this service.")
@click.option("--since", metavar="AGE|TIME", help="Only events this recent: 30m, 24h, 7d, or an ISO time.")
@click.option("--limit", type=LIMIT, default=100, show_default=True,
              help="Show at most this many events.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of lines.")
@pass_app
def events_list(app: App, level: str | None, service: str | None, since: str | None, limit: int,
                as_json: bool) -> None:
    """List events, newest first."""
    _check(level, service, since)
    open_store_or_fail(app)
    echo_listing(list_events(level=level, service=service, since=since, limit=limit), as_json=as_json,
                 to_json=EventRecord.as_dict, header=LIST_HEADER, to_row=event_row, nothing="No events match.")


def _check(level: str | None, service: str | None, since: str | None) -> None:
    """Reject a bad filter before touching the database, as a one-line usage error."""
    for option, value, parse in (("--level", level, parse_level), ("--service", service, _event_service),
                                 ("--since", since, parse_since)):
        if value is None:
            continue
        try:
            parse(value)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint=option) from None


LIST_HEADER = ("TIME", "LEVEL", "SERVICE", "SESSION", "MESSAGE")


def event_row(event: EventRecord) -> tuple[str, ...]:
    """One row: time, level, service, session, message."""
    session = f"#{event.session_id}" if event.session_id is not None else "operator"
    return (event.created_at, event.level, event.service or "-", session, event.message)


def _event_service(text: str) -> str:
    return service_name(text, dots=True)
