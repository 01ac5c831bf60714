"""What the dashboard read from the memories, kept until the memories, their flags or decay ledger change.

The dashboard's memories table, its poll and ``/api/v1/memories`` read only the ``memories``,
``memory_flags`` and ``memory_decay`` tables (plus settings and the clock, which are part of each
answer's key). While a session runs it commits events, tool calls and its session row many times a
minute; with the whole-database stamp (:func:`claudeops.data_stamp`) every such commit threw the
table away and the next poll paid for the prompt's plan (a count of every qualifying memory: a
millisecond at 100k) and fifty rows again. :data:`by_memories` keeps those answers until a row of
one of those three tables is written instead.

The version is bumped by triggers (migration ``015_memory_change_stamp``) inside the writer's own
transaction, whatever writes (this process, ``claudeops run``, the CLI, another dashboard worker, an
operator's ``sqlite3`` shell), so it cannot be skipped; the stamp also carries the database file's
identity from :func:`claudeops.data_stamp`, so a file put in place of the open one is a new stamp
even if its version happens to match. On PostgreSQL there is no stamp and nothing is kept.
"""

from __future__ import annotations

from collections.abc import Hashable

from claudeops import StampedCache, data_stamp, db


def memory_stamp() -> Hashable | None:
    """The database file's identity and the version of the memories, their flags and decay ledger; ``None``
    where nothing may be kept."""
    whole = data_stamp()
    if whole is None:
        return None
    path, identity, watcher, _ = whole
    (version,), = db.execute_sql("SELECT version FROM memory_change_stamp").fetchall()
    return path, identity, watcher, version


by_memories = StampedCache(memory_stamp)
"""One cache per process for answers read only from the memories, their flags and decay ledger."""
