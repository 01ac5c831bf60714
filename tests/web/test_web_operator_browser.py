"""The operator loop in a real browser: Run now, the live session view, Stop, alerts while busy, and the
overview's status board on a laptop and a phone.

``claudeops web`` runs as its own process with an inventory; the runs it starts are the real
``claudeops run`` with the real bundled Claude Code CLI, talking to the fake Messages API on
127.0.0.1 (scripted replies, with delays so a session streams for a few seconds). Chromium is
Debian's. Screenshots land in ``test-artifacts/screenshots/``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_api import FakeAPI, Reply, bash, hang

from claudeops.app import App
from claudeops.notable import FINDING, NotableEvent
from claudeops.runner.lock import RunLock
from claudeops.store import close_store, db

pytestmark = [pytest.mark.browser, pytest.mark.e2e]

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "test-artifacts" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
ALERT_TOKEN = "alert-token-for-browser-tests-0123"
INVENTORY = """\
[services.postgres]
kind = "container"
[services.nextcloud]
kind = "container"
after = ["postgres"]
[services.jellyfin]
kind = "container"
[services.nas]
kind = "vm"
host = "admin@nas.lan"
remediate = false
"""


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def api() -> Iterator[FakeAPI]:
    server = FakeAPI().start()
    yield server
    server.close()


@pytest.fixture(scope="module")
def base_url(api: FakeAPI, state_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from claudeops_web.assets import CHECKOUT_HTMX

    if not CHROMIUM.is_file():
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is not installed")
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    assert CHECKOUT_HTMX.is_file(), "htmx is not installed: run `npm ci --prefix web`"
    config = state_dir / "config.toml"
    config.write_text(INVENTORY)
    home = tmp_path_factory.mktemp("home")
    env = {name: value for name, value in os.environ.items() if not name.startswith(("CLAUDEOPS_", "ANTHROPIC_"))}
    env |= api.env(home) | {"CLAUDEOPS_STATE_DIR": str(state_dir), "CLAUDEOPS_CONFIG": str(config),
                            "CLAUDEOPS_WEB_ALERT_TOKEN": ALERT_TOKEN, "CLAUDEOPS_WEB_POLL_SECONDS": "1"}
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "claudeops", "web", "--port", str(port)], env=env,
                              cwd=state_dir, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(url + "/login", timeout=1):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"claudeops web did not start: {server.stderr.read().decode()}") from None
                time.sleep(0.1)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.fixture(scope="module")
def store(base_url: str, state_dir: Path) -> Iterator[App]:
    app = App.load(str(state_dir / "config.toml"), {"CLAUDEOPS_STATE_DIR": str(state_dir)}, entry_points=False)
    app.open_store(migrate=False)
    yield app
    close_store()


@pytest.fixture(scope="module")
def browser(base_url: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, base_url: str, store: App, api: FakeAPI) -> Iterator[Any]:
    api.replies.clear()
    context = browser.new_context(base_url=base_url, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert errors == []


def session_status(session_id: int) -> str:
    with db.connection_context():
        (status,) = db.execute_sql("SELECT status FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return str(status)


def wait_until_ended(session_id: int, seconds: float = 60) -> str:
    deadline = time.monotonic() + seconds
    while (status := session_status(session_id)) == "running" and time.monotonic() < deadline:
        time.sleep(0.2)
    return status


def run_now(page: Any, instruction: str = "") -> int:
    page.goto("/")
    page.wait_for_function("() => window.htmx !== undefined")
    page.locator("details.run-now summary").click()
    if instruction:
        page.locator("details.run-now textarea[name=instruction]").fill(instruction)
    page.locator("details.run-now button[type=submit]").click()
    page.wait_for_url("**/sessions/*")
    return int(page.url.rsplit("/", 1)[1])


def test_run_now_lands_on_the_live_view_and_markers_appear_while_it_runs(page, api):
    api.script(bash("echo checking", before="Checking the services.\n[EVENT:info:jellyfin] Jellyfin answers in 0.2 s"),
               Reply([{"type": "text", "text": "[EVENT:warning:nextcloud] Responses take 4 s\nAll checked."}],
                     delay=4.0))
    clicked = time.monotonic()
    session_id = run_now(page, "Look at nextcloud too")
    first = page.locator("mark.marker-event", has_text="Jellyfin answers in 0.2 s")
    first.wait_for()
    seen = time.monotonic()
    assert session_status(session_id) == "running", "the marker must show while the session still runs"
    second_request = next(request["at"] for request in api.requests if request["path"] == "/v1/messages"
                          and len(request["body"]["messages"]) > 1)
    print(f"\nRun now → live view: {seen - clicked:.1f} s from the click to the first marker; the marker showed "
          f"{seen - second_request:.2f} s after the CLI had it and called the model again")
    page.locator("mark.marker-event", has_text="Responses take 4 s").wait_for()
    page.locator("#session-summary .status-completed").wait_for()
    assert wait_until_ended(session_id) == "completed"
    assert page.locator(".transcript-tail .live").count() == 0  # the live view ended by itself
    assert page.locator("details.stop").count() == 0  # and the Stop button went with it
    user_prompt = json.dumps(api.messages()[0]["messages"][0])
    assert "## Operator request" in user_prompt and "> Look at nextcloud too" in user_prompt
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "live-session.png"), full_page=True)


def test_a_second_run_now_while_busy_gets_the_409_message_and_stop_interrupts(page, api):
    api.script(bash("echo checking", before="Working on it."), hang(120))
    session_id = run_now(page)
    page.locator(".transcript .assistant", has_text="Working on it.").wait_for()
    page.goto("/")
    page.wait_for_function("() => window.htmx !== undefined")
    page.locator("details.run-now summary").click()
    page.locator("details.run-now button[type=submit]").click()
    busy = page.locator("#flash .busy")
    busy.wait_for()
    assert "Not started:" in busy.inner_text() and f"Watch session #{session_id}" in busy.inner_text()
    busy.get_by_role("link").click()
    page.wait_for_url(f"**/sessions/{session_id}")
    page.locator("details.stop summary").click()
    page.get_by_role("button", name=f"Stop session #{session_id} now").click()
    page.locator("#session-summary .status-interrupted").wait_for()
    assert wait_until_ended(session_id) == "interrupted"
    api.released.set()  # let the hanging reply go
    api.released.clear()


def post_alert(base_url: str, payload: dict[str, Any], token: str | None) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(base_url + "/api/v1/alerts", data=json.dumps(payload).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {token}"} if token else {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_three_alerts_while_busy_become_one_run_quoting_all_three(page, api, base_url, state_dir):
    assert post_alert(base_url, {"name": "x", "service": "jellyfin"}, None)[0] == 401
    alerts = [{"name": "JellyfinDown", "service": "jellyfin", "severity": "critical", "message": "probe failed"},
              {"name": "NextcloudSlow", "service": "nextcloud", "severity": "warning", "message": "4 s responses"},
              {"heartbeat": {"status": 0, "msg": "ECONNREFUSED"}, "monitor": {"id": 7, "name": "Postgres"}}]
    with RunLock(state_dir):
        answers = [post_alert(base_url, alert, ALERT_TOKEN) for alert in alerts]
        assert [(status, body["queued"]) for status, body in answers] == [(202, 1)] * 3
        page.goto("/alerts")
        assert page.locator("tr[data-state=queued]").count() == 3
        asked = len(api.messages())
    page.locator("tr[data-state=started]").nth(2).wait_for()
    links = {page.locator("tr[data-state=started] td a").nth(index).inner_text() for index in range(3)}
    assert len(links) == 1
    session_id = int(links.pop().lstrip("#"))
    assert wait_until_ended(session_id) == "completed"
    prompt = json.dumps(api.messages()[asked]["messages"][0])
    for brief in ("JellyfinDown (jellyfin; critical): probe failed", "NextcloudSlow (nextcloud; warning): 4 s",
                  "uptime-kuma: Postgres (postgres; critical): ECONNREFUSED"):
        assert brief in prompt
    page.goto(f"/sessions/{session_id}")
    assert page.locator(".alerts-panel li").count() == 3
    assert "alert" in page.locator("#session-summary").inner_text()


def record(store: App, level: str, service: str, message: str) -> None:
    from claudeops import now_timestamp

    with db.connection_context():
        store.hook.record_event(event=NotableEvent(level, message, now_timestamp(), service, None, FINDING))


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_the_overview_status_board_on_a_laptop_and_a_phone(browser, base_url, store, width, height):
    record(store, "info", "postgres", "accepting connections")
    record(store, "critical", "nextcloud", "HTTP 502 on 3 checks")
    record(store, "warning", "jellyfin", "responses take 4 s")
    context = browser.new_context(base_url=base_url, viewport={"width": width, "height": height})
    page = context.new_page()
    page.goto("/")
    expected = {"postgres": "up", "nextcloud": "down", "jellyfin": "degraded", "nas": "unknown"}
    colours = {}
    for service, status in expected.items():
        cell = page.locator(f'tr[data-service="{service}"] .status-cell')
        assert cell.is_visible() and cell.get_attribute("data-status") == status
        box = cell.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, f"{service} cell off screen"
        colours[status] = cell.evaluate("element => getComputedStyle(element).backgroundColor")
    assert len(set(colours.values())) == 4, colours  # four statuses, four filled colours
    assert page.locator("[data-headline]").inner_text() == "1 service down, 1 degraded"
    assert page.locator('link[rel="manifest"]').count() == 1
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"overview-{width}x{height}.png"), full_page=True)
    context.close()
