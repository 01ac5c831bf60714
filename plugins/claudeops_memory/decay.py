"""Staleness decay: memories lose confidence for every full week without reinforcement past the grace.

A memory last reinforced (``updated_at``) more than its category's grace period ago loses its
weekly decay for each *full* week beyond that, and is deactivated once below the threshold
(SPEC-0015 "Staleness Decay": 44 days old → 2 weeks → −0.2). The arithmetic, pins and per-category
settings are :mod:`claudeops_memory.decay_outlook`'s.

Decay runs at every session start and from ``claudeops memories decay``, possibly every few
minutes, on tables of up to a million memories, so it must be idempotent and, when nothing is
due, nearly free:

* **Idempotent.** The ``memory_decay`` ledger remembers how many weeks each memory has already
  lost since its current base, and a run applies only *weeks due − weeks applied*. Running twice
  at the same moment changes nothing; a memory 44 days old has lost exactly 0.2 however many runs
  happened in between. ``updated_at`` is never touched (it means "last reinforcement").
* **Scheduled.** Each memory carries ``decay_due_at``, the moment its next week falls due, and
  ``floor_at``, the moment decay would take it under the floor (``NULL``: never; ``''``: not
  scheduled yet), both indexed. A run looks only at memories whose ``decay_due_at`` has come
  (``''`` sorts first), so "nothing due" is one index probe, not a scan of the table. The
  schedule is a cache of the outlook: a database trigger clears it (``''``) whenever a write
  changes what it was computed from (``updated_at``, ``active``, ``confidence``, the category, a
  pin), whatever code made the write, and the next run computes it again. It is computed with one
  policy, whose fingerprint is kept in ``memory_decay_policy``: a run with another policy (the
  settings changed) first clears every schedule, in batches.
* **Bounded.** The work is done in batches, each its own ``BEGIN IMMEDIATE`` transaction sized to
  hold the write lock about :data:`BATCH_TARGET_SECONDS` (the limit is 0.1 s), so a session recording a
  marker or the dashboard saving an edit waits at most one batch, even for the first decay of a
  million memories.
* **Set-based writes.** On SQLite a chunk's memories travel to the database as one JSON array, read
  by one statement per table — the history entries (``INSERT … SELECT``), the lowered memories
  (``UPDATE … FROM``), the ledger, the schedules of the others — not one statement per row: the
  schedule trigger makes every statement that changes ``confidence`` or ``active`` keep a statement
  journal of the pages it touches, so one statement per row copied each index page it visited once
  per row (measured at 100k memories: 4.8 s per-row, 1.2-1.9 s set-based, for the same 62,057
  rows). The statements per row (PostgreSQL's) are the reference they must write exactly alike.

Every memory a run lowers gets one ``decayed`` history entry, however many weeks the step covers;
a run that finds nothing due writes nothing, so session starts do not fill the history.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import peewee

from claudeops import db, portable_sql
from claudeops_memory import history
from claudeops_memory.decay_outlook import Cutoffs, DecayInputs, Outlook, decay_base, describe_outlook, outlook
from claudeops_memory.decay_policy import DecayPolicy
from claudeops_memory.models import MemoryRecord

BATCH_TARGET_SECONDS = 0.04
"""How long one batch should hold the write lock; batches are resized after each to stay near it. Two fifths
of the 100 ms limit: on a shared machine one batch in a few hundred takes twice as long as the one before.
Larger batches cost less per memory (a commit writes every index page its rows touched, and the indexes
sorted by confidence share few pages between rows): at 100k, 30 ms batches took 2.3-2.4 s of CPU for
the first decay, 45 ms ones 2.15-2.2 s; the longest batch of the first decay of 1M took 42 and 57 ms of CPU."""
MAX_GROWTH = 1.5
"""A batch is at most this many times the one before, so one quick batch cannot lead to a huge one."""
FIRST_BATCH = 50
"""Rows in a run's first batch: small, because on a million memories whose pages are not in memory
one row can take a millisecond (measured: 148 rows in 158 ms on a loaded machine)."""
MIN_BATCH, MAX_BATCH = 10, 20_000
CHUNKS_PER_BATCH = 4
"""A batch is written in this many chunks (of at least :data:`MIN_CHUNK` rows), checking the time after each."""
MIN_CHUNK = 10
STOP_AFTER_SECONDS = 0.07
"""A batch commits before a chunk that, at the pace of the chunks before it, would take it past this long."""
CHECKPOINT_AFTER_SECONDS = 0.25
"""Batches that together held the lock this long are followed by a checkpoint of the write-ahead log (and
every run ends with one): often enough to keep the log short, rarely enough that its fsyncs do not double
the first decay's time (one after every batch cost about a third of it)."""
CACHE_KIB = 65_536
"""SQLite's page cache during a run with work to do (the connection's own, 2 MiB by default, is restored after):
a batch touches pages all over the indexes, which a small cache reads again and spills to the log before the
commit (measured at 100k: 3.5 s of CPU instead of 4.8, and fewer stalls). It is filled only by pages read."""
RESET_BATCH = 20_000
"""Ids per statement when a new policy clears every schedule (a cheap update of two columns)."""
RESET_SQL = ("UPDATE memories SET decay_due_at = '', floor_at = '' WHERE id > ? AND id <= ? "
             "AND (decay_due_at IS NULL OR decay_due_at <> '' OR floor_at IS NULL OR floor_at <> '')")

