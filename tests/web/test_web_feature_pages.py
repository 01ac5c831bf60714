"""The events and cooldowns pages, and the JSON API of every plugin (errors as JSON with a message)."""

from __future__ import annotations

import re

from claudeops_cooldowns import repository as cooldowns
from claudeops_events import repository as events
from claudeops_memory import repository as memories
from web_helpers import HX

from claudeops.clock import now_timestamp
from claudeops.notable import NotableEvent
from claudeops.session_rows import start_session_row
from claudeops.store import db


def event(level: str, message: str, service: str | None = None, session_id: int | None = None) -> None:
    with db.connection_context():
        events.store_event(NotableEvent(level, message, now_timestamp(), service, session_id))


def restart(service: str, when: str | None = None) -> None:
    with db.connection_context():
        cooldowns.record_action(service=service, action="restart", success=True, message=f"docker restart {service}",
                                tier=3, session_id=None, created_at=when or now_timestamp())


# --------------------------------------------------------------------------- events


def test_events_page_filters_by_level_and_service(client):
    event("critical", "jellyfin is down", "jellyfin")
    event("info", "jellyfin is back", "jellyfin")
    event("critical", "postgres disk full", "postgres")
    html = client.get("/events?level=critical&service=jellyfin").text
    assert "jellyfin is down" in html
    assert "jellyfin is back" not in html and "postgres disk full" not in html
    assert '<option value="postgres">postgres</option>' in html


def test_events_page_polls_every_five_seconds_keeping_filters(client):
    html = client.get("/events?level=warning").text
    assert 'hx-get="/events?level=warning" hx-trigger="every 5s"' in html
    event("warning", "backup is late", "nas")
    fragment = client.get("/events?level=warning", headers=HX).text
    assert fragment.startswith('<div id="events-table"') and "backup is late" in fragment


def test_events_page_rejects_a_bad_since(client):
    response = client.get("/events?since=yesterdayish", headers=HX)
    assert response.status_code == 400 and 'class="error"' in response.text


def test_events_page_and_api_reject_a_since_out_of_range_as_a_bad_request(client):
    """An age or time past what a datetime holds overflowed into a 500; it is a bad filter like any other."""
    for since in ("800000d", "9999-12-31T23:59:59-05:00"):
        page = client.get(f"/events?since={since}", headers=HX)
        assert page.status_code == 400 and "out of range" in page.text
        api = client.get(f"/api/v1/events?since={since}")
        assert api.status_code == 400 and "out of range" in api.json()["detail"]


def test_event_messages_are_escaped(client):
    event("warning", "<img src=x onerror=alert(1)>")
    assert "&lt;img src=x onerror=alert(1)&gt;" in client.get("/events").text


def test_session_page_lists_its_events(client):
    with db.connection_context():
        row = start_session_row(1, "haiku", "test", None, now_timestamp())
    event("warning", "caddy answered 502", "caddy", session_id=row.id)
    event("info", "unrelated")
    html = client.get(f"/sessions/{row.id}").text
    assert "Events <small>(1)</small>" in html and "caddy answered 502" in html and "unrelated" not in html
    assert f"session #{row.id}" in client.get(f"/events?session_id={row.id}").text


def test_overview_counts_events_by_level(client):
    event("critical", "down")
    event("critical", "still down")
    html = client.get("/").text
    assert re.search(r'level=critical&amp;since=24h"><span class="badge level-critical">critical</span> 2', html)


# --------------------------------------------------------------------------- cooldowns


def test_cooldowns_page_shows_actions_in_window_limits_and_until(client):
    restart("jellyfin", "2099-01-01T08:00:00Z")
    restart("jellyfin", "2099-01-01T09:00:00Z")
    restart("postgres")
    html = client.get("/cooldowns").text
    assert "<strong>2</strong> restarts per service per 4 h" in html
    jellyfin = re.search(r'<td data-label="Service"><a href="/services/jellyfin">jellyfin</a></td>.*?</tr>', html,
                         re.S).group(0)
    assert "in cooldown" in jellyfin and "2099-01-01 12:00" in jellyfin
    postgres = re.search(r'<td data-label="Service"><a href="/services/postgres">postgres</a></td>.*?</tr>', html,
                         re.S).group(0)
    assert "1 left" in postgres
    assert "docker restart jellyfin" in html
    assert 'hx-trigger="every 5s"' in html


def test_cooldowns_tables_become_labelled_cards_on_a_phone(client):
    """Like every other table: class ``stacked`` (one card per row under 720 px) and a label on each value."""
    restart("jellyfin")
    html = client.get("/cooldowns").text
    assert re.findall(r"<table[^>]*>", html) == ['<table class="stacked">'] * 2
    cells = re.findall(r"<td[^>]*>", html)
    assert len(cells) == 13 and all("data-label=" in cell for cell in cells)


