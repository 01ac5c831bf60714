"""Bulk work with Python's cycle collector paused: an import holds hundreds of thousands of documents at once.

CPython's cycle collector runs whenever allocations outnumber deallocations by a few hundred, and
a full collection walks every object alive. An import of 100,000 memories keeps about three
million dicts, lists and strings alive until it writes them, so collections that find nothing
took a quarter of its CPU time (``bench/memory_transfer.py``: 9.2 s with the collector, 6.7 s
without). Nothing an import builds is cyclic — documents are trees of dicts, rows are tuples — so
reference counting frees all of it the moment it is dropped; pausing the collector loses nothing.

Objects made while the collector is off are all young, so the first collection after it is back
would walk every one of them — the whole import, still alive in its result (0.3 s at 100,000
memories). So before it comes back they are moved, as they are, to the oldest generation
(``gc.freeze()`` then ``gc.unfreeze()``, a splice of two lists), which a collection walks only
once it has grown by a quarter.

The collector is global to the process, so the pause is counted: when pauses overlap (two
threads), the collector comes back when the last one ends, and only if it was on before the first
began. It comes back when the work fails too.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
_was_enabled = False


@contextmanager
def cycle_collector_paused() -> Iterator[None]:
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
                gc.unfreeze()
                gc.enable()