POLICY_SQL = "SELECT fingerprint FROM memory_decay_policy WHERE id = 1"
ANYTHING_DUE_SQL = "SELECT id FROM memories WHERE decay_due_at <= ? LIMIT 1"
DUE_COLUMNS = ("m.id, m.category, m.confidence, m.active, m.updated_at, m.pinned_at, m.unpinned_at, "
               "d.base_updated_at, d.weeks_applied")
DUE_SQL = (f"SELECT {DUE_COLUMNS} FROM memories m LEFT JOIN memory_decay d ON d.memory_id = m.id "
           "WHERE m.decay_due_at <= ? ORDER BY m.decay_due_at LIMIT ?")
LOWER_SQL = "UPDATE memories SET confidence = ?, active = ?, decay_due_at = ?, floor_at = ? WHERE id = ?"
LOWERED_FIELDS = ("id", "confidence", "active", "decay_due_at", "floor_at", "old_confidence", "updated_at",
                  "base", "weeks", "reason")
"""SQLite: a chunk's lowered memories travel as one JSON array of arrays, each these fields in this order, read
by the three set-based statements below (see "Set-based writes" above)."""
_LOWERED = {field: f"json_extract(lowered.value, '$[{index}]')" for index, field in enumerate(LOWERED_FIELDS)}
LOWER_SET_SQLITE = (f"UPDATE memories SET confidence = {_LOWERED['confidence']}, active = {_LOWERED['active']}, "
                    f"decay_due_at = {_LOWERED['decay_due_at']}, floor_at = {_LOWERED['floor_at']} "
                    f"FROM json_each(?) AS lowered WHERE memories.id = {_LOWERED['id']}")
LEDGER_SQL = ("INSERT INTO memory_decay (memory_id, base_updated_at, weeks_applied) VALUES (?, ?, ?) "
              "ON CONFLICT (memory_id) DO UPDATE SET base_updated_at = excluded.base_updated_at, "
              "weeks_applied = excluded.weeks_applied")
LEDGER_SET_SQLITE = (f"INSERT INTO memory_decay (memory_id, base_updated_at, weeks_applied) SELECT {_LOWERED['id']}, "
                     f"{_LOWERED['base']}, {_LOWERED['weeks']} FROM json_each(?) AS lowered WHERE true "
                     "ON CONFLICT (memory_id) DO UPDATE SET base_updated_at = excluded.base_updated_at, "
                     "weeks_applied = excluded.weeks_applied")
