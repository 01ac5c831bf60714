"""Bulk object building with Python's cycle collector paused: start-up, and an import.

CPython's cycle collector runs whenever allocations outnumber deallocations by a few hundred, and a
full collection walks every object alive. Two moments of claudeops build many objects that are not
garbage and none of which is a cycle:

* start-up: every command imports the core and loads every plugin, and ``claudeops run`` imports
  the Claude Agent SDK too (its ``mcp`` dependency builds hundreds of pydantic models) — about
  140,000 objects that live as long as the process; before its session started, ``claudeops run``
  spent about 100 ms of CPU walking them again (issue 18, ``bench/runner_overhead.py``);
* ``memories import``: 100,000 memories are about three million dicts, lists and strings alive
  until they are written, and collections that found nothing took a quarter of the import's CPU
  time (``bench/memory_transfer.py``: 9.2 s with the collector, 6.7 s without).

Reference counting frees everything that is not a cycle meanwhile, so pausing loses nothing.
When the collector comes back, what exists is moved where collections look rarely: in the
``claudeops`` process itself (:func:`claim_process`) it is frozen for good (:func:`gc.freeze`),
so the session's own garbage is collected without walking start-up's objects each time; in any
other process (a test driving the CLI in-process) it is only moved to the oldest generation
(freeze, then unfreeze), so no caller's garbage is kept for good.

The collector is global to the process, so pauses are counted: when they overlap (nested, or two
threads), the collector comes back when the last one ends, only if it was on before the first
began, and also when the work fails.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
_was_enabled = False
_process_is_ours = False


def claim_process() -> None:
    """This process is ``claudeops`` itself (the console script, ``python -m claudeops``): what exists when
    the collector comes back may be frozen for good."""
    global _process_is_ours
    _process_is_ours = True


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the cycle collector off, and restore it as it was before (see the module)."""
    global _pauses, _was_enabled
    with _lock:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _was_enabled:
                gc.freeze()
                if not _process_is_ours:
                    gc.unfreeze()
                gc.enable()
