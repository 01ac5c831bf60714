"""The memories page and the dashboard as a person uses them, in headless Chromium (issue 13, items 13-20).

A laptop screen and a phone, Back and Forward, no JavaScript, only a keyboard, the bulk buttons,
flash messages, the login page and a failed session's empty transcript. ``claudeops web`` runs
in its own process; memories are arranged through the repository on the same database.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from claudeops_memory import repository
from web_helpers import TOKEN, add_memory, open_memories, running_dashboard, stored

from claudeops.session_rows import SessionRow, start_session_row
from claudeops.store import db

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
LONG = ("After a restart jellyfin answers 503 for about 60 s while it rebuilds its library cache; "
        "wait two minutes before checking its health, and do not restart it again in between.")
LAPTOPS = [(1280, 800), (1440, 900)]
PHONE = (390, 844)


@pytest.fixture
def open_page(chromium: Any, base_url: str, store: None) -> Iterator[Callable[..., Any]]:
    """``open_page(width, height, **context_options)``: a fresh page on an emptied memories table.

    Any JavaScript error fails the test, and so does any console error unless the test expects
    one (``console_errors=True``: the browser logs every 4xx answer).
    """
    with db.connection_context():
        repository.delete_memories([memory.id for memory in repository.list_memories()])
    contexts: list[tuple[Any, list[str], bool]] = []

    def open_(width: int = 1280, height: int = 800, console_errors: bool = False, **options: Any) -> Any:
        context = chromium.new_context(base_url=base_url, viewport={"width": width, "height": height}, **options)
        errors: list[str] = []
        contexts.append((context, errors, console_errors))
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.on("pageerror", lambda error: errors.append(f"page error: {error}"))
        page.on("console", lambda message: errors.append(f"console: {message.text}")
                if message.type == "error" else None)
        return page

    yield open_
    for context, errors, console_errors_allowed in contexts:
        context.close()
        assert [error for error in errors if not (console_errors_allowed and error.startswith("console"))] == []


def add(observation: str = LONG, **fields: Any) -> repository.MemoryRecord:
    return add_memory(observation, **fields)


def row(page: Any, memory_id: int) -> Any:
    return page.locator(f"tr[data-memory-id='{memory_id}']")


def edit_control(page: Any, memory_id: int) -> Any:
    """A row's Edit, whatever its element (a link now, so that it works without JavaScript)."""
    return row(page, memory_id).get_by_text("Edit", exact=True)


def inline_editor(page: Any, memory_id: int) -> Any:
    """The textarea of a row's inline editor, once htmx has bound its Save and Cancel.

    htmx swaps the row in first and binds its ``hx-*`` controls in the settle step a moment later
    (dropping the ``htmx-added`` class in the same step); a key pressed in between would reach a
    Cancel that does nothing yet. A person is never that fast; a test on a loaded machine is.
    """
    row(page, memory_id).and_(page.locator("tr.editing:not(.htmx-added)")).wait_for()
    return row(page, memory_id).locator("textarea")


def focused(page: Any) -> dict[str, Any]:
    """What has the keyboard focus: its tag, its text or label, and the memory row it is in."""
    return page.evaluate("""() => { const e = document.activeElement;
        return {tag: e.tagName, text: (e.textContent || '').trim(), label: e.getAttribute('aria-label'),
                type: e.getAttribute('type'), row: e.closest('tr')?.dataset.memoryId || null}; }""")


def shoot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


# --------------------------------------------------------------------------- 13: a laptop screen


