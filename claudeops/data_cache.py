"""What a dashboard page read and rendered, kept until the data changes (or the poll interval passes).

A dashboard that polls asks the same question every few seconds, usually of unchanged data:
the first fifty memories of 100,000, the review queue (whose duplicate pairs compare every
group, seconds at 100k). :func:`cached` answers it again from memory while
:func:`~claudeops.store.data_stamp` is unchanged — that stamp changes with every commit of any
connection and any process (``claudeops run``, the CLI, another dashboard worker), so a cached
answer is never older than the data. Answers that name the time ("5 min ago", "decay due now")
are kept per time bucket as well (:func:`time_bucket`), at most one poll interval: what the page
would show anyway until its next poll.

The cache is per thread (each worker thread has its SQLite connection, to which the stamp
belongs) and small. Without a stamp (PostgreSQL) nothing is kept: every call computes.
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
"""Answers kept per thread; past it the thread's cache starts again (filters and pages are few)."""


@dataclass
class _ThreadCache:
    stamp: tuple[object, ...]
    entries: dict[Hashable, Any] = field(default_factory=dict)


_local = threading.local()


def cached(key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, or what it returned for ``key`` while the data has not changed since.

    Call it inside the request's database connection. ``key`` names everything else the answer
    depends on (filters, page, settings, :func:`time_bucket` for answers that name the time).
    """
    stamp = data_stamp()
    if stamp is None:
        return compute()
    kept: _ThreadCache | None = getattr(_local, "cache", None)
    if kept is None or kept.stamp != stamp or len(kept.entries) >= MAX_ENTRIES:
        kept = _local.cache = _ThreadCache(stamp)
    if key in kept.entries:
        return kept.entries[key]  # type: ignore[no-any-return]
    value = compute()
    if data_stamp() == stamp:  # computing wrote nothing and saw no commit of another connection
        kept.entries[key] = value
    return value


def time_bucket(seconds: int) -> int:
    """The current ``seconds``-long slice of time (by the clock every page uses): a key part for answers
    that name the time, so one is never kept longer than ``seconds``."""
    return int(from_timestamp(now_timestamp()).timestamp()) // max(1, seconds)