DECAYED_ENTRY = {"memory_id": "id", "new_confidence": "confidence", "new_active": "active",
                 "old_confidence": "old_confidence", "old_updated_at": "updated_at", "new_updated_at": "updated_at",
                 "reason": "reason"}
"""A ``decayed`` history entry's columns that differ per memory, and the lowered field each is (SQLite)."""
_DECAYED_POSITIONS = {column: LOWERED_FIELDS.index(field) for column, field in DECAYED_ENTRY.items()}
RESCHEDULE_SQL = "UPDATE memories SET decay_due_at = ?, floor_at = ? WHERE id = ?"
RESCHEDULE_SET_SQLITE = ("UPDATE memories SET decay_due_at = json_extract(kept.value, '$[1]'), "
                         "floor_at = json_extract(kept.value, '$[2]') FROM json_each(?) AS kept "
                         "WHERE memories.id = json_extract(kept.value, '$[0]')")
"""SQLite: a chunk's memories that only get a new schedule, in one statement (one JSON array of [id,
decay_due_at, floor_at])."""


@dataclass(frozen=True)
class DecayResult:
    """What one decay run did: memories lowered, of which deactivated; memories it scheduled, in how
    many batches, and the longest time one batch held the write lock — in wall time, and in CPU time of
    this thread (the work the batch did: on a machine with more runnable processes than cores the
    wall time also counts the time the process waited for a core)."""

    decayed: int
    deactivated: int
    scheduled: int = 0
    batches: int = 0
    longest_batch_seconds: float = 0.0
    longest_batch_cpu_seconds: float = 0.0


def decay_stale_memories(now: str, policy: DecayPolicy | None = None) -> DecayResult:
    """Apply the decay due at ``now`` to every memory, once (default: the spec's policy); returns what changed."""
    policy = policy or DecayPolicy.uniform()
    if not policy.decays:
        return DecayResult(0, 0)
    if _nothing_due(now, policy):
        return DecayResult(0, 0)
    _adopt(policy, now)
    totals = _Totals()
    cutoffs = Cutoffs(policy, now)
    size = FIRST_BATCH
    with _sqlite_run_settings() as checkpoint:
        while True:
            read, written, held = _decay_batch(now, cutoffs, size, totals)
            checkpoint(held)
            if read < size and written == read:
                break
            growth = min(MAX_GROWTH, BATCH_TARGET_SECONDS / max(held, 1e-4))
            size = max(MIN_BATCH, min(MAX_BATCH, int(written * growth)))
    return DecayResult(totals.decayed, totals.deactivated, totals.scheduled, totals.batches, totals.longest,
                       totals.longest_cpu)


@contextmanager
def _sqlite_run_settings() -> Iterator[Callable[[float], None]]:
    """On SQLite, copy the write-ahead log back into the database between batches, explicitly, give the
    run a page cache of :data:`CACHE_KIB` and keep its statement journals in memory; yields the function to
    call after each batch with the time it held the lock.

    A batch's ``UPDATE`` fires the schedule trigger, so SQLite keeps a statement journal (a copy of every
    page the statement touches, to undo the statement alone); past 64 KiB it goes to a temporary file
    unless ``temp_store`` is ``MEMORY`` (measured at 100k: 3.7 s → 3.25 s for the first decay). The journal
    holds at most one statement's pages, a few MB, and is dropped when the statement ends; it is never
    what makes a committed batch durable (the write-ahead log is).

    SQLite does it on its own after a commit once the log passes 1,000 pages, which a batch of
    decay often does: the copy (and its fsync) happens after the write lock is released, but
    inside the batch as timed here. Turning the automatic one off and checkpointing (``PASSIVE``:
    it never waits for or blocks a writer) outside the timing keeps the measure the lock's own;
    doing it once the batches since the last one held the lock :data:`CHECKPOINT_AFTER_SECONDS`
    keeps the log short (a few thousand pages) without an fsync per batch.
    """
    if not isinstance(db.obj, peewee.SqliteDatabase):
        yield lambda held: None
        return
    automatic = db.execute_sql("PRAGMA wal_autocheckpoint").fetchone()[0]
    db.execute_sql("PRAGMA wal_autocheckpoint = 0")
    cache = db.execute_sql("PRAGMA cache_size").fetchone()[0]
    db.execute_sql(f"PRAGMA cache_size = -{CACHE_KIB}")
    temp_store = db.execute_sql("PRAGMA temp_store").fetchone()[0]
    db.execute_sql("PRAGMA temp_store = MEMORY")
    since = 0.0

    def after_batch(held: float) -> None:
        nonlocal since
        since += held
        if since >= CHECKPOINT_AFTER_SECONDS:
            db.execute_sql("PRAGMA wal_checkpoint(PASSIVE)")
            since = 0.0

    try:
        yield after_batch
    finally:
        db.execute_sql(f"PRAGMA wal_autocheckpoint = {int(automatic)}")
        db.execute_sql(f"PRAGMA cache_size = {int(cache)}")
        db.execute_sql(f"PRAGMA temp_store = {int(temp_store)}")
        db.execute_sql("PRAGMA wal_checkpoint(PASSIVE)")