@pytest.mark.parametrize(("width", "height"), LAPTOPS, ids=["1280x800", "1440x900"])
def test_the_memories_table_fits_a_laptop_screen(open_page, width, height):
    for number in range(6):
        add(f"{LONG} ({number})", service="jellyfin", confidence=0.9 - number / 20)
    add("Needs manual VACUUM FULL weekly", service="home-assistant", category="maintenance", confidence=0.95)
    inactive = add("Old observation nobody confirmed", service="pihole", category="behavior", confidence=0.2)
    page = open_page(width, height)
    open_memories(page)
    shoot(page, f"memories-{width}x{height}")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    wrap = page.locator(".table-wrap")
    assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth"), wrap.evaluate("e => [e.scrollWidth, e.clientWidth]")
    box = wrap.bounding_box()
    observation = page.locator("tr[data-memory-id] .observation").first.bounding_box()
    assert observation["width"] >= 0.5 * box["width"], f"the observation gets {observation['width']} px"
    for memory_row in page.locator("tr[data-memory-id]").all():
        for name in ("Edit", "Delete"):
            action = memory_row.get_by_text(name, exact=True)
            assert action.is_visible()
            place = action.bounding_box()
            assert box["x"] <= place["x"] and place["x"] + place["width"] <= box["x"] + box["width"]
            assert action.evaluate("e => e.scrollWidth <= e.clientWidth"), f"{name} is cut short"
        assert memory_row.locator("meter").count() == 0, "confidence is shown twice"
        assert memory_row.locator("input[type=range]").count() == 1
    grey = row(page, inactive.id)
    assert grey.get_by_text("inactive", exact=True).is_visible()
    decorations = grey.evaluate("r => [...r.querySelectorAll('*')].map(e => getComputedStyle(e).textDecorationLine)")
    assert not any("line-through" in decoration for decoration in decorations), "an inactive row is struck through"
    colour = "e => getComputedStyle(e).color"
    active_colour = page.locator("tr.active .observation").first.evaluate(colour)
    assert grey.locator(".observation").evaluate(colour) != active_colour, "an inactive row is not greyed"


# --------------------------------------------------------------------------- 14: a phone


def test_on_a_phone_memories_are_compact_rows(open_page):
    for number in range(33):
        add(f"Restarts cleanly after updates ({number})", service="nextcloud-app", confidence=0.5 + number / 100)
    page = open_page(*PHONE)
    open_memories(page)
    shoot(page, "memories-390x844")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    heights = [memory_row.bounding_box()["height"] for memory_row in page.locator("tr[data-memory-id]").all()]
    assert len(heights) == 33 and max(heights) <= 130, heights
    first = page.locator("tr[data-memory-id]").first
    for control in (first.get_by_text("Edit", exact=True), first.get_by_role("button", name="Delete"),
                    first.locator("input[type=range]")):
        assert control.is_visible()


@pytest.mark.parametrize("path", ["/memories", "/cooldowns"])
def test_on_a_phone_the_navigation_shows_every_section_and_where_you_are(open_page, path):
    page = open_page(*PHONE)
    page.goto(path)
    navigation = page.get_by_role("navigation", name="Sections")
    assert navigation.evaluate("e => e.scrollWidth <= e.clientWidth")
    for link in navigation.get_by_role("link").all():
        place = link.bounding_box()
        assert place["x"] >= 0 and place["x"] + place["width"] <= PHONE[0], link.inner_text()
    current = navigation.locator("[aria-current=page]")
    assert current.inner_text() == path.strip("/").capitalize() and current.is_visible()


# --------------------------------------------------------------------------- 15: Back and Forward


def test_after_back_the_filters_show_what_the_url_filters(open_page):
    timing = add("Slow start", service="jellyfin", category="timing")
    behaviour = add("Returns 302 when healthy", service="jellyfin", category="behavior")
    add("Retry DNS once", service="adguard", category="remediation")
    page = open_page()
    open_memories(page)
    filters = page.locator("#memory-filters")
    filters.locator("select[name=service]").select_option("jellyfin")
    page.wait_for_url(re.compile(r"service=jellyfin&category=&show=all$"))
    filters.locator("select[name=category]").select_option("timing")
    page.wait_for_url(re.compile(r"service=jellyfin&category=timing"))
    row(page, behaviour.id).wait_for(state="detached")

    page.go_back()
    page.wait_for_url(re.compile(r"/memories\?service=jellyfin&category=&show=all$"))
    row(page, behaviour.id).wait_for()
    assert filters.locator("select[name=service]").input_value() == "jellyfin"
    assert filters.locator("select[name=category]").input_value() == ""
    assert sorted(int(i) for i in page.locator("tr[data-memory-id]").evaluate_all(
        "rows => rows.map(r => r.dataset.memoryId)")) == sorted([timing.id, behaviour.id])

    page.go_back()
    page.wait_for_url(re.compile(r"/memories$"))
    assert filters.locator("select[name=service]").input_value() == ""
    page.go_forward()
    page.wait_for_url(re.compile(r"service=jellyfin&category=&show=all$"))
    assert filters.locator("select[name=service]").input_value() == "jellyfin"


