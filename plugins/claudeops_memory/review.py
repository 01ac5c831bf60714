"""The review queue: the machine's decisions a person should look at, and what they decide.

Items, newest first:

* ``contradiction`` — a judge decided a new observation contradicts a memory (which lost
  confidence) and stored the observation beside it;
* ``replacement`` — the agent wrote ``(replaces #N)``: N lost confidence and has a successor;
* ``unsure`` — a judge leaned towards ``reinforce`` or ``contradict`` (or ``distinct``) with less
  than ``memory.judge_min_certainty``, so the observation was stored as a new memory;
* ``sync conflict`` — an import found a memory changed both here and in the files since they last
  agreed, and kept ours (:mod:`claudeops_memory.sync_conflicts`: take theirs, keep ours, keep both);
* ``duplicates`` — two active memories of the same service and category whose texts are at least
  ``memory.duplicate_similarity`` alike: rapidfuzz's ``token_sort_ratio`` (0–100, an edit-distance
  similarity of the lower-cased words in sorted order, so word order does not matter), among the
  200 most trusted memories of each group. "Takes 60s to start after a restart" and "… after
  restart" score 97; a negation ("Does not return HTTP 200 …") scores about 85, and a changed
  number barely lowers the score (60s / 90s: 97), which is as it should be: one of the two is
  probably out of date.

Each is open until decided, once, by one of four actions, each recorded in the history with
``review`` as the actor:

========== ============================================================================
accept     the decision stands (a ``reviewed`` entry referring to it)
revert     undo the decision (:mod:`claudeops_memory.undo`; the revert refers to it)
merge      the two memories state one fact: keep one text and the higher confidence,
           deactivate the other (a ``merged`` entry on each, naming the other)
keep both  two facts: both stay as they are, and the pair is not offered again
========== ============================================================================

A change item offers accept, revert and merge (an unsure one: keep both, merge, revert); a
duplicate pair offers merge and keep both; a sync conflict take theirs, keep ours and keep both
(theirs added as a memory of its own). Items about a memory deleted since are not listed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import groupby

from claudeops import cached, db, is_row_id, now_timestamp, portable_sql
from claudeops_memory import history, sync_conflicts, undo, upsert_store
from claudeops_memory.change_stamp import by_memories
from claudeops_memory.confidence import is_active_confidence
from claudeops_memory.history import REVIEW, Decision, HistoryEntry
from claudeops_memory.models import MEMORY_COLUMNS, Memory, MemoryRecord
from claudeops_memory.settings import MemorySettings

CHANGE_ITEMS = {"contradicted": "contradiction", "replaced": "replacement"}
"""The item kind of a flagged change; any other flagged change is a judge's ``unsure`` decision."""
ACTIONS: dict[str, tuple[str, ...]] = {
    "contradiction": ("accept", "revert", "merge"),
    "replacement": ("accept", "revert", "merge"),
    "unsure": ("keep both", "merge", "revert"),
    "duplicates": ("merge", "keep both"),
    "sync conflict": sync_conflicts.RESOLUTIONS,
}
GROUP_LIMIT = 200
"""Most trusted memories per (service, category) compared pairwise for duplicates (19,900 pairs at most)."""


@dataclass(frozen=True)
class ReviewItem:
    """One thing to look at: ``first`` is the memory the decision changed (for duplicates, the more
    trusted one; for a sync conflict, ours), ``second`` the other memory of the pair when it still
    exists (for a sync conflict, theirs as it would be stored here)."""

    kind: str
    first: MemoryRecord
    second: MemoryRecord | None
    change: HistoryEntry | None = None
    similarity: int | None = None
    conflict: sync_conflicts.Conflict | None = None

    @property
    def key(self) -> str:
        """``change-45``, ``pair-4-9`` or ``conflict-3``: how the CLI and the dashboard name the item."""
        if self.change is not None:
            return f"change-{self.change.id}"
        if self.conflict is not None:
            return f"conflict-{self.conflict.id}"
        assert self.second is not None
        return f"pair-{self.first.id}-{self.second.id}"

    @property
    def actions(self) -> tuple[str, ...]:
        return ACTIONS[self.kind]


_OPEN = ("needs_review = 1 AND NOT EXISTS (SELECT 1 FROM memory_changes AS later WHERE later.refers_to = "
         "memory_changes.id) AND EXISTS (SELECT 1 FROM memories WHERE memories.id = memory_changes.memory_id)")


def _open_changes() -> list[HistoryEntry]:
    """Flagged changes nobody has reviewed or reverted, whose memory still exists, newest first."""
    select = f"SELECT {', '.join(history.ENTRY_FIELDS)} FROM memory_changes WHERE {_OPEN} ORDER BY id DESC"
    return [HistoryEntry.from_row(row) for row in db.execute_sql(select).fetchall()]


