"""Run now, Stop, the manifest and the empty overview, through the app test client. Runs are real
``claudeops run --replay`` children (``web.run_command``), under the real run lock."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

import pytest

from claudeops import get_session_dict
from claudeops.runner.lock import RunLock, run_domain
from claudeops.session_rows import start_session_row
from claudeops.store import db

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sessions"
REPLAY = ",".join([sys.executable, "-m", "claudeops", "run", "--replay", str(EXAMPLES / "healthy-tier1.jsonl")])


@pytest.fixture
def runs(make_dashboard):
    return make_dashboard({"CLAUDEOPS_WEB_RUN_COMMAND": REPLAY})


def finished(session_id: int, seconds: float = 60) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with db.connection_context():
            row = get_session_dict(session_id)
        if row and row["status"] != "running":
            return row
        time.sleep(0.1)
    raise AssertionError(f"session #{session_id} did not end")


def test_run_now_goes_to_the_new_sessions_live_view(runs):
    _, client = runs
    response = client.post("/runs", data={"tier": "1", "instruction": "look at jellyfin"}, follow_redirects=False)
    assert response.status_code == 303
    session_id = int(response.headers["location"].removeprefix("/sessions/"))
    row = finished(session_id)
    assert (row["trigger"], row["trigger_source"], row["status"]) == ("manual", "dashboard", "completed")
    assert "Trigger</dt><dd>manual <small>(dashboard)</small>" in client.get(f"/sessions/{session_id}").text
    overview = client.get("/").text  # and the overview shows it as the last run of tier 1
    assert "Nothing is watched yet" not in overview
    assert f'<span class="tier">Tier 1</span>\n      <a href="/sessions/{session_id}">#{session_id}</a>' in overview
    assert re.search(r"Tier 2</span>\s*<span class=\"muted\">never run</span>", overview)


def test_run_now_from_htmx_redirects_the_page(runs):
    _, client = runs
    response = client.post("/runs", data={"tier": "1"}, headers={"HX-Request": "true"})
    assert response.status_code == 200 and response.headers["HX-Redirect"].startswith("/sessions/")
    finished(int(response.headers["HX-Redirect"].rsplit("/", 1)[1]))


def test_a_second_run_while_one_is_busy_is_a_409_linking_the_running_session(runs, claudeops_state_dir):
    app, client = runs
    running = start_session_row(2, "sonnet", "scheduled", None, "2026-01-01T00:00:00Z", run_domain(app.state_dir))
    with RunLock(app.state_dir):
        page = client.post("/runs", data={"tier": "1"})
        api = client.post("/api/v1/runs", json={"tier": 1})
    assert page.status_code == 409
    assert f'<a href="/sessions/{running.id}">Watch session #{running.id}</a>' in page.text
    assert api.status_code == 409 and api.json()["extra"] == {"running_session_id": running.id,
                                                              "url": f"/sessions/{running.id}"}


def test_the_api_starts_a_run_and_answers_with_its_session(runs):
    _, client = runs
    response = client.post("/api/v1/runs", json={"tier": 1, "service": "jellyfin", "instruction": "slow?"})
    assert response.status_code == 201
    body = response.json()
    assert body["url"] == f"/sessions/{body['session_id']}"
    assert finished(body["session_id"])["trigger_source"] == "api"


@pytest.mark.parametrize(("payload", "message"), [
    ({"tier": 4}, "tier must be 1 to 3 (max_tier), not 4"),
    ({"tier": 1, "service": "web server"}, "invalid service name 'web server'"),
    ({"tier": 1, "instruction": "x" * 2001}, "the instruction is 2001 characters long"),
])
def test_bad_run_requests_are_400s_with_the_reason(runs, payload, message):
    _, client = runs
    response = client.post("/api/v1/runs", json=payload)
    assert response.status_code == 400 and message in response.json()["detail"]


def test_run_now_without_the_csrf_token_is_refused(runs):
    _, client = runs
    del client.headers["x-csrftoken"]
    assert client.post("/runs", data={"tier": "1"}).status_code == 403


def test_stopping_a_session_that_is_not_running_is_a_409(runs):
    app, client = runs
    row = start_session_row(1, "haiku", "scheduled", None, "2026-01-01T00:00:00Z", run_domain(app.state_dir))
    assert client.post(f"/api/v1/sessions/{row.id}/stop").status_code == 409
    assert client.post("/api/v1/sessions/999/stop").status_code == 404


def test_a_running_session_has_a_confirmed_stop_button(runs):
    app, client = runs
    row = start_session_row(1, "haiku", "scheduled", None, "2026-01-01T00:00:00Z", run_domain(app.state_dir))
    html = client.get(f"/sessions/{row.id}").text
    assert "<summary>Stop this session…</summary>" in html and f'action="/sessions/{row.id}/stop"' in html


def test_an_empty_install_shows_the_two_commands_that_fill_it(client):
    html = client.get("/").text
    assert "Nothing is watched yet" in html
    assert "<code>claudeops init</code>" in html and "<code>claudeops run --tier 1</code>" in html


def test_the_web_app_manifest_is_public_and_names_committed_icons(make_dashboard):
    _, client = make_dashboard({"CLAUDEOPS_WEB_TOKEN": "s3cret-token-for-tests-0123456789"}, csrf=False)
    manifest = client.get("/manifest.webmanifest")
    assert manifest.status_code == 200 and manifest.headers["content-type"].startswith("application/manifest+json")
    icons = manifest.json()["icons"]
    assert [icon["sizes"] for icon in icons] == ["192x192", "512x512"]
    for icon in icons:
        image = client.get(icon["src"])
        assert image.status_code == 200 and image.content.startswith(b"\x89PNG")