# --------------------------------------------------------------------------- 16: no JavaScript


def test_without_javascript_the_page_is_read_only_and_says_so(open_page):
    memory = add("Takes 60s to start", service="jellyfin")
    page = open_page(java_script_enabled=False)
    page.goto("/memories")
    shoot(page, "memories-no-javascript")
    assert page.locator("p", has_text="Without JavaScript this page is read-only").is_visible()
    controls = [row(page, memory.id).locator("button", has_text="Delete"), *row(page, memory.id).locator("input").all(),
                page.locator("button", has_text="Delete Selected"), page.locator("button", has_text="Adjust Selected")]
    assert len(controls) == 5
    for control in controls:
        assert not control.is_visible(), control
    assert edit_control(page, memory.id).is_visible()


def test_without_javascript_edit_opens_a_page_that_saves_and_deletes(open_page):
    memory = add("Takes 60s to start", service="jellyfin", confidence=0.7)
    page = open_page(java_script_enabled=False)
    page.goto("/memories")
    edit_control(page, memory.id).click()
    page.wait_for_url(f"**/memories/{memory.id}/edit")
    assert page.get_by_role("heading", name=f"Memory #{memory.id}").is_visible()
    assert page.get_by_role("navigation", name="Sections").is_visible()  # the whole page, not a bare row
    page.get_by_label("Observation").fill("Takes about 90 s to start")
    page.get_by_role("spinbutton", name="Confidence").fill("0.85")
    page.get_by_role("button", name="Save").click()
    page.get_by_text(f"Saved memory #{memory.id}.").wait_for()
    changed = stored(memory.id)
    assert (changed.observation, changed.confidence) == ("Takes about 90 s to start", 0.85)
    page.get_by_label(f"Delete memory #{memory.id} (restorable from its history until purged)").check()
    page.get_by_role("button", name="Delete", exact=True).click()
    page.get_by_text(f"Deleted memory #{memory.id}.").wait_for()
    assert stored(memory.id) is None


def test_the_edit_address_opened_directly_is_the_whole_page(open_page):
    memory = add("Takes 60s to start")
    page = open_page()
    page.goto(f"/memories/{memory.id}/edit")
    assert page.evaluate("document.body.firstElementChild !== null && !!document.querySelector('main h1')")
    assert page.get_by_role("heading", name=f"Memory #{memory.id}").is_visible()


# --------------------------------------------------------------------------- 17: the keyboard


def test_save_with_the_keyboard_keeps_the_focus_on_the_row(open_page):
    memory = add("Takes 60s to start", service="jellyfin")
    page = open_page()
    open_memories(page)
    edit_control(page, memory.id).focus()
    page.keyboard.press("Enter")
    editor = inline_editor(page, memory.id)
    assert focused(page)["tag"] == "TEXTAREA"
    editor.fill("Takes about 90 s to start")
    page.keyboard.press("Tab")  # to Save
    page.keyboard.press("Enter")
    page.locator(f"tr[data-memory-id='{memory.id}']:not(.editing)").wait_for()
    page.wait_for_function("() => document.activeElement !== document.body")
    assert focused(page)["text"] == "Edit" and focused(page)["row"] == str(memory.id)
    assert stored(memory.id).observation == "Takes about 90 s to start"


