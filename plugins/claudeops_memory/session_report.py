"""What one session was told and what it changed: its page's memory panel and ``sessions show``.

Read from the injection ledger (the block the session was given: how big, which memories, which
the budget cut) and from the history (every memory the session created, reinforced,
contradicted, replaced or reactivated). Both views use this one report, so the dashboard and the
command line never disagree, and neither claims a session did nothing when it reinforced two
memories (issue 13 item 2).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from claudeops import SessionDetail, counted
from claudeops_memory import history, ledger, upsert_store
from claudeops_memory.history import HistoryEntry
from claudeops_memory.ledger import SessionInjection
from claudeops_memory.models import MemoryRecord

CHANGE_ORDER = ("created", "reactivated", "reinforced", "contradicted", "replaced")
"""How a session's changes are grouped, in the order they are shown."""


@dataclass(frozen=True)
class SessionMemoryReport:
    """The ledger of one session, its changes by kind, and every memory named, as stored now."""

    session_id: int
    told: SessionInjection | None
    changes: dict[str, list[HistoryEntry]]
    memories: dict[int, MemoryRecord]

    @property
    def changed(self) -> int:
        """How many changes the session made to memories."""
        return sum(len(entries) for entries in self.changes.values())


def session_report(session_id: int) -> SessionMemoryReport:
    told = ledger.session_injection(session_id)
    entries = history.session_changes(session_id)
    changes = {kind: [entry for entry in entries if entry.kind == kind] for kind in CHANGE_ORDER}
    named = {memory_id for _, memory_id in ((told.injected + told.cut) if told else ())}
    named |= {entry.memory_id for entry in entries} | {entry.related_memory_id for entry in entries
                                                       if entry.related_memory_id}
    memories = {memory_id: memory for memory_id in sorted(named)
                if (memory := upsert_store.get(memory_id)) is not None}
    return SessionMemoryReport(session_id, told, {kind: found for kind, found in changes.items() if found}, memories)


def _memory_line(memory_id: int, report: SessionMemoryReport) -> str:
    memory = report.memories.get(memory_id)
    if memory is None:
        return f"#{memory_id} (deleted since)"
    return f"#{memory_id} [{memory.category}:{memory.service_label}] {memory.observation}"


def _change_line(entry: HistoryEntry, report: SessionMemoryReport) -> str:
    line = _memory_line(entry.memory_id, report)
    if entry.old_confidence is not None and entry.new_confidence is not None:
        line += f" ({entry.old_confidence:.2f} -> {entry.new_confidence:.2f})"
    if entry.related_memory_id is not None:
        line += {"replaced": " by", "contradicted": " by", "created": ", related"}.get(entry.kind, ", related")
        line += f" #{entry.related_memory_id}"
    if entry.decided_by:
        line += f"; {entry.decision_label}"
    return line


def told_summary(told: SessionInjection | None) -> str:
    """One line: how much memory the session was given."""
    if told is None:
        return "no memory block was recorded for this session"
    if not told.injected:
        reason = "no memory qualified" if told.qualifying == 0 else "none fitted the budget"
        return f"told no memories ({reason}; budget {told.budget_tokens:,} tokens)"
    return (f"told {len(told.injected)} of {counted(told.qualifying, 'memory', 'memories')}, "
            f"~{told.tokens:,} of {told.budget_tokens:,} tokens")


def report_lines(report: SessionMemoryReport) -> tuple[str, ...]:
    lines = [told_summary(report.told)]
    if report.told is not None:
        lines += [f"  rank {rank}: {_memory_line(memory_id, report)}" for rank, memory_id in report.told.injected]
        if report.told.cut:
            lines.append("cut by the budget:")
            lines += [f"  rank {rank}: {_memory_line(memory_id, report)}" for rank, memory_id in report.told.cut]
        if report.told.cut_unlisted:
            lines.append(f"  and {counted(report.told.cut_unlisted, 'more memory', 'more memories')} not listed")
    if not report.changes:
        lines.append("changed no memory")
    for kind, entries in report.changes.items():
        lines.append(f"{kind} {len(entries)}:")
        lines += [f"  {_change_line(entry, report)}" for entry in entries]
    return tuple(lines)


def report_data(report: SessionMemoryReport) -> dict[str, Any]:
    told = report.told
    return {
        "told": None if told is None else {
            "tokens": told.tokens, "budget_tokens": told.budget_tokens, "qualifying": told.qualifying,
            "injected": [{"rank": rank, "memory_id": memory_id} for rank, memory_id in told.injected],
            "cut": [{"rank": rank, "memory_id": memory_id} for rank, memory_id in told.cut],
            "cut_unlisted": told.cut_unlisted},
        "changes": {kind: [entry.as_row() for entry in entries] for kind, entries in report.changes.items()},
    }


def describe(session_id: int) -> SessionDetail:
    report = session_report(session_id)
    return SessionDetail("memory", "Memory", report_lines(report), report_data(report))