def schedule_is_current(policy: DecayPolicy) -> bool:
    """Whether the stored schedule was computed with ``policy`` (else it is about to be recomputed)."""
    row = db.execute_sql(POLICY_SQL).fetchone()
    return row is not None and row[0] == policy.fingerprint


def _nothing_due(now: str, policy: DecayPolicy) -> bool:
    """One read, no lock: the schedule is this policy's and no memory's next week has come."""
    return schedule_is_current(policy) and db.execute_sql(portable_sql(ANYTHING_DUE_SQL), (now,)).fetchone() is None


@dataclass
class _Totals:
    decayed: int = 0
    deactivated: int = 0
    scheduled: int = 0
    batches: int = 0
    longest: float = 0.0
    longest_cpu: float = 0.0


def _decay_batch(now: str, cutoffs: Cutoffs, size: int, totals: _Totals) -> tuple[int, int, float]:
    """Decay and schedule the ``size`` memories due first, in one transaction: (rows read, rows written,
    seconds held). Rows are written in :data:`CHUNKS_PER_BATCH` chunks and the batch commits early when the
    next chunk, as long as the ones before it took, would take it past :data:`STOP_AFTER_SECONDS` (a disk
    busy elsewhere, or a machine with more runnable processes than cores, can make a batch sized for 40 ms
    take many times as long): the rows it did not write are still due, and the next batch takes them."""
    with db.atomic():
        started, working = time.perf_counter(), time.thread_time()
        # written in id order: the rows' pages and index entries are then visited in order, not at random
        rows = sorted((DecayInputs(row[0], row[1], row[2], bool(row[3]), *row[4:])
                       for row in db.execute_sql(_due_sql(), (now, size)).fetchall()), key=lambda memory: memory.id)
        written = 0
        for chunks, chunk in enumerate(peewee.chunked(rows, chunk_size(size)), start=1):
            outlooks = [(memory, outlook(memory, cutoffs)) for memory in chunk]
            lowered = [(memory, after) for memory, after in outlooks if after.lowered]
            _write_lowered(lowered, now, cutoffs)
            _write_kept([(memory.id, after.next_decay_at, after.floor_at) for memory, after in outlooks
                         if not after.lowered])
            written += len(chunk)
            totals.decayed += len(lowered)
            totals.deactivated += sum(1 for _, after in lowered if not after.active)
            elapsed = time.perf_counter() - started
            if elapsed + elapsed / chunks > STOP_AFTER_SECONDS:
                break
    held = time.perf_counter() - started
    totals.batches += 1
    totals.scheduled += written
    totals.longest = max(totals.longest, held)
    totals.longest_cpu = max(totals.longest_cpu, time.thread_time() - working)
    return len(rows), written, held


def chunk_size(batch: int) -> int:
    """Rows per chunk of a batch of ``batch`` rows: a quarter of it, at least :data:`MIN_CHUNK`."""
    return max(MIN_CHUNK, math.ceil(batch / CHUNKS_PER_BATCH))


