"""The append-only history of every memory: ``memory_changes``, one entry per change.

Every write of a memory — a marker, the operator (CLI, dashboard form, JSON API), staleness
decay, a review, an undo, an import — appends an entry in the same transaction as the write, saying what
changed (old and new confidence, state, last-reinforced time, and text where it changed), who
did it (the *actor*: a session with its tier, the operator, decay, a review) and how it was
decided (an exact repeat, the agent's citation, a judge with its certainty and reason). The
entry records the row as stored, so text that a write path redacted is recorded redacted.

Entries are never updated or deleted, with two documented exceptions that must erase:
:func:`purge_history` (the operator's ``memories purge``: a memory that should never have
existed goes with its whole history) and :func:`rewrite_history_text` (secret redaction: a
secret found in stored text is rewritten wherever it is stored, this history included, and the
rewrite is itself recorded). Whether a change was reviewed or reverted is therefore not a flag
on its entry but a later entry that *refers to* it.

Entries are written with hand-written SQL (a marker's hot path, see
:mod:`claudeops_memory.upsert_store` for why); callers hold the transaction.
"""

from __future__ import annotations

import json
import operator
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, fields
from typing import Any

from peewee import chunked

from claudeops import db, insert_returning_id, is_row_id, portable_sql
from claudeops_memory.models import CHANGE_COLUMNS, MemoryRecord

KINDS: tuple[str, ...] = ("created", "reinforced", "contradicted", "replaced", "decayed", "edited", "deactivated",
                          "reactivated", "merged", "deleted", "restored", "reverted", "reviewed", "redacted",
                          "imported", "pinned", "unpinned")
"""What an entry can record, in the order the documentation explains them."""
RECORD_ONLY_KINDS = frozenset({"reviewed", "redacted", "pinned", "unpinned"})
"""Entries that change no confidence, state or text: a memory's *latest change* skips them (a pin is undone
by unpinning, not by a revert)."""
ACTORS: tuple[str, ...] = ("session", "operator", "decay", "review", "redaction", "import")
"""Who made a change; a session's entries carry its id and tier."""


@dataclass(frozen=True)
class Actor:
    """Who makes a change: ``session`` (with its id and tier), ``operator``, ``decay``, ``review``,
    ``redaction``, ``import``."""

    kind: str
    session_id: int | None = None
    tier: int | None = None


OPERATOR = Actor("operator")
DECAY = Actor("decay")
REVIEW = Actor("review")
REDACTION = Actor("redaction")
IMPORT = Actor("import")


def session_actor(session_id: int | None, tier: int) -> Actor:
    return Actor("session", session_id, tier)


@dataclass(frozen=True)
class Decision:
    """How a change was decided: ``decided_by`` (``exact repeat``, ``citation``, ``offline judge`` …),
    with the judge's certainty and reason when a judge decided."""

    decided_by: str | None = None
    certainty: float | None = None
    reason: str | None = None


NO_DECISION = Decision()


@dataclass(frozen=True)
class HistoryEntry:
    """One row of ``memory_changes``: exactly :data:`~claudeops_memory.models.CHANGE_COLUMNS`, in order."""

    id: int
    memory_id: int
    changed_at: str
    kind: str
    actor: str
    session_id: int | None
    tier: int | None
    decided_by: str | None
    certainty: float | None
    reason: str | None
    related_memory_id: int | None
    refers_to: int | None
    needs_review: bool
    old_confidence: float | None
    new_confidence: float | None
    old_active: bool | None
    new_active: bool | None
    old_observation: str | None
    new_observation: str | None
    old_updated_at: str | None
    new_updated_at: str | None
    snapshot: str | None

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> HistoryEntry:
        (entry_id, memory_id, changed_at, kind, actor, session_id, tier, decided_by, certainty, reason, related,
         refers_to, needs_review, old_confidence, new_confidence, old_active, new_active, *rest) = row
        return cls(entry_id, memory_id, changed_at, kind, actor, session_id, tier, decided_by, certainty, reason,
                   related, refers_to, bool(needs_review), old_confidence, new_confidence,
                   None if old_active is None else bool(old_active), None if new_active is None else bool(new_active),
                   *rest)

    @property
    def actor_label(self) -> str:
        """``session #7 (tier 2)``, ``operator``, ``decay``, ``review``."""
        if self.actor == "session":
            return f"session #{self.session_id} (tier {self.tier})" if self.session_id else f"tier {self.tier}"
        return self.actor

    @property
    def decision_label(self) -> str | None:
        """``citation``, ``offline judge (certainty 0.55)``, ``exact repeat`` …, or None."""
        if self.decided_by is None:
            return None
        if self.certainty is None:
            return self.decided_by
        return f"{self.decided_by} (certainty {self.certainty:.2f})"

    def as_row(self) -> dict[str, Any]:
        """The entry's columns for ``--json`` and the API (the snapshot as the object it encodes)."""
        row = asdict(self)
        row["snapshot"] = None if self.snapshot is None else json.loads(self.snapshot)
        return row


