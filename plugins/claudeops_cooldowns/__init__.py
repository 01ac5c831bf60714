"""Built-in plugin: remediation cooldowns, limits on restarting and redeploying a service.

Protects a home lab from an agent that restarts a service in a loop. The agent reports each
action with ``[COOLDOWN:<restart|redeployment>:<service>] <success|failure> — message``; tiers 2
and 3 see every service's state in their prompt; and ``check_tool_use`` refuses Bash commands
that would go over a limit (tier 1 may never restart anything), so the limits are enforced, not
just advised.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from claudeops import Config, Session, hookimpl
from claudeops_cooldowns.enforcement import check_tool
from claudeops_cooldowns.marker import cooldown_marker_type
from claudeops_cooldowns.models import MIGRATIONS
from claudeops_cooldowns.prompt import COOLDOWN_ORDER, render_cooldown_section
from claudeops_cooldowns.repository import cooldown_state
from claudeops_cooldowns.settings import CooldownSettings, rules_from, validate
from claudeops_cooldowns.web import register_web  # noqa: F401  the /cooldowns dashboard page

OWNER = "cooldowns"
SECTION = "cooldowns"
PROMPT_TIERS = (2, 3)

claudeops_required = True
"""A session that cannot see or enforce the remediation limits fails, instead of acting without them."""


@hookimpl
def register_settings(register: Callable[[str, type], None]) -> None:
    register(SECTION, CooldownSettings)


@hookimpl
def configure(config: Config) -> None:
    validate(config)


@hookimpl
def register_migrations(register: Callable[..., None]) -> None:
    register(OWNER, MIGRATIONS)


@hookimpl
def register_marker_types(register: Callable[..., None]) -> None:
    register(cooldown_marker_type())


@hookimpl
def before_session(session: Session) -> None:
    if session.tier in PROMPT_TIERS:
        rules = rules_from(session.config.section(SECTION))
        states = cooldown_state(rules, session.clock())
        session.add_prompt_section("cooldowns", render_cooldown_section(states, rules), COOLDOWN_ORDER)


@hookimpl
def check_tool_use(session: Session, tool_name: str, tool_input: dict[str, Any]) -> str | None:
    return check_tool(session, tool_name, tool_input)


@hookimpl
def register_commands(cli: click.Group) -> None:
    from claudeops_cooldowns.cli import cooldowns_group  # here: a session does not use it

    cli.add_command(cooldowns_group)


@hookimpl
def collect_metrics() -> list[Any]:
    from prometheus_client.core import CounterMetricFamily

    from claudeops_cooldowns.repository import count_actions_by_outcome, count_refusals_by_action

    refusals = CounterMetricFamily("claudeops_cooldown_refusals", "Restarts and redeployments refused because the "
                                   "service was in cooldown", labels=["action"])
    for action, count in sorted(count_refusals_by_action().items()):
        refusals.add_metric([action], count)
    actions = CounterMetricFamily("claudeops_cooldown_actions", "Remediations the agent reported, by outcome",
                                  labels=["action", "outcome"])
    for (action, success), count in sorted(count_actions_by_outcome().items()):
        actions.add_metric([action, "success" if success else "failure"], count)
    return [refusals, actions]