def _due_sql() -> str:
    """The due memories, first due first, locked against another decay run on PostgreSQL (SQLite's
    ``BEGIN IMMEDIATE`` already holds the one write lock): a row another run is decaying is waited
    for and then, its schedule moved on, no longer due."""
    statement = portable_sql(DUE_SQL)
    return statement + " FOR UPDATE OF m" if isinstance(db.obj, peewee.PostgresqlDatabase) else statement


def _write_kept(kept: list[tuple[int, str | None, str | None]]) -> None:
    """The memories this batch only reschedules: (id, decay_due_at, floor_at) each."""
    if kept:
        (_write_kept_sqlite if isinstance(db.obj, peewee.SqliteDatabase) else _write_kept_rows)(kept)


def _write_kept_rows(kept: list[tuple[int, str | None, str | None]]) -> None:
    db.cursor().executemany(portable_sql(RESCHEDULE_SQL), [(due, floor, memory) for memory, due, floor in kept])


def _write_kept_sqlite(kept: list[tuple[int, str | None, str | None]]) -> None:
    db.cursor().execute(RESCHEDULE_SET_SQLITE, (json.dumps(kept),))


def _write_lowered(lowered: list[tuple[DecayInputs, Outlook]], now: str, cutoffs: Cutoffs) -> None:
    """The memories this batch lowers: their new values and schedule, one history entry each, the ledger."""
    if lowered:
        (_write_lowered_sqlite if isinstance(db.obj, peewee.SqliteDatabase) else _write_lowered_rows)(
            lowered, now, cutoffs)


def _write_lowered_rows(lowered: list[tuple[DecayInputs, Outlook]], now: str, cutoffs: Cutoffs) -> None:
    """A statement per row (PostgreSQL keeps no statement journal: it costs it nothing extra); the reference
    the SQLite statements must write exactly alike."""
    cursor = db.cursor()
    history.append_entries([_decayed_entry(memory, after, now, cutoffs) for memory, after in lowered])
    cursor.executemany(portable_sql(LOWER_SQL), [(after.confidence, int(after.active), after.next_decay_at,
                                                  after.floor_at, memory.id) for memory, after in lowered])
    cursor.executemany(portable_sql(LEDGER_SQL), [(memory.id, memory.base, after.weeks) for memory, after in lowered])


def _write_lowered_sqlite(lowered: list[tuple[DecayInputs, Outlook]], now: str, cutoffs: Cutoffs) -> None:
    """SQLite: the lowered memories as one JSON array (:data:`LOWERED_FIELDS`), read by three statements — the
    history entries, the memories, the ledger — instead of a statement (and a Python mapping) per row."""
    rows = json.dumps([(memory.id, after.confidence, int(after.active), after.next_decay_at, after.floor_at,
                        memory.confidence, memory.updated_at, memory.base, after.weeks, _reason(memory, cutoffs))
                       for memory, after in lowered])
    history.append_entries_from_json(DECAYED_CONSTANTS | {"changed_at": now}, _DECAYED_POSITIONS, rows)
    cursor = db.cursor()
    cursor.execute(LOWER_SET_SQLITE, (rows,))
    cursor.execute(LEDGER_SET_SQLITE, (rows,))


DECAYED_CONSTANTS: dict[str, Any] = {"kind": "decayed", "actor": history.DECAY.kind, "decided_by": "decay",
                                     "old_active": 1}
"""What every ``decayed`` history entry says alike (with the moment of the run)."""


def _reason(memory: DecayInputs, cutoffs: Cutoffs) -> str:
    return f"not reinforced for over {cutoffs.policy.of_category(memory.category).grace_days} days"


def _decayed_entry(memory: DecayInputs, after: Outlook, now: str, cutoffs: Cutoffs) -> dict[str, Any]:
    return {**DECAYED_CONSTANTS, "memory_id": memory.id, "changed_at": now, "reason": _reason(memory, cutoffs),
            "old_confidence": memory.confidence, "new_confidence": after.confidence,
            "new_active": int(after.active), "old_updated_at": memory.updated_at,
            "new_updated_at": memory.updated_at}