def test_escape_cancels_an_inline_edit(open_page):
    memory = add("Takes 60s to start")
    page = open_page()
    open_memories(page)
    edit_control(page, memory.id).click()
    inline_editor(page, memory.id).fill("a change I do not want")
    page.keyboard.press("Escape")
    page.locator(f"tr[data-memory-id='{memory.id}']:not(.editing)").wait_for()
    assert row(page, memory.id).locator(".observation").inner_text() == "Takes 60s to start"
    assert stored(memory.id).observation == "Takes 60s to start"
    page.wait_for_function("() => document.activeElement !== document.body")
    assert focused(page)["text"] == "Edit" and focused(page)["row"] == str(memory.id)


def test_the_slider_sends_once_after_the_arrow_keys_and_keeps_the_focus(open_page):
    memory = add("Takes 60s to start", confidence=0.25)
    page = open_page()
    open_memories(page)
    puts: list[str] = []
    page.on("request", lambda request: puts.append(request.url) if request.method == "PUT" else None)
    slider = row(page, memory.id).locator("input[type=range]")
    slider.focus()
    for _ in range(15):
        page.keyboard.press("ArrowRight")
    row(page, memory.id).locator("output", has_text="0.40").wait_for()
    page.wait_for_timeout(1500)
    assert stored(memory.id).confidence == 0.4
    assert len(puts) == 1, puts
    assert focused(page)["type"] == "range" and focused(page)["row"] == str(memory.id)


def test_after_delete_the_focus_moves_to_the_next_row(open_page):
    first, second = add("first", confidence=0.9), add("second", confidence=0.8)
    page = open_page()
    open_memories(page)
    page.once("dialog", lambda dialog: dialog.accept())
    row(page, first.id).get_by_role("button", name="Delete").focus()
    page.keyboard.press("Enter")
    row(page, first.id).wait_for(state="detached")
    page.wait_for_timeout(500)  # the table reloads after a delete; the focus must survive it
    assert focused(page)["row"] == str(second.id) and focused(page)["text"] == "Delete"
    assert stored(first.id) is None and stored(second.id) is not None


def test_after_add_the_focus_is_on_the_new_memory(open_page):
    page = open_page()
    open_memories(page)
    page.get_by_text("Add Memory", exact=True).first.click()
    form = page.locator("#add-memory")
    form.locator("textarea[name=observation]").fill("Needs manual VACUUM FULL weekly")
    form.get_by_role("button", name="Add Memory").focus()
    page.keyboard.press("Enter")
    page.locator("tr.added").wait_for()
    page.wait_for_function("() => document.activeElement.closest('tr.added') !== null")
    assert focused(page)["text"] == "Edit"


# --------------------------------------------------------------------------- 18: Delete Selected


def test_delete_selected_waits_for_a_selection_and_says_how_many(open_page):
    chosen = [add(f"fact {number}") for number in range(2)]
    kept = add("not selected")
    page = open_page()
    open_memories(page)
    delete_selected = page.get_by_role("button", name="Delete Selected")
    adjust_selected = page.get_by_role("button", name="Adjust Selected")
    assert delete_selected.is_disabled() and adjust_selected.is_disabled()
    for memory in chosen:
        row(page, memory.id).locator("input[name=ids]").check()
    assert delete_selected.is_enabled() and adjust_selected.is_enabled()
    asked: list[str] = []

    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.once("dialog", answer)
    delete_selected.click()
    page.locator("#flash .notice", has_text="Deleted 2 memories.").wait_for()
    assert asked == ["Delete the 2 selected memories? They can be restored from their history."]
    for memory in chosen:
        row(page, memory.id).wait_for(state="detached")
    assert [memory.id for memory in repository_list()] == [kept.id]
    page.wait_for_function("document.querySelector('#delete-selected').disabled")  # updated after the swap


def test_select_all_selects_the_page_and_the_confirmation_counts_one(open_page):
    only = add("the only one")
    page = open_page()
    open_memories(page)
    page.get_by_label("Select all on this page").check()
    assert row(page, only.id).locator("input[name=ids]").is_checked()
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    page.get_by_role("button", name="Delete Selected").click()
    page.wait_for_timeout(200)
    assert asked == ["Delete the selected memory? It can be restored from its history."] and stored(only.id) is not None


