"""Built-in plugin: the environment section of the system prompt.

Tells the agent where and when it runs and what its tier may do, and nothing secret: no
environment variables, no credentials, no database URL.
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from dataclasses import dataclass

from claudeops import Session, hookimpl, setting

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
    services: list[str] = setting([], "Services the agent is responsible for")


@hookimpl
def register_settings(register: Callable[[str, type], None]) -> None:
    register("environment", EnvironmentSettings)


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
    if settings.services:
        lines.append(f"- Services in scope: {', '.join(settings.services)}")
    if settings.description.strip():
        lines += ["", settings.description.strip()]
    return "\n".join(lines)
