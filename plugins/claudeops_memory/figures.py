"""What the memory plugin tells the daily digest and ``/metrics`` about its table."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import peewee

from claudeops import counted
from claudeops_memory.models import Memory


def digest_lines(since: str, until: str) -> list[str]:
    """Memories the agent or an operator created or changed in the span, and how many are active now."""
    in_span = (Memory.updated_at >= since) & (Memory.updated_at < until)
    created = Memory.select().where(in_span & (Memory.created_at >= since)).count()
    changed = Memory.select().where(in_span & (Memory.created_at < since)).count()
    active = Memory.select().where(Memory.active == 1).count()
    return [f"**Memories:** {created} new, {changed} changed; {counted(active, 'memory', 'memories')} active"]


def memory_metrics() -> list[Any]:
    """``claudeops_memories{state, category}``: the memories table right now."""
    from prometheus_client.core import GaugeMetricFamily

    family = GaugeMetricFamily("claudeops_memories", "Memories by state (active or inactive) and category",
                               labels=["state", "category"])
    query = (Memory.select(Memory.active, Memory.category, peewee.fn.COUNT(Memory.id))
             .group_by(Memory.active, Memory.category))
    for active, category, count in sorted(cast("Iterable[tuple[Any, str, int]]", query.tuples())):
        family.add_metric(["active" if active else "inactive", category], count)
    return [family]
