"""The memory plugin's tables as code: SPEC-0015's ``memories`` and our decay ledger.

The tables themselves are created by explicit SQL in :mod:`claudeops_memory.migrations`, so the
schema is exactly the spec's (migrations are frozen history, never derived from these models).
For the live code, :class:`Memory` is the one definition of the columns: the snapshot type
:class:`MemoryRecord`, the hand-written statements of :mod:`claudeops_memory.upsert_store` and
the repository's queries all take the column list from it, and the "same service" rule is
written once, in :func:`same_service_sql`.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, fields
from typing import Any

import peewee

from claudeops import BaseModel, portable_sql
from claudeops_memory.settings import CATEGORIES as CATEGORIES  # SPEC-0015's categories, where the models are
from claudeops_memory.settings import DEFAULT_CONFIDENCE


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
    uid = peewee.TextField(null=True)
    """Ours (migration ``012_memory_uids_and_sync``): the memory's stable identity across databases, which
    export, import and sync use; the ``id`` stays local. Every insert sets one; a row written by hand
    without one gets one when it is first exported."""
    pinned_at = peewee.TextField(null=True)
    """When the operator pinned it (an evergreen memory: it does not decay); ``None`` when not pinned.
    Ours (migration ``013``), like ``unpinned_at``; the spec's columns come first."""
    unpinned_at = peewee.TextField(null=True)
    """When it was last unpinned: its grace period runs from the later of this and ``updated_at``."""

    class Meta:
        table_name = "memories"


def new_uid() -> str:
    """A fresh memory ``uid``: a random UUID, as ``memories-flat-file-store.md`` names its records."""
    return str(uuid.uuid4())


ACTIVE = Memory.active == 1
"""``WHERE`` condition for active memories (a plain ``== True`` reads like a Python mistake)."""
INACTIVE = Memory.active == 0

MEMORY_COLUMNS: tuple[str, ...] = tuple(field.column_name for field in Memory._meta.sorted_fields)
"""The columns of ``memories`` in table order, as every query that reads or writes whole rows names them."""

GENERAL = "general"
"""How memories without a service (``service IS NULL``) are named in filters, headings and the CLI."""


@dataclass(frozen=True)
class MemoryRecord:
    """A snapshot of one row of ``memories``: exactly :data:`MEMORY_COLUMNS`, in order."""

    id: int
    service: str | None
    category: str
    observation: str
    confidence: float
    active: bool
    created_at: str
    updated_at: str
    session_id: int | None
    tier: int
    uid: str | None
    pinned_at: str | None = None
    unpinned_at: str | None = None

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> MemoryRecord:
        """A record from a row of :data:`MEMORY_COLUMNS` (``active`` comes back from SQL as 0/1)."""
        if len(row) != len(MEMORY_COLUMNS):
            raise ValueError(f"a memory row has {len(MEMORY_COLUMNS)} columns, not {len(row)}")
        values = list(row)
        values[_ACTIVE] = bool(values[_ACTIVE])
        return cls(*values)  # positional, in MEMORY_COLUMNS' order: a page of rows is read on every dashboard poll

    @classmethod
    def from_model(cls, row: Memory) -> MemoryRecord:
        return cls.from_row(tuple(getattr(row, column) for column in MEMORY_COLUMNS))

    @property
    def pinned(self) -> bool:
        """An evergreen memory: the operator pinned it, so it does not decay."""
        return self.pinned_at is not None

    @property
    def service_label(self) -> str:
        """The service, or ``general`` for a memory about no particular service."""
        return self.service or GENERAL

    def as_row(self) -> dict[str, Any]:
        """Exactly the table's columns (``active`` as a boolean), e.g. for ``--json``."""
        return asdict(self)


_ACTIVE = MEMORY_COLUMNS.index("active")
if tuple(field.name for field in fields(MemoryRecord)) != MEMORY_COLUMNS:  # from_row passes values by position
    raise TypeError("MemoryRecord's fields must be MEMORY_COLUMNS, in the same order")


def same_service_sql(service: str | None) -> tuple[str, tuple[Any, ...]]:
    """SQL and parameters for "same service": a general memory (NULL) matches only NULL.

    Written with ``?`` placeholders (:func:`claudeops.portable_sql` adapts them);
    :func:`same_service` is the same rule for peewee queries.
    """
    return ("service IS NULL", ()) if service is None else ("service = ?", (service,))


def same_service(service: str | None) -> peewee.SQL:
    """:func:`same_service_sql` as a peewee ``WHERE`` term."""
    sql, params = same_service_sql(service)
    return peewee.SQL(portable_sql(sql), params)


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


@dataclass(frozen=True)
class RowChange:
    """One memory as it was just before a write and just after it, as the history records it."""

    before: MemoryRecord
    after: MemoryRecord


class MemoryChangeRow(BaseModel):
    """One entry of a memory's append-only history (``memory_changes``, see :mod:`claudeops_memory.history`).

    The live code reads and writes entries with hand-written SQL (a marker's hot path); this
    model serves the set-based writes (decay, bulk confidence changes: ``INSERT … SELECT`` over
    ``memories``) and the dashboard's filtered counts.
    """

    id = peewee.AutoField()
    memory_id = peewee.IntegerField()
    changed_at = peewee.TextField()
    kind = peewee.TextField()
    actor = peewee.TextField()
    session_id = peewee.IntegerField(null=True)
    tier = peewee.IntegerField(null=True)
    decided_by = peewee.TextField(null=True)
    certainty = peewee.FloatField(null=True)
    reason = peewee.TextField(null=True)
    related_memory_id = peewee.IntegerField(null=True)
    refers_to = peewee.IntegerField(null=True)
    needs_review = IntegerBooleanField(default=False)
    old_confidence = peewee.FloatField(null=True)
    new_confidence = peewee.FloatField(null=True)
    old_active = IntegerBooleanField(null=True)
    new_active = IntegerBooleanField(null=True)
    old_observation = peewee.TextField(null=True)
    new_observation = peewee.TextField(null=True)
    old_updated_at = peewee.TextField(null=True)
    new_updated_at = peewee.TextField(null=True)
    snapshot = peewee.TextField(null=True)

    class Meta:
        table_name = "memory_changes"


CHANGE_COLUMNS: tuple[str, ...] = tuple(field.column_name for field in MemoryChangeRow._meta.sorted_fields)
"""The columns of ``memory_changes`` in table order."""


class InjectionBlock(BaseModel):
    """The memory block one session was given: its size in tokens and how many memories it held."""

    session_id = peewee.IntegerField(primary_key=True)
    planned_at = peewee.TextField()
    tokens = peewee.IntegerField()
    budget_tokens = peewee.IntegerField()
    qualifying = peewee.IntegerField()
    injected = peewee.IntegerField()
    cut_listed = peewee.IntegerField()

    class Meta:
        table_name = "memory_injection_blocks"


class Injection(BaseModel):
    """One memory of one session's ledger: injected, or qualified but cut by the budget, at its rank."""

    session_id = peewee.IntegerField()
    memory_id = peewee.IntegerField()
    rank = peewee.IntegerField()
    injected = IntegerBooleanField()

    class Meta:
        table_name = "memory_injections"
        primary_key = peewee.CompositeKey("session_id", "memory_id")
