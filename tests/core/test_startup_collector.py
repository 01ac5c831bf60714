"""The cyclic collector paused while claudeops builds many objects (``claudeops/collector.py``):
start-up (issue 18: the ~100,000 objects of the core, the plugins and the SDK are not walked again
by every full collection while they are imported) and an import (issue 15). The session itself
runs with the collector on, only the ``claudeops`` process itself freezes what was made (a test
process driving the CLI keeps its garbage collectable), and overlapping pauses resume it once."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import threading
import weakref
from pathlib import Path

import pytest

from claudeops.collector import collector_paused

REPLAY = Path(__file__).resolve().parents[1] / "data" / "recorded-cli-session-bash.jsonl"
PROBE = """
import asyncio, gc, json, sys
seen = {}
original_run = asyncio.run

def run(main, **options):  # the session's event loop: what the collector is doing while it runs
    seen.setdefault("enabled_in_session", gc.isenabled())
    seen.setdefault("frozen_before_session", gc.get_freeze_count())
    return original_run(main, **options)

asyncio.run = run
from claudeops.__main__ import main
sys.argv = ["claudeops", *sys.argv[1:]]
try:
    main()
except SystemExit as exit:
    seen["exit"] = exit.code
seen["enabled_after"] = gc.isenabled()
print(json.dumps(seen), file=sys.__stderr__)
"""


def test_the_collector_is_paused_inside_and_resumed_after_even_on_an_error() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        assert not gc.isenabled()
        raise RuntimeError("a plugin failed to import")
    assert gc.isenabled()


def test_a_pause_inside_a_pause_leaves_resuming_to_the_outer_one() -> None:
    with collector_paused():
        with collector_paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_where_the_collector_was_disabled_already_it_stays_disabled() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_driving_the_cli_in_process_freezes_nothing_of_the_callers(tmp_path: Path) -> None:
    from claudeops.cli.group import main

    frozen = gc.get_freeze_count()
    with pytest.raises(SystemExit):
        main(["--state-dir", str(tmp_path), "run", "--tier", "1", "--replay", str(REPLAY)])
    assert (gc.isenabled(), gc.get_freeze_count()) == (True, frozen)


def test_a_claudeops_process_runs_its_session_with_the_collector_on_and_start_up_frozen(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.touch()
    environ = {**os.environ, "CLAUDEOPS_STATE_DIR": str(tmp_path), "CLAUDEOPS_CONFIG": str(config)}
    done = subprocess.run([sys.executable, "-c", PROBE, "run", "--tier", "1", "--replay", str(REPLAY)], env=environ,
                          capture_output=True, text=True, check=False, timeout=120)
    seen = json.loads(done.stderr.strip().splitlines()[-1])
    assert seen["exit"] == 0
    assert seen["enabled_in_session"] and seen["enabled_after"]
    assert seen["frozen_before_session"] > 50_000  # the core, the plugins and the SDK: never walked again


def test_overlapping_pauses_bring_it_back_when_the_last_one_ends() -> None:
    first_inside, second_done = threading.Event(), threading.Event()

    def other() -> None:
        with collector_paused():
            first_inside.set()
            second_done.wait(5)

    thread = threading.Thread(target=other)
    thread.start()
    first_inside.wait(5)
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread's pause is still running
    second_done.set()
    thread.join(5)
    assert gc.isenabled()


def test_what_was_made_while_paused_is_still_collectable_after() -> None:
    """Moved to the oldest generation, not left frozen: a cycle made during the pause is freed by a collection."""
    class Node:
        pass

    with collector_paused():
        node = Node()
        node.self = node  # type: ignore[attr-defined]
        gone = weakref.ref(node)
        del node
    assert gc.get_freeze_count() == 0 and gone() is not None
    gc.collect()
    assert gone() is None
