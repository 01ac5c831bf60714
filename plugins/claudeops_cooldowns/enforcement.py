"""Refusing Bash commands that would restart or redeploy a service beyond its limit.

The runner asks every plugin through ``check_tool_use`` before a tool runs (the SDK's
PreToolUse permission hook); a reason returned here is what the model reads as the tool
result, so it says what the limit is and when it ends. Every refusal is also a warning event.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from claudeops import COOLDOWN_REFUSED, Session, counted
from claudeops_cooldowns.prompt import hours, verb
from claudeops_cooldowns.repository import ServiceCooldown, record_refusal, service_cooldown, services_in_cooldown
from claudeops_cooldowns.settings import Rule, patterns_from, rules_from
from claudeops_cooldowns.targets import EVERY_SERVICE, Target, find_targets

AFTER_REFUSAL = ("Do not retry it or work around the limit (another tool, host or spelling); report the "
                 "service with an [EVENT:warning:<service>] marker so an operator can decide.")


def check_tool(session: Session, tool_name: str, tool_input: dict[str, Any]) -> str | None:
    """The refusal for a tool call, or None when it may run (only Bash commands are judged)."""
    command = tool_input.get("command") if tool_name == "Bash" else None
    if not isinstance(command, str):
        return None
    return check_command(session, command)


def check_command(session: Session, command: str) -> str | None:
    """The refusal for a Bash command, or None when it restarts nothing that is in cooldown."""
    settings = session.config.section("cooldowns")
    targets = find_targets(command, patterns_from(settings))
    if not targets:
        return None
    if session.tier == 1:
        return _refuse_tier_one(session, targets)
    rules = rules_from(settings)
    now = session.clock()
    refusals = [(target, state) for target in targets
                for state in _states(target, rules[target.action], now) if state.in_cooldown]
    if not refusals:
        return None
    for target, state in refusals:
        record_refusal(state.service, target.action, session.tier, session.id, session.now())
        session.record_event("warning", f"cooldown blocked {target.action} of {_name(state.service)} "
                             f"({_count(state)}{_until(state)}): {target.command}", _service(state.service),
                             kind=COOLDOWN_REFUSED)
    reasons = "; ".join(_reason(target, state) for target, state in refusals)
    return f"Refused by claudeops cooldowns: {reasons}. {AFTER_REFUSAL}"


def _states(target: Target, rule: Rule, now: datetime) -> list[ServiceCooldown]:
    """The state of the target's service, or of every service for a project-wide command."""
    if target.service == EVERY_SERVICE and rule.limit > 0:
        return services_in_cooldown(target.action, rule, now)
    return [service_cooldown(target.service, target.action, rule, now)]


def _refuse_tier_one(session: Session, targets: list[Target]) -> str:
    for target in targets:
        session.record_event("warning", f"tier 1 may not {verb(target.action)} {_name(target.service)}; "
                             f"blocked: {target.command}", _service(target.service))
    what = ", ".join(f"`{target.command}` would {verb(target.action)} {_name(target.service)}"
                     for target in targets)
    return (f"Refused: tier 1 observes only and may never restart or redeploy anything ({what}). Report what "
            "you found with an [EVENT:<level>:<service>] marker and, if it needs fixing, ask for the next tier "
            "with [ESCALATE] <reason>.")


def _reason(target: Target, state: ServiceCooldown) -> str:
    scope = "" if target.service != EVERY_SERVICE else f" (every service of the project, {state.service} included)"
    if state.until is None:
        return (f"`{target.command}` would {verb(target.action)} {_name(state.service)}, and {target.action} "
                f"is not allowed at all (limit 0)")
    return (f"`{target.command}` would {verb(target.action)} {state.service}{scope}, which already had "
            f"{counted(state.count, target.action)} in the last {hours(state.window_hours)} "
            f"(limit {state.limit} per {hours(state.window_hours)}); the next {target.action} of "
            f"{state.service} is allowed from {state.until}")


def _count(state: ServiceCooldown) -> str:
    return f"{state.count}/{state.limit} in {hours(state.window_hours)}"


def _until(state: ServiceCooldown) -> str:
    return f", allowed again from {state.until}" if state.until else ", not allowed at all"


def _name(service: str) -> str:
    return "every service of the project" if service == EVERY_SERVICE else service


def _service(service: str) -> str | None:
    return None if service == EVERY_SERVICE else service
