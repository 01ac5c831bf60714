"""The peewee models of the memory plugin: SPEC-0015's ``memories`` table and our decay ledger.

The tables themselves are created by explicit SQL in :mod:`claudeops_memory.migrations`, so the
schema is exactly the spec's; these models only describe the columns for queries.
"""

from __future__ import annotations

from typing import Any

import peewee

from claudeops import BaseModel
from claudeops_memory.settings import DEFAULT_CONFIDENCE

CATEGORIES: tuple[str, ...] = ("timing", "dependency", "behavior", "remediation", "maintenance")
"""SPEC-0015 "Memory Categories", in the order the prompt and the CLI list them."""



class IntegerBooleanField(peewee.IntegerField):
    """A flag stored as ``INTEGER`` 0/1 (the spec's ``active`` column) and read as a ``bool``.

    peewee's ``BooleanField`` would send a real boolean, which PostgreSQL refuses for an
    integer column.
    """

    def db_value(self, value: Any) -> int | None:
        return None if value is None else int(bool(value))

    def python_value(self, value: Any) -> bool | None:
        return None if value is None else bool(value)


class Memory(BaseModel):
    """One piece of operational knowledge (SPEC-0015 "Memories Table Schema")."""

    id = peewee.AutoField()
    service = peewee.TextField(null=True)
    category = peewee.TextField()
    observation = peewee.TextField()
    confidence = peewee.FloatField(default=DEFAULT_CONFIDENCE)
    active = IntegerBooleanField(default=True)
    created_at = peewee.TextField()
    updated_at = peewee.TextField()
    session_id = peewee.IntegerField(null=True)
    tier = peewee.IntegerField(default=1)

    class Meta:
        table_name = "memories"


ACTIVE = Memory.active == 1
"""``WHERE`` condition for active memories (a plain ``== True`` reads like a Python mistake)."""
INACTIVE = Memory.active == 0


class MemoryDecay(BaseModel):
    """How many weeks of staleness decay a memory has already received since ``base_updated_at``.

    Decay is applied as "weeks due minus weeks already applied", which makes it idempotent: a
    second run at the same moment finds nothing due. The row only counts while
    ``base_updated_at`` equals the memory's ``updated_at``; a reinforcement or an edit refreshes
    ``updated_at`` and so restarts the count without touching this table.
    """

    memory_id = peewee.IntegerField(primary_key=True)
    base_updated_at = peewee.TextField()
    weeks_applied = peewee.IntegerField()

    class Meta:
        table_name = "memory_decay"
