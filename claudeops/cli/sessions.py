"""``claudeops sessions``: what ran, from the command line (the dashboard's Sessions page, in text).

Cron mails one line per problem; the morning after, an operator wants the whole picture without
starting the dashboard: which sessions ran, how each ended and why, and where its transcript is.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import click

from claudeops.app import App
from claudeops.cli.context import LIMIT, UsageProblem, echo_listing, open_store_or_fail, pass_app
from claudeops.plugins import await_me_maybe
from claudeops.session import SessionDetail
from claudeops.session_rows import STATUSES, get_session_dict, session_dicts

SHOWN_FIELDS = ("id", "tier", "model", "trigger", "status", "error", "started_at", "ended_at", "elapsed_ms",
                "duration_api_ms", "num_turns", "cost_usd", "parent_session_id", "sdk_session_id", "runner",
                "transcript_path", "result")


@click.group("sessions")
def sessions_group() -> None:
    """The agent sessions that ran: status, reason, cost and transcript."""


@sessions_group.command("list")
@click.option("--status", type=click.Choice(STATUSES), help="Only sessions that ended (or are) like this.")
@click.option("--limit", type=LIMIT, default=20, show_default=True,
              help="Show at most this many sessions.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of lines.")
@pass_app
def sessions_list(app: App, status: str | None, limit: int, as_json: bool) -> None:
    """List sessions, newest first: id, tier, status, start, duration, cost, and why it failed."""
    open_store_or_fail(app)
    echo_listing(session_dicts(status=status, limit=limit), as_json=as_json, to_json=_shown, header=LIST_HEADER,
                 to_row=session_row, nothing="No sessions match.")


@sessions_group.command("show")
@click.argument("session_id", type=int)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of lines.")
@pass_app
def sessions_show(app: App, session_id: int, as_json: bool) -> None:
    """Everything stored about one session: its row, what plugins recorded about it (the memory
    it was given and changed, …), its final text last."""
    open_store_or_fail(app)
    row = get_session_dict(session_id)
    if row is None:
        raise UsageProblem(f"there is no session #{session_id}")
    shown = _shown(row)
    details = plugin_details(app, session_id)
    if as_json:
        click.echo(json.dumps({**shown, "details": {detail.key: detail.data for detail in details}}, indent=2))
        return
    for name in SHOWN_FIELDS[:-1]:
        click.echo(f"{name:<18} {'-' if shown[name] is None else shown[name]}")
    for detail in details:
        click.echo(f"\n{detail.title}")
        for line in detail.lines:
            click.echo(f"  {line}")
    click.echo(f"\n{shown['result'] or '(no final text)'}")


def plugin_details(app: App, session_id: int) -> list[SessionDetail]:
    """What plugins say about the session (``describe_session``), async implementations awaited."""
    return [detail for answer in app.hook.describe_session(session_id=session_id)
            if (detail := asyncio.run(await_me_maybe(answer))) is not None]


LIST_HEADER = ("ID", "TIER", "STATUS", "STARTED", "DURATION", "COST", "REASON")


def session_row(row: dict[str, Any]) -> tuple[str, ...]:
    """One row: id, tier, status, start, duration, cost, then the failure reason if any."""
    elapsed = "-" if row["elapsed_ms"] is None else f"{row['elapsed_ms'] / 1000:.1f} s"
    cost = "-" if row["cost_usd"] is None else f"${row['cost_usd']:.2f}"
    return (f"#{row['id']}", f"tier {row['tier']}", row["status"], row["started_at"], elapsed, cost, row["error"] or "")


def _shown(row: dict[str, Any]) -> dict[str, Any]:
    return {name: row[name] for name in SHOWN_FIELDS}
