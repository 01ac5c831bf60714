"""Recording remediation actions and computing each service's cooldown from them.

A service is in cooldown for an action when the actions counted in the sliding window reach
the limit. An action counts while it is strictly newer than ``now - window``: one recorded
exactly four hours ago no longer counts against a four-hour window. Failed attempts count too
(they touched the service), actions cleared by an operator do not.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any, cast

import peewee

from claudeops import db, from_timestamp, redact, to_timestamp, utc_now, write_patiently
from claudeops_cooldowns.models import CooldownActionRow, CooldownRefusalRow
from claudeops_cooldowns.names import service_name
from claudeops_cooldowns.settings import Rule, Rules


@dataclass(frozen=True)
class ServiceCooldown:
    """Where one service stands for one action.

    ``remaining`` (how many more actions the window allows) is a field, not a property, so
    ``as_dict()``, ``cooldowns --json`` and the JSON API carry it like every other field.
    """

    service: str
    action: str
    count: int
    limit: int
    window_hours: float
    in_cooldown: bool
    until: str | None
    last_action_at: str | None
    remaining: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class CooldownAction:
    """One recorded action, detached from the database."""

    id: int
    service: str
    action: str
    success: bool
    message: str
    tier: int | None
    session_id: int | None
    created_at: str
    cleared_at: str | None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def record_action(*, service: str, action: str, success: bool, message: str, tier: int | None,
                  session_id: int | None, created_at: str) -> CooldownAction:
    """Store one action in its own transaction, under the service's :func:`service_name`.

    Raises ``ValueError`` when nothing of a name is left (``.service``): an action stored under
    no service would count against nothing. The message is redacted: the marker it comes from
    already was, by the core (which recorded the warning), and this keeps any other caller honest.
    """
    name = service_name(service)
    if not name:
        raise ValueError(f"no service name in {service!r}")
    with db.atomic():
        row = CooldownActionRow.create(service=name, action=action, success=success,
                                       message=redact(message.strip()), tier=tier, session=session_id,
                                       created_at=created_at)
    return _action(row)


def record_refusal(service: str, action: str, tier: int, session_id: int, now: str) -> None:
    """Keep a refusal for ``/metrics`` (its event says the rest)."""
    def write() -> None:
        with db.atomic():
            CooldownRefusalRow.create(service=service, action=action, tier=tier, session=session_id, created_at=now)

    write_patiently(write, "recording a cooldown refusal")


def count_refusals_by_action() -> dict[str, int]:
    query = (CooldownRefusalRow.select(CooldownRefusalRow.action, peewee.fn.COUNT(CooldownRefusalRow.id))
             .group_by(CooldownRefusalRow.action))
    return dict(cast("Iterable[tuple[str, int]]", query.tuples()))


def count_actions_by_outcome() -> dict[tuple[str, bool], int]:
    query = (CooldownActionRow.select(CooldownActionRow.action, CooldownActionRow.success,
                                      peewee.fn.COUNT(CooldownActionRow.id))
             .group_by(CooldownActionRow.action, CooldownActionRow.success))
    return {(action, bool(success)): count
            for action, success, count in cast("Iterable[tuple[str, Any, int]]", query.tuples())}


def service_cooldown(service: str, action: str, rule: Rule, now: datetime) -> ServiceCooldown:
    """The state of one service for one action: the enforcement's question, asked before every restart.

    ``last_action_at`` is left ``None``: the enforcement never reads it, so it costs no query here;
    the dashboard, the command line and the prompt read it from :func:`cooldown_state`.
    """
    service = service_name(service)
    counted = [row.created_at for row in _counted(rule, now).where(
        CooldownActionRow.service == service, CooldownActionRow.action == action)]
    return evaluate(service, action, rule, counted, None)


def cooldown_state(rules: Rules, now: datetime | None = None) -> list[ServiceCooldown]:
    """Every (service, action) of ``rules`` with a recorded action, sorted by service then action.

    Callers pass the rules of the configuration they loaded (``rules_from(config.section("cooldowns"))``).
    Pairs whose actions all left the window are included with a count of 0, so the dashboard can
    still show when they last happened.
    """
    now = now or utc_now()
    last_rows = CooldownActionRow.select(
        CooldownActionRow.service, CooldownActionRow.action, peewee.fn.MAX(CooldownActionRow.created_at),
    ).group_by(CooldownActionRow.service, CooldownActionRow.action).tuples()
    # peewee's stubs type .tuples() as the model query
    last_at = {(service, action): last for service, action, last in cast("Iterable[tuple[str, str, str]]", last_rows)}
    counted: dict[tuple[str, str], list[str]] = defaultdict(list)
    for action, rule in rules.items():
        for row in _counted(rule, now).where(CooldownActionRow.action == action):
            counted[(row.service, action)].append(row.created_at)
    return [evaluate(service, action, rules[action], counted[(service, action)], last)
            for (service, action), last in sorted(last_at.items()) if action in rules]


def services_in_cooldown(action: str, rule: Rule, now: datetime) -> list[ServiceCooldown]:
    """Services in cooldown for ``action`` (for commands that act on every service)."""
    return [state for state in cooldown_state({action: rule}, now) if state.in_cooldown]


def clear_service(service: str, cleared_at: str) -> int:
    """Stop counting every action of ``service`` (history kept); returns how many rows changed."""
    with db.atomic():
        cleared: int = (CooldownActionRow.update(cleared_at=cleared_at)
                        .where(CooldownActionRow.service == service_name(service),
                               CooldownActionRow.cleared_at.is_null()).execute())
    return cleared


def list_actions(*, service: str | None = None, limit: int | None = None, offset: int = 0) -> list[CooldownAction]:
    """Recorded actions, cleared ones included, newest first (the dashboard's history)."""
    query = _of_service(service).order_by(CooldownActionRow.created_at.desc(), CooldownActionRow.id.desc())
    query = query.offset(offset or None)
    if limit is not None:
        query = query.limit(limit)
    return [_action(row) for row in query]


def count_actions(*, service: str | None = None) -> int:
    """How many actions :func:`list_actions` would return with the same ``service`` (for paging)."""
    return _of_service(service).count()


def evaluate(service: str, action: str, rule: Rule, counted: list[str], last_action_at: str | None) -> ServiceCooldown:
    """The state from the times of the counted actions.

    In cooldown once ``limit`` actions are in the window; it ends when enough of them have left
    it for the count to drop below the limit: the ``count - limit + 1``-th oldest action plus the
    window (with the count at the limit, the oldest counted action plus the window). A limit of
    0 forbids the action outright, so there is no end.
    """
    times = sorted(counted)
    in_cooldown = len(times) >= rule.limit
    until = None
    if in_cooldown and rule.limit > 0:
        until = to_timestamp(from_timestamp(times[len(times) - rule.limit]) + rule.window)
    return ServiceCooldown(service, action, len(times), rule.limit, rule.window_hours, in_cooldown, until,
                           last_action_at, max(rule.limit - len(times), 0))


def _of_service(service: str | None) -> peewee.ModelSelect[CooldownActionRow]:
    """Every recorded action, or those of ``service`` when one is given."""
    query = CooldownActionRow.select()
    return query if service is None else query.where(CooldownActionRow.service == service_name(service))


def _counted(rule: Rule, now: datetime) -> peewee.ModelSelect[CooldownActionRow]:
    """Actions that count against ``rule`` at ``now``: uncleared, strictly inside the window."""
    cutoff = to_timestamp(now - rule.window)
    return (CooldownActionRow.select(CooldownActionRow.service, CooldownActionRow.created_at)
            .where(CooldownActionRow.created_at > cutoff, CooldownActionRow.cleared_at.is_null()))


def _action(row: CooldownActionRow) -> CooldownAction:
    return CooldownAction(row.id, row.service, row.action, bool(row.success), row.message, row.tier,
                          row.session_id, row.created_at, row.cleared_at)
