"""The dashboard in a real browser: headless Debian Chromium driven by Playwright.

``claudeops web`` runs as its own process (uvicorn) on 127.0.0.1 against a temporary state dir;
sessions are replayed with ``claudeops run --replay`` in another process, as cron would run
them. Chromium is Debian's (``/usr/bin/chromium``), never a downloaded browser. A screenshot of
every page is saved under ``test-artifacts/screenshots/``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from claudeops_memory import repository
from web_helpers import add_memory as add
from web_helpers import child_environment, open_memories, stored

from claudeops.store import db

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"
EXAMPLES = REPO / "examples" / "sessions"
HEALTHY = EXAMPLES / "healthy-tier1.jsonl"
POLL_MS = 5_000
"""SPEC-0015: a new memory appears within 5 seconds."""


@pytest.fixture
def page(chromium: Any, base_url: str, store: None) -> Iterator[Any]:
    """A fresh browser page on an empty memories table; fails the test on any JavaScript error."""
    with db.connection_context():
        repository.delete_memories([memory.id for memory in repository.list_memories()])
    context = chromium.new_context(base_url=base_url, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == []


def row(page: Any, memory_id: int) -> Any:
    return page.locator(f"#memory-{memory_id}")


# --------------------------------------------------------------------------- CRUD


def test_add_memory_through_the_form(page):
    open_memories(page)
    page.get_by_text("Add Memory", exact=True).first.click()
    form = page.locator("#add-memory")
    form.locator("select[name=category]").select_option("maintenance")
    form.locator("input[name=service]").fill("postgres")
    form.locator("textarea[name=observation]").fill("Needs manual VACUUM FULL weekly")
    form.locator("input[name=confidence]").fill("0.9")
    form.get_by_role("button", name="Add Memory").click()
    new_row = page.locator("tr.added", has_text="Needs manual VACUUM FULL weekly")  # shown where it sorts
    new_row.wait_for()
    assert "postgres" in new_row.inner_text() and "0.90" in new_row.inner_text() and "operator" in new_row.inner_text()
    assert "Added memory #" in page.locator("p.notice").inner_text()
    assert "service=postgres&category=maintenance" in page.url
    (memory,) = repository_list()
    assert (memory.service, memory.category, memory.confidence, memory.session_id) == ("postgres", "maintenance",
                                                                                      0.9, None)


def repository_list() -> list[repository.MemoryRecord]:
    with db.connection_context():
        return repository.list_memories()


def test_edit_observation_inline(page):
    memory = add("Takes 60s to start", service="jellyfin", confidence=0.8)
    open_memories(page)
    row(page, memory.id).get_by_role("link", name="Edit").click()
    editor = row(page, memory.id).locator("textarea[name=observation]")
    editor.fill("Takes about 90 s to start after a restart")
    row(page, memory.id).get_by_role("button", name="Save").click()
    page.locator(f"#memory-{memory.id}:not(.editing)", has_text="Takes about 90 s").wait_for()
    changed = stored(memory.id)
    assert changed.observation == "Takes about 90 s to start after a restart" and changed.confidence == 0.8


def test_saving_an_empty_observation_shows_why(page):
    memory = add("Takes 60s to start")
    open_memories(page)
    row(page, memory.id).get_by_role("link", name="Edit").click()
    row(page, memory.id).locator("textarea[name=observation]").fill("   ")
    row(page, memory.id).get_by_role("button", name="Save").click()
    page.locator("#flash .error", has_text="must not be empty").wait_for()
    assert stored(memory.id).observation == "Takes 60s to start"


def test_move_the_confidence_slider(page):
    memory = add("Takes 60s to start", service="jellyfin", confidence=0.7)
    open_memories(page)
    slider = row(page, memory.id).locator("input[type=range]")
    box = slider.bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] * 0.7, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] * 0.96, y, steps=5)
    page.mouse.up()
    page.wait_for_function(f"() => document.querySelector('#memory-{memory.id} output').textContent !== '0.70'")
    deadline = time.monotonic() + 5
    while stored(memory.id).confidence == 0.7 and time.monotonic() < deadline:
        time.sleep(0.05)
    confidence = stored(memory.id).confidence
    assert 0.85 <= confidence <= 1.0
    row(page, memory.id).locator("output", has_text=f"{confidence:.2f}").wait_for()


def test_raising_confidence_reactivates_an_inactive_memory(page):
    memory = add("Old fact", confidence=0.2)
    open_memories(page)
    assert "inactive" in (row(page, memory.id).get_attribute("class") or "")
    slider = row(page, memory.id).locator("input[type=range]")
    slider.focus()
    page.keyboard.press("End")  # one change event: the maximum
    page.locator(f"#memory-{memory.id}.active").wait_for()
    assert stored(memory.id).active and stored(memory.id).confidence == 1.0


def test_delete_with_confirmation(page):
    kept, doomed = add("keep me"), add("delete me")
    open_memories(page)
    page.once("dialog", lambda dialog: dialog.dismiss())
    row(page, doomed.id).get_by_role("button", name="Delete").click()
    page.wait_for_timeout(300)
    assert stored(doomed.id) is not None and row(page, doomed.id).count() == 1
    page.once("dialog", lambda dialog: dialog.accept())
    row(page, doomed.id).get_by_role("button", name="Delete").click()
    row(page, doomed.id).wait_for(state="detached")
    assert stored(doomed.id) is None and stored(kept.id) is not None


def test_bulk_delete_selected(page):
    chosen = [add(f"fact {number}") for number in range(3)]
    kept = add("not selected")
    open_memories(page)
    for memory in chosen:
        row(page, memory.id).locator("input[name=ids]").check()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Delete Selected").click()
    page.locator("#flash .notice", has_text="Deleted 3 memories.").wait_for()
    for memory in chosen:
        row(page, memory.id).wait_for(state="detached")
    assert [memory.id for memory in repository_list()] == [kept.id]


def test_bulk_confidence_adjust(page):
    first, second = add("first", confidence=0.5), add("second", confidence=0.6)
    open_memories(page)
    row(page, first.id).locator("input[name=ids]").check()
    row(page, second.id).locator("input[name=ids]").check()
    page.locator("#bulk-delta").select_option("-0.2")
    page.get_by_role("button", name="Adjust Selected").click()
    page.locator("#flash .notice", has_text="by -0.20").wait_for()
    row(page, first.id).locator("output", has_text="0.30").wait_for()
    assert (stored(first.id).confidence, stored(second.id).confidence) == (0.3, 0.4)


def test_filter_by_service_and_category(page):
    jellyfin = add("Slow start", service="jellyfin", category="timing")
    add("Returns 302 when healthy", service="adguard", category="behavior")
    general = add("Retry DNS once", category="remediation")
    open_memories(page)
    page.locator("#memory-filters select[name=service]").select_option("jellyfin")
    page.wait_for_url(re.compile(r"service=jellyfin"))
    page.locator("#memory-table tbody tr").first.wait_for()
    page.wait_for_function("() => document.querySelectorAll('#memory-table tr[data-memory-id]').length === 1")
    assert row(page, jellyfin.id).count() == 1
    page.locator("#memory-filters select[name=service]").select_option("general")
    row(page, general.id).wait_for()
    page.locator("#memory-filters select[name=category]").select_option("timing")
    page.get_by_text("No memories match these filters.").wait_for()


def replay(state_dir: Path, *recordings: Path) -> None:
    """``claudeops run --replay ...`` in its own process, as cron would start a session."""
    arguments = [part for recording in recordings for part in ("--replay", str(recording))]
    run = subprocess.run([sys.executable, "-m", "claudeops", "run", *arguments], env=child_environment(state_dir),
                         cwd=state_dir, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr


def test_memory_from_a_replayed_session_appears_within_five_seconds(page, state_dir):
    """A cron-style session records a memory; the open page shows it without a reload."""
    open_memories(page)
    page.get_by_text("No memories yet").wait_for()
    replay(state_dir, HEALTHY)
    finished = time.monotonic()
    page.locator("tr[data-memory-id]", has_text="jellyfin").first.wait_for(timeout=POLL_MS + 500)
    assert time.monotonic() - finished <= POLL_MS / 1000 + 0.5
    assert page.locator("a", has_text=re.compile(r"session #\d+")).count() >= 1


# --------------------------------------------------------------------------- every page


def test_screenshot_of_every_page(page, state_dir):
    replay(state_dir, EXAMPLES / "escalate-tier1.jsonl", EXAMPLES / "escalated-tier2.jsonl")
    add("After a restart jellyfin answers 503 for about 60 s", service="jellyfin", confidence=0.9)
    add("Old observation nobody confirmed", service="pihole", category="behavior", confidence=0.2)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with db.connection_context():
        from claudeops.session_rows import SessionRow

        latest = SessionRow.select().order_by(SessionRow.id.desc()).first()
    pages = {"overview": "/", "sessions": "/sessions", "events": "/events", "memories": "/memories",
             "cooldowns": "/cooldowns"}
    if latest is not None:
        pages["session"] = f"/sessions/{latest.id}"
    for name, path in pages.items():
        page.goto(path)
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/memories")
    page.screenshot(path=str(SCREENSHOTS / "memories-phone.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert all((SCREENSHOTS / f"{name}.png").stat().st_size > 0 for name in pages)


# --------------------------------------------------------------------------- memory trust (issue 14)


def test_review_lists_a_replacement_from_a_replayed_session_and_revert_restores_the_old_memory(
        page, state_dir, tmp_path):
    import json

    from claudeops.runner.script import script_to_stream

    old = add("Takes 60s to start after restart", service="jellyfin", confidence=0.8)
    recording = tmp_path / "replaces.jsonl"
    frames = script_to_stream([f"Checked jellyfin after the upgrade.\n[MEMORY:timing:jellyfin] Takes 3 minutes to "
                               f"start since the 10.9 upgrade (replaces #{old.id})"])
    recording.write_text("".join(json.dumps(frame) + "\n" for frame in frames))
    replay(state_dir, recording)
    successor = next(memory for memory in repository_list() if memory.id != old.id)
    assert (stored(old.id).confidence, successor.observation) == (0.6, "Takes 3 minutes to start since the 10.9 "
                                                                        "upgrade")

    page.goto("/review")
    item = page.locator("section.review-item[data-kind=replacement]", has_text=f"#{old.id}")
    item.wait_for()
    assert "Takes 3 minutes to start since the 10.9 upgrade" in item.inner_text()
    page.screenshot(path=str(SCREENSHOTS / "review.png"), full_page=True)
    item.get_by_role("button", name="Revert").click()
    page.locator("p.notice", has_text="Reverted change #").wait_for()

    assert stored(old.id) == old and stored(successor.id) is None
    assert page.locator("section.review-item").count() == 0


def test_a_memory_timeline_renders(page):
    memory = add("Takes 60s to start after restart", service="jellyfin")
    with db.connection_context():
        repository.update_memory(memory.id, confidence=0.9)
        repository.update_memory(memory.id, confidence=0.4)

    page.goto(f"/memories/{memory.id}")
    chart = page.locator("svg#confidence-timeline")
    chart.wait_for()

    assert chart.bounding_box()["width"] > 300
    assert chart.locator("circle").count() == 3 and chart.locator("polyline").count() == 1
    assert page.locator("tr[data-change-id]").count() == 3
    assert page.locator("tr[data-change-id] button", has_text="Revert").count() == 1
    page.screenshot(path=str(SCREENSHOTS / "memory-timeline.png"), full_page=True)
