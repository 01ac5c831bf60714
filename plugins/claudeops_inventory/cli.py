"""``claudeops services`` (the inventory and where each service stands) and ``claudeops pause``."""

from __future__ import annotations

import json

import click

from claudeops import EXIT_USAGE as USAGE
from claudeops import (
    App,
    echo_listing,
    end_pauses,
    fail,
    open_store_or_fail,
    parse_duration,
    pass_app,
    pause_service,
    pauses_in_force,
    utc_now,
)
from claudeops_inventory.status import ServiceRow, service_rows


@click.group("services")
def services_group() -> None:
    """The service inventory ([services.NAME] tables) and where each service stands."""


def _rows(app: App) -> list[ServiceRow]:
    open_store_or_fail(app)
    return service_rows(app.config, app.hook.service_statuses())


@services_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of lines.")
@pass_app
def list_services(app: App, as_json: bool) -> None:
    """Every inventory service in dependency order, its status and maintenance; then the services
    events named that the inventory does not declare."""
    rows = _rows(app)
    if not app.config.inventory and not as_json:
        click.echo("No inventory: declare services as [services.NAME] tables in config.toml or in services_file "
                   "(claudeops init writes a starter; see docs/configuration.md).")
    flag = bool(app.config.inventory)
    echo_listing(rows, as_json=as_json, to_json=ServiceRow.as_dict, header=LIST_HEADER,
                 to_row=lambda row: _cells(row, flag), nothing="No service is named by the inventory or the events.")


LIST_HEADER = ("SERVICE", "STATUS", "SINCE", "RUNS AS", "NOTES")


def _cells(row: ServiceRow, flag: bool) -> tuple[str, str, str, str, str]:
    """The columns of ``services list``; maintenance is "since" its start, with its end among the notes."""
    service = row.service
    notes = []
    if service is not None:
        runs = f"{service.kind} {service.runtime_name}" + ("" if service.is_local else f" on {service.host}")
        if service.after:
            notes.append(f"after {', '.join(service.after)}")
        if not service.remediate:
            notes.append("no remediation")
    else:
        runs = "NOT IN THE INVENTORY (named by events)" if flag else "-"
    if row.pause is not None:
        notes.append(row.pause.describe())
    return row.name, row.shown_status, row.shown_since or "-", runs, "; ".join(notes)


@services_group.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of lines.")
@pass_app
def show_service(app: App, name: str, as_json: bool) -> None:
    """One service: how it runs, what it depends on and what depends on it, its status and maintenance."""
    row = next((row for row in _rows(app) if row.name == name.lower() or (
        row.service is not None and app.config.inventory.named_by(name) is row.service)), None)
    if row is None:
        fail(f"no service {name!r} in the inventory or the events", USAGE)
    data = row.as_dict() | {"needed_by": app.config.inventory.dependents(row.name)}
    if as_json:
        click.echo(json.dumps(data, indent=2))
        return
    for key, value in data.items():
        if value not in (None, [], ""):
            shown = ", ".join(value) if isinstance(value, list) else value
            click.echo(f"{key}: {json.dumps(shown) if isinstance(shown, dict) else shown}")


@click.command("pause")
@click.argument("service", required=False)
@click.option("--all", "everything", is_flag=True, help="Pause every service (a global maintenance window).")
@click.option("--for", "duration", required=True, metavar="DURATION", help="How long: 30m, 2h, 1h30m, 1d.")
@click.option("--reason", default="", metavar="TEXT", help="Why, shown in the prompt and the dashboard.")
@pass_app
def pause_command(app: App, service: str | None, everything: bool, duration: str, reason: str) -> None:
    """Put SERVICE (or --all) in maintenance: the agent is told, notifications stay silent, and tiers 2
    and 3 are refused every change to it until the pause ends."""
    if (service is None) == (not everything):
        fail("name a SERVICE or give --all (not both)", USAGE)
    try:
        length = parse_duration(duration)
    except ValueError as exc:
        fail(f"--for: {exc}", USAGE)
    open_store_or_fail(app)
    now = utc_now()
    try:
        pause = pause_service(service, now + length, reason, "cli", now=now)
    except ValueError as exc:
        fail(str(exc), USAGE)
    target = "every service" if pause.everything else pause.service
    note = "" if pause.everything or pause.service in app.config.inventory or not app.config.inventory else (
        " (not in the inventory)")
    click.echo(f"{target}{note}: {pause.describe()}")


@click.command("unpause")
@click.argument("service", required=False)
@click.option("--all", "everything", is_flag=True, help="End the global pause.")
@pass_app
def unpause_command(app: App, service: str | None, everything: bool) -> None:
    """End SERVICE's pauses (or the global one) now. Maintenance windows of the inventory stay."""
    if (service is None) == (not everything):
        fail("name a SERVICE or give --all (not both)", USAGE)
    open_store_or_fail(app)
    ended = end_pauses(service)
    target = "the global pause" if service is None else f"the pause of {service}"
    click.echo(f"ended {target}" if ended else f"nothing to end: {target} is not in force")


@click.command("pauses")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of lines.")
@pass_app
def pauses_command(app: App, as_json: bool) -> None:
    """Every pause and maintenance window in force now."""
    open_store_or_fail(app)
    pauses = pauses_in_force(app.config)
    if as_json:
        click.echo(json.dumps([{"service": pause.service, "since": pause.since, "until": pause.until,
                                "reason": pause.reason, "source": pause.source} for pause in pauses], indent=2))
        return
    if not pauses:
        click.echo("No service is in maintenance.")
    for pause in pauses:
        target = "every service" if pause.everything else pause.service
        click.echo(f"{target}: {pause.describe()} [{pause.source}]")

