"""What the memory plugin tells the daily digest and ``/metrics`` about its table."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any, cast

import peewee

from claudeops import counted
from claudeops_memory.models import Memory
from claudeops_memory.review import ACTIONS, waiting_items
from claudeops_memory.settings import MemorySettings


def digest_lines(since: str, until: str) -> list[str]:
    """Memories the agent or an operator created or changed in the span, and how many are active now."""
    in_span = (Memory.updated_at >= since) & (Memory.updated_at < until)
    created = Memory.select().where(in_span & (Memory.created_at >= since)).count()
    changed = Memory.select().where(in_span & (Memory.created_at < since)).count()
    active = Memory.select().where(Memory.active == 1).count()
    return [f"**Memories:** {created} new, {changed} changed; {counted(active, 'memory', 'memories')} active"]


def memory_metrics(settings: MemorySettings) -> list[Any]:
    """``claudeops_memories{state, category}``: the memories table right now; and
    ``claudeops_review_items{why}``: what waits in the review queue, by kind of item (every kind,
    zeros included, so a dashboard's series never vanish) — the ``items_to_review`` of ``/api/v1/status``."""
    from prometheus_client.core import GaugeMetricFamily

    family = GaugeMetricFamily("claudeops_memories", "Memories by state (active or inactive) and category",
                               labels=["state", "category"])
    query = (Memory.select(Memory.active, Memory.category, peewee.fn.COUNT(Memory.id))
             .group_by(Memory.active, Memory.category))
    for active, category, count in sorted(cast("Iterable[tuple[Any, str, int]]", query.tuples())):
        family.add_metric(["active" if active else "inactive", category], count)
    waiting = GaugeMetricFamily("claudeops_review_items", "Items waiting in the memory review queue, by kind",
                                labels=["why"])
    counts = Counter(item.kind for item in waiting_items(settings))
    for kind in ACTIONS:
        waiting.add_metric([kind], counts[kind])
    return [family, waiting]