def repository_list() -> list[repository.MemoryRecord]:
    with db.connection_context():
        return repository.list_memories()


# --------------------------------------------------------------------------- 19: flash messages


def adjust_two(page: Any) -> None:
    first, second = add("first", confidence=0.5), add("second", confidence=0.6)
    open_memories(page)
    row(page, first.id).locator("input[name=ids]").check()
    row(page, second.id).locator("input[name=ids]").check()
    page.get_by_role("button", name="Adjust Selected").click()
    page.locator("#flash .notice").wait_for()


def test_a_flash_message_can_be_closed(open_page):
    page = open_page()
    adjust_two(page)
    page.locator("#flash").get_by_role("button", name="Close this message").click()
    page.locator("#flash .notice").wait_for(state="detached")


def test_flash_messages_go_away_by_themselves(open_page):
    page = open_page(console_errors=True)
    page.clock.install()
    adjust_two(page)
    page.clock.run_for(5_000)
    assert page.locator("#flash .notice").is_visible()  # long enough to read
    page.clock.run_for(3_500)
    page.locator("#flash .notice").wait_for(state="detached")  # notices: 8 s

    memory = add("Takes 60s to start")
    open_memories(page)
    edit_control(page, memory.id).click()
    inline_editor(page, memory.id).fill("   ")
    row(page, memory.id).get_by_role("button", name="Save").click()
    error = page.locator("#flash .error")
    error.wait_for()
    page.clock.run_for(15_000)
    assert error.is_visible()
    page.clock.run_for(5_500)
    error.wait_for(state="detached")  # errors: 20 s


def test_a_flash_message_stays_while_the_pointer_is_on_it(open_page):
    page = open_page()
    page.clock.install()
    adjust_two(page)
    page.locator("#flash .notice").hover()
    page.clock.run_for(30_000)
    assert page.locator("#flash .notice").is_visible()


def test_with_reduced_motion_a_closed_message_goes_at_once(open_page):
    page = open_page(reduced_motion="reduce")
    adjust_two(page)
    page.locator("#flash").get_by_role("button", name="Close this message").click()
    assert page.locator("#flash > *").count() == 0  # no fade to wait for


# --------------------------------------------------------------------------- 20: login page, empty transcript


def test_the_login_page_shows_no_sections_and_no_log_out(chromium, tmp_path: Path):
    with running_dashboard(tmp_path, {"CLAUDEOPS_WEB_TOKEN": TOKEN}) as url:
        context = chromium.new_context(base_url=url)
        try:
            page = context.new_page()
            page.goto("/memories")
            page.wait_for_url("**/login?next=%2Fmemories")
            shoot(page, "login")
            assert page.get_by_role("link", name="Memories").count() == 0
            assert page.get_by_role("button", name="Log out").count() == 0
            page.get_by_label("Access token").fill(TOKEN)
            page.get_by_role("button", name="Log in").click()
            page.wait_for_url("**/memories")
            assert page.get_by_role("button", name="Log out").is_visible()
            assert page.get_by_role("navigation", name="Sections").get_by_role("link", name="Memories").is_visible()
        finally:
            context.close()


def test_a_failed_session_with_an_empty_transcript_says_why(open_page, tmp_path: Path):
    transcript = tmp_path / "empty.jsonl"
    transcript.write_text("")
    with db.connection_context():
        session = start_session_row(1, "haiku", "scheduled", None, "2026-11-21T10:00:00Z")
        SessionRow.update(status="failed", error="Claude Code CLI not found (claude_cli_path = /opt/claude)",
                          transcript_path=str(transcript)).where(SessionRow.id == session.id).execute()
    page = open_page()
    page.goto(f"/sessions/{session.id}")
    shoot(page, "session-empty-transcript")
    transcript_section = page.locator("section.transcript")
    assert transcript_section.get_by_text(
        "The transcript is empty: the session failed before Claude Code sent anything "
        "(Claude Code CLI not found (claude_cli_path = /opt/claude)).").is_visible()