ENTRY_FIELDS = tuple(field.name for field in fields(HistoryEntry))
assert ENTRY_FIELDS == CHANGE_COLUMNS, "HistoryEntry must list the columns of memory_changes in order"

_COLUMNS = ", ".join(CHANGE_COLUMNS)
_SELECT = f"SELECT {_COLUMNS} FROM memory_changes WHERE "
_INSERTED = CHANGE_COLUMNS[1:]  # all but the id the database assigns
_INSERT = f"INSERT INTO memory_changes ({', '.join(_INSERTED)}) VALUES ({', '.join('?' * len(_INSERTED))})"


# --------------------------------------------------------------------------- writing


def _flag(value: bool | None) -> int | None:
    return None if value is None else int(value)


def record_change(kind: str, actor: Actor, now: str, *, before: MemoryRecord | None = None,
                  after: MemoryRecord | None = None, decision: Decision = NO_DECISION, related: int | None = None,
                  refers_to: int | None = None, needs_review: bool = False, snapshot: str | None = None) -> int:
    """Append one entry about ``after`` (or ``before`` when the memory is gone); returns its id.

    ``before`` and ``after`` are the row as stored just before and just after the write (either
    may be missing: a creation has no *before*, a deletion no *after*). Text is recorded only
    when it changed. Run inside the write's transaction, so the entry and the change commit
    together or not at all.
    """
    memory = after if after is not None else before
    if memory is None:
        raise ValueError("a history entry needs the memory before or after the change")
    text_changed = before is None or after is None or before.observation != after.observation
    values = (memory.id, now, kind, actor.kind, actor.session_id, actor.tier, decision.decided_by,
              decision.certainty, decision.reason, related, refers_to, int(needs_review),
              None if before is None else before.confidence, None if after is None else after.confidence,
              None if before is None else int(before.active), None if after is None else int(after.active),
              before.observation if before is not None and text_changed else None,
              after.observation if after is not None and text_changed else None,
              None if before is None else before.updated_at, None if after is None else after.updated_at,
              snapshot)
    return insert_returning_id(_INSERT, values)


def append_entries(entries: list[dict[str, Any]]) -> None:
    """Append many entries in one statement (a decay batch): each a mapping of column to value, the columns
    it leaves out empty (``needs_review`` false)."""
    if entries:
        rows = [_INSERTED_VALUES({**_LEFT_OUT, **entry}) for entry in entries]
        db.cursor().executemany(portable_sql(_INSERT), rows)


def append_entries_from_json(constant: dict[str, Any], varying: dict[str, int], rows: str) -> None:
    """SQLite: append one entry per element of ``rows``, a JSON array of arrays, in one ``INSERT … SELECT``
    (a decay batch: no Python, no bound parameters per entry). ``varying`` maps a column to the position of its
    value in each element, ``constant`` gives the columns every entry shares; the others are left empty
    (``needs_review`` false)."""
    columns = [*constant, *varying]
    if unknown := set(columns) - set(_INSERTED):  # the names become SQL: only the table's own
        raise ValueError(f"not columns of memory_changes: {', '.join(sorted(unknown))}")
    values = ["?"] * len(constant) + [f"json_extract(entry.value, '$[{position}]')" for position in varying.values()]
    db.cursor().execute(f"INSERT INTO memory_changes ({', '.join(columns)}) SELECT {', '.join(values)} "
                        "FROM json_each(?) AS entry", (*constant.values(), rows))


