"""What a dashboard page read and rendered, kept until the data changes (or the poll interval passes).

A dashboard that polls asks the same question every few seconds, usually of unchanged data:
the first fifty memories of 100,000, the review queue (whose duplicate pairs compare every
group, seconds at 100k). :func:`cached` answers it again from memory while
:func:`~claudeops.store.data_stamp` is unchanged — that stamp changes with every commit of any
connection and any process (``claudeops run``, the CLI, another dashboard worker, another
thread of this one), so a cached answer is never older than the data. Answers that name the
time ("5 min ago", "decay due now") are kept per time bucket as well (:func:`time_bucket`), at
most one poll interval: what the page would show anyway until its next poll.

One cache per process, shared by its threads, small, emptied whenever the stamp changes.
Without a stamp (PostgreSQL) nothing is kept: every call computes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from claudeops.clock import from_timestamp, now_timestamp
from claudeops.store import data_stamp

T = TypeVar("T")

MAX_ENTRIES = 64
"""Answers kept; past it the cache starts again (filters and pages are few)."""


@dataclass
class _Kept:
    stamp: Hashable
    entries: dict[Hashable, tuple[object, Any]] = field(default_factory=dict)


class StampedCache:
    """Answers kept while ``stamp()`` returns the same value: one such cache per process, shared by its threads.

    ``stamp`` must change whenever anything the kept answers were read from may have changed, whoever
    changed it, and return ``None`` when no such value is known (then nothing is kept). The process-wide
    :func:`cached` is stamped with :func:`~claudeops.store.data_stamp` (any commit to the database); a
    plugin whose answers read only its own tables can keep them longer with a stamp of those tables (the
    memory plugin's: a version its triggers bump on every write to the memories and their flags), so a
    commit elsewhere (a run recording events) does not throw them away.
    """

    def __init__(self, stamp: Callable[[], Hashable | None]) -> None:
        self._stamp = stamp
        self._lock = threading.Lock()
        self._kept: _Kept | None = None

    def get(self, key: Hashable, compute: Callable[[], T], owner: object = None) -> T:
        """``compute()``, or what it returned for ``key`` and ``owner`` while the stamp has not changed since.

        ``key`` names everything the answer depends on besides the stamped data (filters, page,
        :func:`time_bucket` for answers that name the time). ``owner`` is what the answer was computed
        for when settings shape it (the dashboard's context, a plugin's settings): an answer is given
        back to that very object only, so two applications in one process never share one.
        """
        stamp = self._stamp()
        if stamp is None:
            return compute()
        with self._lock:
            if self._kept is None or self._kept.stamp != stamp or len(self._kept.entries) >= MAX_ENTRIES:
                self._kept = _Kept(stamp)
            kept = self._kept
            found = kept.entries.get(key)
        if found is not None and found[0] is owner:
            return found[1]  # type: ignore[no-any-return]
        value = compute()
        if self._stamp() == stamp:  # nothing it was read from changed while it was computed
            with self._lock:
                kept.entries[key] = (owner, value)
        return value


_by_data = StampedCache(data_stamp)


def cached(key: Hashable, compute: Callable[[], T], owner: object = None) -> T:
    """``compute()``, or what it returned for ``key`` and ``owner`` while the data has not changed since
    (:meth:`StampedCache.get`, stamped with :func:`~claudeops.store.data_stamp`)."""
    return _by_data.get(key, compute, owner)


def time_bucket(seconds: int) -> int:
    """The current ``seconds``-long slice of time (by the clock every page uses): a key part for answers
    that name the time, so one is never kept longer than ``seconds``."""
    return int(from_timestamp(now_timestamp()).timestamp()) // max(1, seconds)
