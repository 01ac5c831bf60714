"""Built-in plugin: the service inventory at work — listings, maintenance, and hands off.

The inventory itself is core data (``config.inventory``, read from ``[services.NAME]`` tables);
this plugin is what an operator does with it: ``claudeops services list/show``, ``claudeops
pause/unpause/pauses``, the Services page of the dashboard, the tool-gate refusal that
keeps tiers 2 and 3 off a service in maintenance or closed to remediation, and the silence of
notifications about a service in maintenance.
"""

from __future__ import annotations

from typing import Any

import click

from claudeops import Config, Session, hookimpl
from claudeops_inventory.enforcement import check_tool, maintenance_silence
from claudeops_inventory.web import register_web  # noqa: F401  the /services dashboard page


@hookimpl
def register_commands(cli: click.Group) -> None:
    from claudeops_inventory.cli import (  # here: a session does not use them
        pause_command,
        pauses_command,
        services_group,
        unpause_command,
    )

    for command in (services_group, pause_command, unpause_command, pauses_command):
        cli.add_command(command)


@hookimpl
def check_tool_use(session: Session, tool_name: str, tool_input: dict[str, Any]) -> str | None:
    return check_tool(session, tool_name, tool_input)


@hookimpl
def suppress_notification(config: Config, service: str | None, kind: str, now: str) -> str | None:
    return maintenance_silence(config, service, now)