_LEFT_OUT: dict[str, Any] = {**dict.fromkeys(_INSERTED), "needs_review": 0}
_INSERTED_VALUES = operator.itemgetter(*_INSERTED)


def removal_snapshot(memory: MemoryRecord, decay: tuple[str, int] | None) -> str:
    """The whole row (and its decay ledger entry) of a memory about to be removed, so it can be restored
    exactly: same id, same columns, same decay already applied."""
    ledger = None if decay is None else {"base_updated_at": decay[0], "weeks_applied": decay[1]}
    return json.dumps({"memory": memory.as_row(), "decay": ledger}, sort_keys=True)


def read_snapshot(snapshot: str) -> tuple[MemoryRecord, tuple[str, int] | None]:
    """The row and decay ledger entry :func:`removal_snapshot` recorded (a row recorded before memories had
    a ``uid`` has none)."""
    stored = json.loads(snapshot)
    decay = stored.get("decay")
    return MemoryRecord(**{"uid": None, **stored["memory"]}), None if decay is None else (decay["base_updated_at"],
                                                                                          decay["weeks_applied"])


# --------------------------------------------------------------------------- reading


def _entries(condition: str, params: tuple[Any, ...], tail: str = " ORDER BY id") -> list[HistoryEntry]:
    cursor = db.execute_sql(portable_sql(_SELECT + condition + tail), params)
    return [HistoryEntry.from_row(row) for row in cursor.fetchall()]


def memory_history(memory_id: int) -> list[HistoryEntry]:
    """Every entry about one memory, oldest first: its timeline (none for an id no row can have)."""
    return _entries("memory_id = ?", (memory_id,)) if is_row_id(memory_id) else []


def get_change(change_id: int) -> HistoryEntry | None:
    found = _entries("id = ?", (change_id,)) if is_row_id(change_id) else []
    return found[0] if found else None


UNDOING_KINDS = frozenset({"reverted", "restored"})
"""Entries that undo an earlier entry of the same memory (the one they refer to)."""


@dataclass(frozen=True)
class StandingChanges:
    """A memory's history read as a stack: ``latest`` is the newest change still in effect (neither
    undone nor an undo itself), ``undone_by`` maps each undone change to the entry that undid it."""

    latest: HistoryEntry | None
    undone_by: dict[int, int]


def standing_changes(memory_id: int) -> StandingChanges:
    """Walk the timeline from the newest entry: an undo cancels the change it refers to, unless the
    undo was itself undone (a deletion reverted, then restored)."""
    undone_by: dict[int, int] = {}
    latest: HistoryEntry | None = None
    for entry in reversed(memory_history(memory_id)):
        if entry.id in undone_by or entry.kind in RECORD_ONLY_KINDS:
            continue
        if entry.kind in UNDOING_KINDS and entry.refers_to is not None:
            undone_by[entry.refers_to] = entry.id
        elif latest is None:
            latest = entry
    return StandingChanges(latest, undone_by)


def latest_state_change(memory_id: int) -> HistoryEntry | None:
    """The memory's newest change still in effect (see :func:`standing_changes`)."""
    return standing_changes(memory_id).latest


def entries_referring_to(change_id: int) -> list[HistoryEntry]:
    """The reviews and reverts of one change."""
    return _entries("refers_to = ?", (change_id,))


def session_changes(session_id: int) -> list[HistoryEntry]:
    """What one session did to memories, in order (created, reinforced, contradicted, replaced …)."""
    return _entries("session_id = ? AND actor = 'session'", (session_id,))


def _filters(kind: str | None, actor: str | None) -> tuple[str, tuple[Any, ...]]:
    terms, params = ["1 = 1"], []
    if kind is not None:
        terms.append("kind = ?")
        params.append(kind)
    if actor is not None:
        terms.append("actor = ?")
        params.append(actor)
    return " AND ".join(terms), tuple(params)


def recent_changes(*, kind: str | None = None, actor: str | None = None, limit: int = 50,
                   offset: int = 0) -> list[HistoryEntry]:
    """Changes across all memories, newest first, optionally of one kind and one actor."""
    condition, params = _filters(kind, actor)
    return _entries(condition, (*params, limit, offset), " ORDER BY id DESC LIMIT ? OFFSET ?")


