"""The cycle collector paused for bulk work (an import): off inside, back as it was outside, whatever happens."""

from __future__ import annotations

import gc
import threading
import weakref
from collections.abc import Iterator

import pytest
from claudeops_memory.gc_pause import cycle_collector_paused


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    gc.enable() if was else gc.disable()


def test_the_collector_is_off_inside_and_on_again_after() -> None:
    with cycle_collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_collector_comes_back_when_the_work_fails() -> None:
    with pytest.raises(ZeroDivisionError), cycle_collector_paused():
        1 / 0  # noqa: B018
    assert gc.isenabled()


def test_a_collector_someone_turned_off_stays_off() -> None:
    gc.disable()
    with cycle_collector_paused():
        pass
    assert not gc.isenabled()


def test_overlapping_pauses_bring_it_back_when_the_last_one_ends() -> None:
    first_inside, second_done = threading.Event(), threading.Event()

    def other() -> None:
        with cycle_collector_paused():
            first_inside.set()
            second_done.wait(5)

    thread = threading.Thread(target=other)
    thread.start()
    first_inside.wait(5)
    with cycle_collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread's pause is still running
    second_done.set()
    thread.join(5)
    assert gc.isenabled()


def test_what_was_made_while_paused_is_still_collectable_after() -> None:
    """Moved to the oldest generation, not left frozen: a cycle made during the pause is freed by a collection."""
    class Node:
        pass

    with cycle_collector_paused():
        node = Node()
        node.self = node  # type: ignore[attr-defined]
        gone = weakref.ref(node)
        del node
    assert gc.get_freeze_count() == 0 and gone() is not None
    gc.collect()
    assert gone() is None