def _adopt(policy: DecayPolicy, now: str) -> None:
    """Make the stored schedule ``policy``'s: when it was computed with another one, clear every memory's
    schedule (batches of :data:`RESET_BATCH` ids, each its own short transaction), then record the policy.

    "Never" (``NULL``) is cleared too: a category that did not decay, or a memory with nothing left to lose,
    may decay under the new policy. A row already cleared is not written again (the first run over a store
    migrated by ``013``, where every row is)."""
    if schedule_is_current(policy):
        return
    last = db.execute_sql("SELECT MAX(id) FROM memories").fetchone()[0] or 0
    for start in range(0, last, RESET_BATCH):
        with db.atomic():
            db.execute_sql(portable_sql(RESET_SQL), (start, start + RESET_BATCH))
    with db.atomic():  # an upsert: two runners adopting at once both write the one row, neither fails
        db.execute_sql(portable_sql("INSERT INTO memory_decay_policy (id, fingerprint, scheduled_at) VALUES (1, ?, ?) "
                                    "ON CONFLICT (id) DO UPDATE SET fingerprint = excluded.fingerprint, "
                                    "scheduled_at = excluded.scheduled_at"), (policy.fingerprint, now))


def decay_ledger(memory_ids: Iterable[int]) -> dict[int, tuple[str, int]]:
    """The decay ledger's entry (``base_updated_at``, ``weeks_applied``) of each of ``memory_ids`` that has one."""
    ledger: dict[int, tuple[str, int]] = {}
    for chunk in peewee.chunked(list(memory_ids), 500):
        statement = f"SELECT memory_id, base_updated_at, weeks_applied FROM memory_decay WHERE memory_id IN " \
                    f"({', '.join('?' * len(chunk))})"
        ledger.update((row[0], (row[1], row[2])) for row in db.execute_sql(portable_sql(statement), chunk).fetchall())
    return ledger


def outlooks(memories: Sequence[MemoryRecord], policy: DecayPolicy, now: str,
             ledger: Mapping[int, tuple[str, int]] | None = None) -> dict[int, Outlook]:
    """Each memory's :class:`~claudeops_memory.decay_outlook.Outlook` at ``now``: what decay due then does to it,
    when its next week falls due and when it would fall under the floor (the dashboard, ``context --explain``).
    ``ledger``: their :func:`decay_ledger`, when the caller has read it."""
    if ledger is None:
        ledger = decay_ledger(memory.id for memory in memories)
    cutoffs = Cutoffs(policy, now)
    return {memory.id: outlook(DecayInputs(memory.id, memory.category, memory.confidence, memory.active,
                                           memory.updated_at, memory.pinned_at, memory.unpinned_at,
                                           *ledger.get(memory.id, (None, None))), cutoffs)
            for memory in memories}


def weeks_due(updated_at: str, now: str, grace_days: int, decay_per_week: float,
              unpinned_at: str | None = None) -> int:
    """Full weeks past the grace period a memory last reinforced at ``updated_at`` is at ``now`` (capped
    where any confidence reaches 0)."""
    policy = DecayPolicy.uniform(grace_days, decay_per_week)
    if not policy.decays:
        return 0
    return Cutoffs(policy, now).weeks_due(policy.default, decay_base(updated_at, unpinned_at))


def outlook_lines(memories: Sequence[MemoryRecord], policy: DecayPolicy, now: str,
                  ledger: Mapping[int, tuple[str, int]] | None = None) -> dict[int, str]:
    """Each memory's decay outlook as the line the operator reads beside it (the dashboard, ``--explain``)."""
    ahead = outlooks(memories, policy, now, ledger)
    return {memory.id: describe_outlook(memory.pinned, memory.active, memory.confidence, memory.category,
                                        ahead[memory.id], policy) for memory in memories}
