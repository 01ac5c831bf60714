"""The dashboard's own queries over the core ``sessions`` table: escalation chains and overview stats.

The rows themselves come from :mod:`claudeops.sessions` (``session_dicts``, which the command
line uses too). Callers hold the database connection.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

import peewee

from claudeops import SESSION_STATUSES as STATUSES
from claudeops import SessionRow, get_session_dict, spend_since, to_timestamp, utc_now

MAX_CHAIN = 8
"""Escalation chains are a few tiers long; the walk stops here even on corrupt parent links."""


@dataclass(frozen=True)
class ChainLink:
    """One session of an escalation chain."""

    id: int
    tier: int
    status: str


def escalation_chains(rows: Sequence[dict[str, Any]]) -> dict[int, list[ChainLink]]:
    """For each row, the whole chain it belongs to, lowest tier first (one entry: no escalation)."""
    known: dict[int, dict[str, Any]] = {row["id"]: row for row in rows}
    _load_ancestors(known)
    children = _load_descendants(known)
    chains = {}
    for row in rows:
        root = row
        for _ in range(MAX_CHAIN):
            parent = known.get(root.get("parent_session_id") or -1)
            if parent is None:
                break
            root = parent
        chain = [root]
        while len(chain) < MAX_CHAIN and children.get(chain[-1]["id"]):
            chain.append(known[children[chain[-1]["id"]][0]])
        chains[row["id"]] = [ChainLink(link["id"], link["tier"], link["status"]) for link in chain]
    return chains


def _fetch(ids: Iterable[int]) -> list[dict[str, Any]]:
    wanted = list(ids)
    if not wanted:
        return []
    columns = (SessionRow.id, SessionRow.tier, SessionRow.status, SessionRow.parent_session_id)
    return _dicts(SessionRow.select(*columns).where(SessionRow.id.in_(wanted)))


def _load_ancestors(known: dict[int, dict[str, Any]]) -> None:
    for _ in range(MAX_CHAIN):
        missing = {row["parent_session_id"] for row in known.values()
                   if row.get("parent_session_id") and row["parent_session_id"] not in known}
        if not missing:
            return
        known.update((row["id"], row) for row in _fetch(missing))


def _load_descendants(known: dict[int, dict[str, Any]]) -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    frontier = set(known)
    columns = (SessionRow.id, SessionRow.tier, SessionRow.status, SessionRow.parent_session_id)
    for _ in range(MAX_CHAIN):
        if not frontier:
            break
        found = _dicts(SessionRow.select(*columns).where(SessionRow.parent_session_id.in_(list(frontier)))
                       .order_by(SessionRow.id))
        frontier = set()
        for row in found:
            children.setdefault(row["parent_session_id"], []).append(row["id"])
            if row["id"] not in known:
                known[row["id"]] = row
                frontier.add(row["id"])
    return children


def _dicts(query: peewee.ModelSelect[SessionRow]) -> list[dict[str, Any]]:
    """The rows of ``query`` as dicts (peewee's stubs type ``.dicts()`` as the model query)."""
    return list(cast("Iterable[dict[str, Any]]", query.dicts()))


@dataclass(frozen=True)
class SessionStats:
    """Sessions started in a window: how many per status, and what they really spent."""

    by_status: dict[str, int]
    total: int
    cost_usd: float
    """By :func:`claudeops.spend_since`, the one cost rule (replays spend nothing), as the Spend card,
    the spend caps and ``/metrics`` count it: a replay's recorded cost is not money spent now."""


def session_stats(hours: int = 24, now: datetime | None = None) -> SessionStats:
    since = to_timestamp((now or utc_now()) - timedelta(hours=hours))
    query = _dicts(SessionRow.select(SessionRow.status, peewee.fn.COUNT(SessionRow.id).alias("count"))
                   .where(SessionRow.started_at >= since).group_by(SessionRow.status))
    by_status = {status: 0 for status in STATUSES}
    for row in query:
        by_status[row["status"]] = row["count"]
    return SessionStats(by_status, sum(by_status.values()), spend_since(since))


def last_run_per_tier(max_tier: int) -> dict[int, dict[str, Any] | None]:
    """Each tier's newest session (its row, with ``elapsed_ms``) or ``None``."""
    runs: dict[int, dict[str, Any] | None] = {}
    for tier in range(1, max_tier + 1):
        newest = SessionRow.select(SessionRow.id).where(SessionRow.tier == tier).order_by(SessionRow.id.desc()).first()
        runs[tier] = None if newest is None else get_session_dict(newest.id)
    return runs
