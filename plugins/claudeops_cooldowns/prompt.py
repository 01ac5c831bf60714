"""The "Cooldown state" section of the tier 2 and 3 system prompts.

Telling the agent the state before it acts saves it a refused command and a wasted turn; the
enforcement still refuses what the prompt could not prevent.
"""

from __future__ import annotations

from claudeops import counted
from claudeops_cooldowns.repository import ServiceCooldown
from claudeops_cooldowns.settings import REDEPLOYMENT, Rules

COOLDOWN_ORDER = 30


def render_cooldown_section(states: list[ServiceCooldown], rules: Rules) -> str:
    """The section: the limits, then every service with actions in its current window."""
    lines = ["## Cooldown state", "", describe_limits(rules) + " Commands that would go over a limit are "
             "refused before they run.", ""]
    active = [state for state in states if state.count > 0]
    if not active:
        lines.append("No remediation actions recorded in the current windows.")
    for state in active:
        lines.append(f"- {describe_state(state)}")
    return "\n".join(lines)


def describe_limits(rules: Rules) -> str:
    """``Limits per service: at most 2 restarts in any 4 h window and at most 1 redeployment …``."""
    parts = [f"at most {counted(rule.limit, action)} in any {hours(rule.window_hours)} window"
             for action, rule in rules.items()]
    return "Limits per service: " + " and ".join(parts) + "."


def describe_state(state: ServiceCooldown) -> str:
    """One service's state for one action, as the agent and the operator read it."""
    done = f"{state.service}: {state.count}/{state.limit} {state.action}s in the last {hours(state.window_hours)}"
    if not state.in_cooldown:
        return f"{done}, {state.remaining} left"
    if state.until is None:
        return f"{done}, not allowed at all (limit 0)"
    return f"{done}, IN COOLDOWN until {state.until}: do not {verb(state.action)} it"


def hours(value: float) -> str:
    return f"{value:g} h"


def verb(action: str) -> str:
    return "redeploy" if action == REDEPLOYMENT else action
