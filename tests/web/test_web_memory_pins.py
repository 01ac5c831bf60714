"""Issue 15 item 2 in the dashboard: pin and unpin a memory (page, without JavaScript, and API), its pin
shown, and when each memory decays next and falls under the floor beside it."""

from __future__ import annotations

from claudeops_memory import repository
from claudeops_memory.history import memory_history
from web_helpers import HX

from claudeops.store import db


def add(observation: str = "Certificate renewal is due every March", **fields):
    fields.setdefault("category", "maintenance")
    with db.connection_context():
        return repository.create_memory(observation=observation, **fields)


def _row(html: str, memory_id: int) -> str:
    row = html[html.index(f'id="memory-{memory_id}"'):]
    return row[:row.index("</tr>")]


def test_the_table_shows_each_memorys_next_decay_and_a_pin_button(client):
    memory = add()
    row = _row(client.get("/memories").text, memory.id)
    assert f'id="decay-{memory.id}">Decay: next decay ' in row and "under the 0.30 floor" in row
    assert f'hx-post="/memories/{memory.id}/pin"' in row and ">Pin</button>" in row
    assert "📌 pinned" not in row


def test_pinning_from_the_table_answers_with_the_pinned_row(client):
    memory = add()

    response = client.post(f"/memories/{memory.id}/pin", headers=HX)

    assert response.status_code == 200
    assert "📌 pinned" in response.text and "Decay: pinned: does not decay" in response.text
    assert f'hx-post="/memories/{memory.id}/unpin"' in response.text and ">Unpin</button>" in response.text
    with db.connection_context():
        assert repository.get_memory(memory.id).pinned
        assert [entry.kind for entry in memory_history(memory.id)] == ["created", "pinned"]
    unpinned = client.post(f"/memories/{memory.id}/unpin", headers=HX)
    assert "📌 pinned" not in unpinned.text and "next decay" in unpinned.text


def test_pinning_without_javascript_goes_back_to_the_memorys_page(client):
    memory = add()
    page = client.get(f"/memories/{memory.id}/edit").text
    assert f'action="/memories/{memory.id}/pin"' in page

    response = client.post(f"/memories/{memory.id}/pin", follow_redirects=False)

    assert (response.status_code, response.headers["location"]) == (303, f"/memories/{memory.id}/edit")
    page = client.get(f"/memories/{memory.id}/edit").text
    assert "📌 pinned" in page and f'action="/memories/{memory.id}/unpin"' in page


def test_pinning_a_memory_that_does_not_exist_is_a_404(client):
    assert client.post("/memories/4242/pin", headers=HX).status_code == 404
    assert client.post("/api/v1/memories/4242/unpin").status_code == 404


def test_the_api_pins_and_shows_the_outlook(client):
    memory = add()

    listed = client.get("/api/v1/memories").json()["items"][0]
    pinned = client.post(f"/api/v1/memories/{memory.id}/pin")

    assert (listed["pinned"], listed["pinned_at"]) == (False, None)
    assert listed["next_decay_at"] > listed["updated_at"] and listed["floor_at"] > listed["next_decay_at"]
    assert pinned.status_code == 200
    body = pinned.json()
    assert body["pinned"] is True and body["pinned_at"] is not None
    assert (body["next_decay_at"], body["floor_at"]) == (None, None)
    unpinned = client.post(f"/api/v1/memories/{memory.id}/unpin").json()
    assert unpinned["pinned"] is False and unpinned["unpinned_at"] is not None