def _memories(ids: set[int]) -> dict[int, MemoryRecord]:
    found = {}
    for memory_id in ids:
        memory = upsert_store.get(memory_id)
        if memory is not None:
            found[memory_id] = memory
    return found


def _kept_pairs() -> set[frozenset[int]]:
    """Pairs an operator said are two facts (``keep both``)."""
    rows = db.execute_sql("SELECT memory_id, related_memory_id FROM memory_changes WHERE kind = 'reviewed' "
                          "AND decided_by = 'keep both' AND related_memory_id IS NOT NULL").fetchall()
    return {frozenset(row) for row in rows}


def duplicate_pairs(threshold: int) -> list[tuple[MemoryRecord, MemoryRecord, int]]:
    """Active memories of one service and category whose texts are ``threshold`` or more alike, by group,
    but for the pairs an operator kept as two facts.

    Each pair is (the more trusted, the other, similarity). Scoring them costs about a second at 100,000
    memories, so the scored pairs are kept until the memories change (:data:`~.change_stamp.by_memories`),
    not until any commit: the overview and ``/metrics`` ask while a session commits its events.
    """
    kept = _kept_pairs()
    return [pair for pair in by_memories.get(("similar-pairs", threshold), lambda: _similar_pairs(threshold))
            if frozenset((pair[0].id, pair[1].id)) not in kept]


def _similar_pairs(threshold: int) -> list[tuple[MemoryRecord, MemoryRecord, int]]:
    """Every pair of :func:`duplicate_pairs`, kept ones included: rapidfuzz's ``token_sort_ratio``, computed
    as ``ratio`` of texts whose words were sorted once each (what ``token_sort_ratio`` does for every
    pair), each text against the rest of its group in one ``extract_iter`` call - seconds become a
    fraction of one at 100,000 memories. rapidfuzz is imported here, when a review is asked for, not
    at every session start.
    """
    from rapidfuzz import fuzz, process

    rows = db.execute_sql(f"SELECT {', '.join(MEMORY_COLUMNS)} FROM memories WHERE active = 1 "
                          "ORDER BY service, category, confidence DESC, id DESC").fetchall()
    pairs = []
    for _, group in groupby((MemoryRecord.from_row(row) for row in rows), key=lambda memory: (memory.service,
                                                                                               memory.category)):
        members = list(group)[:GROUP_LIMIT]
        texts = [sorted_words(memory.observation) for memory in members]
        for index, first in enumerate(members):
            for _, score, offset in process.extract_iter(texts[index], texts[index + 1:], scorer=fuzz.ratio,
                                                         processor=None, score_cutoff=threshold):
                pairs.append((first, members[index + 1 + offset], round(score)))
    return pairs


def sorted_words(text: str) -> str:
    """The text as ``token_sort_ratio`` compares it: rapidfuzz's default processing (lower case, no
    punctuation), then its words in order."""
    from rapidfuzz.utils import default_process

    return " ".join(sorted(default_process(text).split()))


def review_items(settings: MemorySettings) -> list[ReviewItem]:
    """Everything waiting for review: sync conflicts and flagged changes (each newest first), then duplicate
    pairs."""
    items = [ReviewItem("sync conflict", conflict.ours, conflict.theirs, conflict=conflict)
             for conflict in sync_conflicts.open_conflicts()]
    changes = _open_changes()
    memories = _memories({entry.memory_id for entry in changes}
                         | {entry.related_memory_id for entry in changes if entry.related_memory_id})
    items += [ReviewItem(CHANGE_ITEMS.get(entry.kind, "unsure"), memories[entry.memory_id],
                         memories.get(entry.related_memory_id or 0), entry)
              for entry in changes if entry.memory_id in memories]
    listed = {frozenset((item.first.id, item.second.id)) for item in items if item.second is not None}
    items += [ReviewItem("duplicates", first, second, similarity=score)
              for first, second, score in duplicate_pairs(settings.duplicate_similarity)
              if frozenset((first.id, second.id)) not in listed]
    return items


def review_count(settings: MemorySettings) -> int:
    """How many items :func:`review_items` lists (the overview card, ``/metrics``): counted from that
    very list, so a pair listed as a change is not counted again as duplicates."""
    return len(waiting_items(settings))


def waiting_items(settings: MemorySettings) -> list[ReviewItem]:
    """:func:`review_items` for a count that is asked often (the overview polls, ``/metrics`` is scraped):
    kept until the data changes, since the duplicate pairs compare every group (seconds at 100k)."""
    return cached("review-items", lambda: review_items(settings), owner=settings)


# --------------------------------------------------------------------------- actions


