"""Built-in plugin: the environment section of the system prompt.

Tells the agent where and when it runs, what its tier may do, the services of the inventory
(dependencies first, maintenance said plainly) and the operator's checks and playbooks
(:mod:`claudeops.default_plugins.inventory_prompt`), within its own token budget; and nothing
secret: no environment variables, no credentials, no database URL.
"""

from __future__ import annotations

import logging
import platform
from collections.abc import Callable
from dataclasses import dataclass

from claudeops import (
    CHARS_PER_TOKEN,
    Config,
    Session,
    estimate_tokens,
    hookimpl,
    paused_services,
    read_ops_dir,
    setting,
)
from claudeops.default_plugins.inventory_prompt import FleetFacts, render_fleet

log = logging.getLogger(__name__)

ENVIRONMENT_ORDER = 10

TIER_ROLES = {
    1: "observe: check health and report; never change anything",
    2: "investigate: diagnose and may restart a single service within its cooldown",
    3: "remediate: may redeploy and change configuration within its cooldown",
}


@dataclass
class EnvironmentSettings:
    """The ``[environment]`` section."""

    description: str = setting("", "Free text about the fleet the agent watches (hosts, how services run)")
    services: list[str] = setting([], "Services the agent is responsible for, by name only (prefer the "
                                      "[services.NAME] inventory, which says how to reach each)")
    budget_tokens: int = setting(2000, "Token budget of the whole environment section (inventory, "
                                       "maintenance, checks and playbooks); details are dropped to fit")


@hookimpl
def register_settings(register: Callable[[str, type], None]) -> None:
    register("environment", EnvironmentSettings)


@hookimpl
def configure(config: Config) -> None:
    settings: EnvironmentSettings = config.section("environment")
    config.require(settings.budget_tokens >= 200, "environment.budget_tokens", "200 or more")


@hookimpl
def before_session(session: Session) -> None:
    session.add_prompt_section("environment", render_environment(session), ENVIRONMENT_ORDER)


def render_environment(session: Session) -> str:
    """The environment context block for ``session``."""
    settings: EnvironmentSettings = session.config.section("environment")
    lines = [
        "## Environment",
        "",
        f"- Time (UTC): {session.now()}",
        f"- Runner host: {platform.node() or 'unknown'}",
        f"- Session: #{session.id}, tier {session.tier} ({TIER_ROLES[session.tier]})",
        f"- Model: {session.model}",
        f"- Highest tier available for escalation: {session.config.core.max_tier}",
    ]
    if session.dry_run:
        lines.append("- DRY RUN: do not change anything; escalation and mutating commands are suppressed.")
    if settings.description.strip():
        lines += ["", settings.description.strip()]
    head = "\n".join(lines)
    inventory = session.config.inventory
    others = [name for name in settings.services if name not in inventory]
    facts = FleetFacts(inventory, paused_services(session.config, session.clock()), read_ops_dir(session.config),
                       others)
    room = settings.budget_tokens * CHARS_PER_TOKEN - len(head) - 2
    fleet = render_fleet(facts, room)
    text = f"{head}\n\n{fleet}" if fleet else head
    if estimate_tokens(text) > settings.budget_tokens:
        log.warning("the environment section (~%d tokens) is over environment.budget_tokens (%d) even with the "
                    "inventory by name only", estimate_tokens(text), settings.budget_tokens)
    return text
