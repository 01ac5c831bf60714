"""``memories import``: what an export would change here, decided per memory by uid, done in one transaction.

For each incoming memory, against this database (``base`` is the uid's sync base: the state hash
this database last exported or imported, :mod:`claudeops_memory.sync_state`):

==================================================  ==============================================
here                                                outcome
==================================================  ==============================================
no memory with the uid, never synced                ``add``
no memory with the uid, synced before               ``kept deleted``: deleted here since; left so
the same document                                   ``unchanged`` (history entries it lacks added)
changed there only (ours = base ≠ theirs)           ``update``: theirs, with its new history
changed here only (theirs = base ≠ ours)            ``keep ours``
changed on both sides (base ≠ ours ≠ theirs ≠ base) ``conflict``: to the review queue, ours stays
never synced, both exist and differ                 the newer ``updated_at`` wins (``update`` or
                                                    ``keep ours``); equal times: ``conflict``
==================================================  ==============================================

Importing the same export twice changes nothing the second time: every added or updated memory
then equals its document, every conflict is already waiting with that very version. A dry run
plans the same way, inside a read transaction, and writes nothing. Bad files stop the import
before anything is read from the database (:mod:`claudeops_memory.import_files`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from claudeops import collector_paused, db
from claudeops_memory import import_apply, sync_conflicts, sync_state
from claudeops_memory.export import read_transaction
from claudeops_memory.import_files import Incoming, ReadResult, read_source
from claudeops_memory.portable import PortableMemory, local_sessions, read_portable

OUTCOMES = ("add", "update", "conflict", "waiting", "unchanged", "keep ours", "kept deleted")
"""What an import does with one memory (``waiting``: a conflict whose version already waits in the review
queue), in the order a report lists them."""


class BadFiles(ValueError):
    """Documents that cannot be imported: one line each (``file: problem``); nothing was changed."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__(f"{len(problems)} problem{'' if len(problems) == 1 else 's'} in the files to import")
        self.problems = problems


@dataclass(frozen=True)
class Planned:
    """What the import does with one incoming memory, why, and the local memory it concerns."""

    action: str
    incoming: Incoming
    why: str
    memory_id: int | None = None
    local: PortableMemory | None = None
    waiting: bool = False
    """For a conflict: this very version already waits in the review queue (nothing to record)."""
    merge: import_apply.HistoryMerge | None = None
    """For an unchanged memory: the incoming history entries it lacks."""


@dataclass
class ImportOutcome:
    """The plan (done, unless a dry run), the secrets redacted, and the history entries added to kept memories."""

    plan: list[Planned]
    redacted: list[tuple[str, tuple[str, ...]]]
    dry_run: bool
    held_back: list[tuple[str, str]] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)

    def __post_init__(self) -> None:
        self.counts = Counter("waiting" if planned.waiting else planned.action for planned in self.plan)

    @property
    def history_added(self) -> int:
        """History entries added to memories that were otherwise unchanged."""
        return sum(len(planned.merge.changes) for planned in self.plan if planned.merge is not None)


def import_memories(path: Path, *, max_observation_chars: int, now: str, dry_run: bool = False) -> ImportOutcome:
    """Read and check ``path``, plan, and (unless ``dry_run``) apply it all in one transaction.

    ``BadFiles`` when any document cannot be imported: then nothing is changed. Runs with the cycle
    collector paused (:func:`claudeops.collector_paused`).
    """
    with collector_paused():
        read = read_source(path, max_observation_chars)
        if read.problems:
            raise BadFiles(read.problems)
        if dry_run:
            with read_transaction():
                return ImportOutcome(plan_import(read.memories), read.redacted, dry_run=True,
                                     held_back=read.held_back)
        with db.atomic():
            return _apply(plan_import(read.memories), read, now)


def plan_import(items: list[Incoming]) -> list[Planned]:
    """Decide each incoming memory against this database (see the module's table), in the files' order."""
    uids = [item.memory.uid for item in items]
    ids = sync_state.lookup("memories", "uid", "id", uids, "uid IS NOT NULL")
    local = {memory.uid: memory for memory in read_portable(list(ids))}  # only those here: a new one has none
    bases = sync_state.synced_hashes(uids)
    waiting = sync_conflicts.waiting_versions(uids)
    return [_decide(item, local.get(item.memory.uid), ids.get(item.memory.uid), bases.get(item.memory.uid),
                    waiting.get(item.memory.uid)) for item in items]


def _decide(item: Incoming, local: PortableMemory | None, memory_id: int | None, base: str | None,
            waiting: str | None) -> Planned:
    theirs = item.memory
    if local is None or memory_id is None:
        if base is not None:
            return Planned("kept deleted", item, "deleted here since it was last exported or imported")
        return Planned("add", item, "new here")
    if local.state_hash == theirs.state_hash:
        merge = import_apply.history_merge(memory_id, theirs.history, local)
        return Planned("unchanged", item, "the same here", memory_id, local, merge=merge)
    if base is None:
        ours_at, theirs_at = local.memory["updated_at"], theirs.memory["updated_at"]
        if theirs_at != ours_at:
            newer = "update" if theirs_at > ours_at else "keep ours"
            return Planned(newer, item, f"never synced: the newer version wins ({max(theirs_at, ours_at)})",
                           memory_id, local)
        return _conflict(item, "never synced, both changed at the same time", memory_id, local, waiting)
    if theirs.state_hash == base:
        return Planned("keep ours", item, "changed here only", memory_id, local)
    if local.state_hash == base:
        return Planned("update", item, "changed there only", memory_id, local)
    return _conflict(item, "changed on both sides since the last export or import", memory_id, local, waiting)


def _conflict(item: Incoming, why: str, memory_id: int, local: PortableMemory, waiting: str | None) -> Planned:
    return Planned("conflict", item, why, memory_id, local, waiting=waiting == item.memory.state_hash)


def _apply(plan: list[Planned], read: ReadResult, now: str) -> ImportOutcome:
    sessions = local_sessions()
    import_apply.add_memories([planned.incoming for planned in plan if planned.action == "add"], sessions, now)
    merges, synced = [], []
    for planned in plan:
        if planned.memory_id is None or planned.local is None:
            continue
        if planned.action == "update":
            import_apply.replace_memory(planned.memory_id, planned.incoming, planned.local, sessions, now)
        elif planned.action == "unchanged" and planned.merge is not None:
            merges.append(planned.merge)
            synced.append((planned.incoming.memory.uid, planned.incoming.memory.state_hash))
        elif planned.action == "conflict" and not planned.waiting:
            sync_conflicts.record_conflict(planned.memory_id, planned.incoming, now)
    import_apply.insert_changes(merges, sessions)
    bases = sync_state.synced_hashes([uid for uid, _ in synced])
    sync_state.record_synced([(uid, digest) for uid, digest in synced if bases.get(uid) != digest], now)
    return ImportOutcome(plan, read.redacted, dry_run=False, held_back=read.held_back)
