"""The injection ledger: what each session was told.

At session start, after decay, the memory block is planned and appended to the system prompt;
the ledger keeps, per session, the block's size (tokens, budget, how many memories qualified),
every memory injected with its rank, and the first ``memory.ledger_cut_limit`` memories that
qualified but were cut by the budget, with theirs. It answers three questions:

* what was this session told? (its page, ``claudeops sessions show``)
* may this session cite ``#12``? A citation counts only for a memory injected into that very
  session (:mod:`claudeops_memory.citation`);
* how often has a memory been injected, and when last? (its timeline, ``memories history``)

Ranks are positions in the trust order (confidence, then newest first) at that moment: the
injected memories are ranks 1…K, the cut ones K+1 onwards.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import cast

import peewee

from claudeops import db, is_row_id, portable_sql
from claudeops_memory.context import MemoryContext
from claudeops_memory.models import Injection, InjectionBlock

_ROWS_PER_STATEMENT = 200
"""Ledger rows per ``INSERT``: four parameters each, well under SQLite's limit on bound parameters."""


@dataclass(frozen=True)
class SessionInjection:
    """What one session was told: the block's numbers and the memories in it or cut from it, by rank."""

    session_id: int
    planned_at: str
    tokens: int
    budget_tokens: int
    qualifying: int
    injected: tuple[tuple[int, int], ...]
    """``(rank, memory_id)`` of every memory in the block."""
    cut: tuple[tuple[int, int], ...]
    """``(rank, memory_id)`` of the memories that qualified but did not fit (the first ones)."""

    @property
    def cut_unlisted(self) -> int:
        """Memories that qualified, did not fit, and are not named (past ``memory.ledger_cut_limit``)."""
        return max(0, self.qualifying - len(self.injected) - len(self.cut))


@dataclass(frozen=True)
class InjectionCount:
    """In how many sessions a memory was injected, and the last of them."""

    sessions: int
    last_session_id: int | None


NEVER_INJECTED = InjectionCount(0, None)


def record_injection(session_id: int, plan: MemoryContext, budget_tokens: int, now: str) -> None:
    """Keep what ``plan`` gave session ``session_id``; recording the same session twice keeps the first."""
    rows = [(session_id, memory_id, rank, 1) for rank, memory_id in enumerate(plan.ranked_ids, 1)]
    first_cut = len(rows) + 1
    rows += [(session_id, memory_id, rank, 0) for rank, memory_id in enumerate(plan.cut_ids, first_cut)]
    with db.atomic():
        inserted = (InjectionBlock.insert(session_id=session_id, planned_at=now, tokens=plan.tokens,
                                          budget_tokens=budget_tokens, qualifying=plan.total,
                                          injected=len(plan.ranked_ids), cut_listed=len(plan.cut_ids))
                    .on_conflict_ignore().as_rowcount().execute())
        if not inserted:
            return
        fields = [Injection.session_id, Injection.memory_id, Injection.rank, Injection.injected]
        for chunk in peewee.chunked(rows, _ROWS_PER_STATEMENT):
            Injection.insert_many(chunk, fields=fields).execute()


def was_injected(session_id: int, memory_id: int) -> bool:
    """Whether ``memory_id`` was in the memory block of session ``session_id``."""
    found = db.execute_sql(portable_sql("SELECT 1 FROM memory_injections WHERE session_id = ? AND memory_id = ? "
                                        "AND injected = 1"), (session_id, memory_id)).fetchone()
    return found is not None


def session_injection(session_id: int) -> SessionInjection | None:
    """The ledger of one session, or None when it was given no block (memory disabled, or before the ledger)."""
    block = InjectionBlock.get_or_none(InjectionBlock.session_id == session_id)
    if block is None:
        return None
    query = (Injection.select(Injection.rank, Injection.memory_id, Injection.injected)
             .where(Injection.session_id == session_id).order_by(Injection.rank))
    # peewee's stubs type .tuples() as the model query
    rows = list(cast("Iterable[tuple[int, int, bool]]", query.tuples()))
    return SessionInjection(session_id, block.planned_at, block.tokens, block.budget_tokens, block.qualifying,
                            tuple((rank, memory_id) for rank, memory_id, injected in rows if injected),
                            tuple((rank, memory_id) for rank, memory_id, injected in rows if not injected))


def injection_counts(memory_ids: Collection[int]) -> dict[int, InjectionCount]:
    """For each memory, in how many sessions it was injected and the last one (never: ``NEVER_INJECTED``)."""
    wanted = sorted({memory_id for memory_id in memory_ids if is_row_id(memory_id)})
    counts = dict.fromkeys(memory_ids, NEVER_INJECTED)
    for chunk in peewee.chunked(wanted, 500):
        query = (Injection.select(Injection.memory_id, peewee.fn.COUNT(Injection.session_id),
                                  peewee.fn.MAX(Injection.session_id))
                 .where(Injection.memory_id.in_(chunk), Injection.injected == 1).group_by(Injection.memory_id))
        # peewee's stubs type .tuples() as the model query
        for memory_id, sessions, last in cast("Iterable[tuple[int, int, int]]", query.tuples()):
            counts[memory_id] = InjectionCount(sessions, last)
    return counts


def forget_memory(memory_id: int) -> None:
    """Remove a purged memory from every session's ledger (the block's counts stay as they were)."""
    Injection.delete().where(Injection.memory_id == memory_id).execute()