def _open_change(change_id: int) -> HistoryEntry:
    if not is_row_id(change_id):
        raise KeyError(f"no memory change with id {change_id}")
    found = db.execute_sql(portable_sql(f"SELECT {', '.join(history.ENTRY_FIELDS)} FROM memory_changes "
                                        f"WHERE id = ? AND {_OPEN}"), (change_id,)).fetchall()
    if not found:
        if history.get_change(change_id) is None:
            raise KeyError(f"no memory change with id {change_id}")
        raise ValueError(f"change #{change_id} is not waiting for review")
    return HistoryEntry.from_row(found[0])


def _about_pair(first_id: int, second_id: int) -> list[HistoryEntry]:
    pair = {first_id, second_id}
    return [entry for entry in _open_changes() if {entry.memory_id, entry.related_memory_id} == pair]


def _mark_reviewed(entry: HistoryEntry, action: str, now: str, related: int | None = None) -> HistoryEntry:
    """The ``reviewed`` entry resolving ``entry``: on the same memory, referring to it."""
    memory = upsert_store.get(entry.memory_id)
    assert memory is not None  # open items are about stored memories
    review_id = history.record_change("reviewed", REVIEW, now, before=memory, after=memory,
                                      decision=Decision(action), refers_to=entry.id,
                                      related=related if related is not None else entry.related_memory_id)
    found = history.get_change(review_id)
    assert found is not None
    return found


def accept(change_id: int, *, now: str | None = None) -> HistoryEntry:
    """The decision of change ``change_id`` stands."""
    with db.atomic():
        return _mark_reviewed(_open_change(change_id), "accept", now or now_timestamp())


def revert(change_id: int, settings: MemorySettings, *, now: str | None = None) -> undo.Reverted:
    """Undo the decision of change ``change_id`` (refused, with the reason, when it cannot be undone)."""
    with db.atomic():
        _open_change(change_id)
        return undo.revert_change(change_id, settings, actor=REVIEW, now=now)


def _pair(first_id: int, second_id: int) -> tuple[MemoryRecord, MemoryRecord]:
    if first_id == second_id:
        raise ValueError("name two different memories")
    memories = []
    for memory_id in (first_id, second_id):
        memory = upsert_store.get(memory_id, lock=True)
        if memory is None:
            raise KeyError(f"no memory with id {memory_id}")
        memories.append(memory)
    return memories[0], memories[1]


def keep_both(first_id: int, second_id: int, *, now: str | None = None) -> list[HistoryEntry]:
    """The two memories are two facts: resolve every open item about them; the pair is not offered again."""
    stamp = now or now_timestamp()
    with db.atomic():
        first, second = _pair(first_id, second_id)
        items = _about_pair(first.id, second.id)
        if items:
            return [_mark_reviewed(entry, "keep both", stamp) for entry in items]
        review_id = history.record_change("reviewed", REVIEW, stamp, before=first, after=first,
                                          decision=Decision("keep both"), related=second.id)
        found = history.get_change(review_id)
        assert found is not None
        return [found]


def merge(keep_id: int, other_id: int, settings: MemorySettings, *, text_from: int | None = None,
          now: str | None = None) -> MemoryRecord:
    """One fact in two memories: ``keep_id`` keeps its id, takes the text of ``text_from`` (itself by
    default) and the higher confidence; ``other_id`` is deactivated. Both must share service and category."""
    stamp = now or now_timestamp()
    with db.atomic():
        keep, other = _pair(keep_id, other_id)
        if (keep.service, keep.category) != (other.service, other.category):
            raise ValueError(f"memories #{keep.id} and #{other.id} are not of the same service and category")
        if text_from not in (None, keep.id, other.id):
            raise ValueError(f"the text must come from memory #{keep.id} or #{other.id}, not #{text_from}")
        confidence = max(keep.confidence, other.confidence)
        kept = replace(keep, observation=other.observation if text_from == other.id else keep.observation,
                       confidence=confidence, active=is_active_confidence(confidence, settings.min_confidence),
                       updated_at=stamp)
        retired = replace(other, active=False)
        for after in (kept, retired):
            Memory.update(observation=after.observation, confidence=after.confidence, active=after.active,
                          updated_at=after.updated_at).where(Memory.id == after.id).execute()
        decision = Decision("merge", reason=f"merged #{other.id} into #{keep.id}")
        history.record_change("merged", REVIEW, stamp, before=keep, after=kept, decision=decision, related=other.id)
        history.record_change("merged", REVIEW, stamp, before=other, after=retired, decision=decision,
                              related=keep.id)
        for entry in _about_pair(keep.id, other.id):
            _mark_reviewed(entry, "merge", stamp)
        return kept