def count_changes(*, kind: str | None = None, actor: str | None = None) -> int:
    condition, params = _filters(kind, actor)
    count: int = db.execute_sql(portable_sql(f"SELECT COUNT(*) FROM memory_changes WHERE {condition}"),
                                params).fetchone()[0]
    return count


def validate_kind(kind: str) -> str:
    if kind not in KINDS:
        raise ValueError(f"unknown change kind {kind!r} (expected one of: {', '.join(KINDS)})")
    return kind


def validate_actor(actor: str) -> str:
    if actor not in ACTORS:
        raise ValueError(f"unknown actor {actor!r} (expected one of: {', '.join(ACTORS)})")
    return actor


# --------------------------------------------------------------------------- the two erasing exceptions


def purge_history(memory_id: int) -> int:
    """Delete every entry about ``memory_id`` for good (``memories purge``); returns how many.

    Entries of *other* memories that name it as their related memory keep the bare id: they
    describe those memories' own changes.
    """
    deleted: int = db.execute_sql(portable_sql("DELETE FROM memory_changes WHERE memory_id = ?"),
                                  (memory_id,)).rowcount
    return deleted


_TEXT_COLUMNS = ("old_observation", "new_observation", "reason")


def rewrite_history_text(rewrite: Callable[[str], str], now: str, note: str,
                         memory_ids: Iterable[int] | None = None) -> dict[int, int]:
    """Rewrite every stored text of the history with ``rewrite`` (secret redaction); returns, per
    memory, how many of its entries changed.

    The second erasing exception: a redaction that rewrites the stored memories must rewrite
    their history too (old and new texts, judges' reasons, the rows kept to restore deleted
    memories), or the secret stays one click away. ``memory_ids`` limits it to some memories
    (all when ``None``). Each memory whose history changed gets a ``redacted`` entry whose
    reason is ``note`` (say which kinds were redacted, never the value). Run it in a transaction.
    """
    changed: dict[int, int] = {}
    for entry_id, memory_id, *texts, snapshot in _text_rows(memory_ids):
        rewritten = [None if text is None else rewrite(text) for text in texts]
        new_snapshot = None if snapshot is None else _rewrite_snapshot(snapshot, rewrite)
        if rewritten == texts and new_snapshot == snapshot:
            continue
        assignments = ", ".join(f"{column} = ?" for column in (*_TEXT_COLUMNS, "snapshot"))
        db.execute_sql(portable_sql(f"UPDATE memory_changes SET {assignments} WHERE id = ?"),
                       (*rewritten, new_snapshot, entry_id))
        changed[memory_id] = changed.get(memory_id, 0) + 1
    for memory_id in sorted(changed):
        _record_redaction(memory_id, now, note)
    return changed


def _text_rows(memory_ids: Iterable[int] | None) -> list[tuple[Any, ...]]:
    select = f"SELECT {', '.join(('id', 'memory_id', *_TEXT_COLUMNS, 'snapshot'))} FROM memory_changes"
    if memory_ids is None:
        return list(db.execute_sql(select).fetchall())
    rows: list[tuple[Any, ...]] = []
    for chunk in chunked(sorted(set(memory_ids)), 500):
        condition = f" WHERE memory_id IN ({', '.join('?' * len(chunk))}) ORDER BY id"
        rows.extend(db.execute_sql(portable_sql(select + condition), tuple(chunk)).fetchall())
    return rows


def _rewrite_snapshot(snapshot: str, rewrite: Callable[[str], str]) -> str:
    stored = json.loads(snapshot)
    stored["memory"]["observation"] = rewrite(stored["memory"]["observation"])
    return json.dumps(stored, sort_keys=True)


def _record_redaction(memory_id: int, now: str, note: str) -> None:
    """The ``redacted`` note: about the memory, carrying no text of it (its row may be gone)."""
    values = (memory_id, now, "redacted", REDACTION.kind, None, None, None, None, note, None, None, 0,
              *([None] * 9))
    insert_returning_id(_INSERT, values)
