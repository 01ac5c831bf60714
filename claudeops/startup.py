"""Start-up without the cyclic garbage collector: a process that imports much, then works.

Every command imports the core and loads every plugin, and ``claudeops run`` imports the Claude
Agent SDK as well (its ``mcp`` dependency builds hundreds of pydantic models): about 140,000
objects that live as long as the process and none of which is garbage. With the collector on,
each full collection during start-up walks all of them again; before its session started,
``claudeops run`` spent about 100 ms of CPU on that (issue 18, ``bench/runner_overhead.py``).

So the collector is paused while they are made (:func:`collector_paused`) and resumed at the end,
before any command does its work. A process of our own also freezes them first
(:func:`gc.freeze`: moved where no collection looks again), so the session's own garbage is
collected as usual without walking start-up's objects each time. Reference counting frees
everything that is not a cycle meanwhile; the few cycles start-up leaves stay, once.

Freezing is for the ``claudeops`` process alone (:func:`claim_process`, called by the console
script's :func:`~claudeops.cli.group.main`): in a test process that drives the CLI in-process it
would keep the cyclic garbage of every earlier test for good.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

_process_is_ours = False


def claim_process() -> None:
    """This process is ``claudeops`` itself (the console script, ``python -m claudeops``): its
    start-up objects may be frozen."""
    global _process_is_ours
    _process_is_ours = True


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block (imports, plugin loading) with the cyclic collector paused; resume it after,
    having frozen what exists by then in a process of our own.

    Inside another pause, or where someone else disabled the collector, it changes nothing:
    only the pause that stopped the collector starts it again.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if _process_is_ours:
            gc.freeze()
        gc.enable()