def test_overview_names_services_in_cooldown(client):
    restart("jellyfin", "2099-01-01T08:00:00Z")
    restart("jellyfin", "2099-01-01T09:00:00Z")
    html = client.get("/").text
    assert "1 <small>in cooldown</small>" in html and ">jellyfin</span> restart until 2099-01-01 12:00" in html


# --------------------------------------------------------------------------- JSON API


def test_memories_api_crud(client):
    created = client.post("/api/v1/memories", json={"category": "maintenance", "service": "postgres",
                                                    "observation": "Needs VACUUM FULL weekly", "confidence": 0.9})
    assert created.status_code == 201
    memory = created.json()
    assert memory["session_id"] is None and memory["active"] and memory["injection"] == "injected"
    listed = client.get("/api/v1/memories?service=postgres").json()
    assert listed["total"] == 1 and listed["items"][0]["id"] == memory["id"]
    changed = client.patch(f"/api/v1/memories/{memory['id']}", json={"confidence": 1.5}).json()
    assert changed["confidence"] == 1.0
    assert client.delete(f"/api/v1/memories/{memory['id']}").status_code == 204
    assert client.get(f"/api/v1/memories/{memory['id']}").json() == {
        "status_code": 404, "detail": f"no memory with id {memory['id']}"}


def test_memories_api_errors_are_json_with_a_message(client):
    missing = client.post("/api/v1/memories", json={"category": "timing", "observation": "  "})
    assert missing.status_code == 400 and missing.json()["detail"] == "the observation must not be empty"
    bad_type = client.post("/api/v1/memories", json={"category": "timing", "observation": "x", "confidence": "abc"})
    assert bad_type.status_code == 400 and "confidence" in str(bad_type.json())
    unknown = client.patch("/api/v1/memories/999", json={"confidence": 0.5})
    assert unknown.status_code == 404 and unknown.json()["detail"] == "no memory with id 999"
    assert client.get("/api/v1/memories?category=misc").json()["detail"].startswith("unknown memory category")


def test_memories_api_bulk_delete_and_adjust(client):
    with db.connection_context():
        ids = [memories.create_memory(category="timing", observation=f"fact {n}", confidence=0.5).id for n in range(3)]
    adjusted = client.post("/api/v1/memories/adjust-confidence", json={"ids": ids[:2], "delta": -0.3}).json()
    assert adjusted == {"count": 2}
    inactive = client.get("/api/v1/memories?show=inactive").json()
    assert sorted(item["id"] for item in inactive["items"]) == ids[:2]
    assert client.post("/api/v1/memories/delete", json={"ids": ids}).json() == {"count": 3}


def test_paged_api_lists_share_one_envelope_and_one_limit(client):
    for number in range(3):
        event("info", f"event {number}")
    for path in ("/api/v1/events", "/api/v1/sessions"):
        assert set(client.get(path).json()) == {"items", "total", "limit", "offset"}
        assert client.get(f"{path}?limit=500").status_code == 200
        assert client.get(f"{path}?limit=501").status_code == 400
        assert client.get(f"{path}?offset=-1").status_code == 400
    body = client.get("/api/v1/events?limit=1&offset=1").json()
    assert (body["total"], body["limit"], body["offset"], [item["message"] for item in body["items"]]) == (
        3, 1, 1, ["event 1"])
    schema = client.get("/api/v1/schema/openapi.json").json()
    limit = next(parameter for parameter in schema["paths"]["/api/v1/events"]["get"]["parameters"]
                 if parameter["name"] == "limit")
    assert (limit["schema"]["minimum"], limit["schema"]["maximum"]) == (1, 500)


def test_events_and_cooldowns_api(client):
    event("critical", "jellyfin is down", "jellyfin")
    restart("jellyfin")
    body = client.get("/api/v1/events?level=critical").json()
    assert body["total"] == 1 and body["items"][0]["message"] == "jellyfin is down"
    assert client.get("/api/v1/events?level=loud").status_code == 400
    (state,) = client.get("/api/v1/cooldowns").json()
    assert (state["service"], state["action"], state["count"], state["limit"], state["remaining"]) == (
        "jellyfin", "restart", 1, 2, 1)


def test_an_events_filter_on_a_session_id_beyond_64_bits_matches_nothing(client):
    event("critical", "jellyfin is down", "jellyfin")
    body = client.get("/api/v1/events?session_id=99999999999999999999").json()
    assert (body["total"], body["items"]) == (0, [])
    assert client.get("/events?session_id=99999999999999999999").status_code == 200
