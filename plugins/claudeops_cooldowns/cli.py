"""``claudeops cooldowns``: where every service stands, and the operator's reset."""

from __future__ import annotations

import json

import click

from claudeops import App, NotableEvent, now_timestamp, open_store_or_fail, pass_app
from claudeops import service_name as checked_service_name
from claudeops_cooldowns.names import service_name
from claudeops_cooldowns.prompt import describe_limits, describe_state
from claudeops_cooldowns.repository import clear_service, cooldown_state
from claudeops_cooldowns.settings import rules_from


@click.group("cooldowns", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of lines.")
@click.pass_context
def cooldowns_group(ctx: click.Context, as_json: bool) -> None:
    """Show each service's remediation count against its limit (restarts, redeployments)."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(show_state, as_json=as_json)


@pass_app
def show_state(app: App, as_json: bool) -> None:
    open_store_or_fail(app)
    rules = rules_from(app.config.section("cooldowns"))
    states = cooldown_state(rules=rules)
    if as_json:
        click.echo(json.dumps([state.as_dict() for state in states], indent=2))
        return
    click.echo(describe_limits(rules))
    if not states:
        click.echo("No remediation actions recorded.")
    for state in states:
        last = f" (last {state.last_action_at})" if state.last_action_at else ""
        click.echo(f"  {describe_state(state)}{last}")


@cooldowns_group.command("reset")
@click.argument("service")
@pass_app
def reset(app: App, service: str) -> None:
    """Clear SERVICE's recorded actions so its limits start afresh (history is kept)."""
    try:
        service = service_name(checked_service_name(service, dots=True))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="SERVICE") from None
    if not service:
        raise click.BadParameter("names no service", param_hint="SERVICE")
    open_store_or_fail(app)
    rules = rules_from(app.config.section("cooldowns"))
    before = [state for state in cooldown_state(rules=rules) if state.service == service and state.count]
    cleared = clear_service(service, now_timestamp())
    if not cleared:
        click.echo(f"{service} has no recorded actions to clear.")
        return
    was = "; ".join(f"{state.count}/{state.limit} {state.action}s in {state.window_hours:g} h" for state in before)
    message = f"operator reset the cooldowns of {service}" + (f" (was {was})" if was else "")
    app.hook.record_event(event=NotableEvent("info", message, now_timestamp(), service, None))
    click.echo(f"{message}; {cleared} recorded action(s) no longer count.")
