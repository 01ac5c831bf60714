"""Memory writes of the API and the page: bad input is one line and nothing is half done (issue 13,
items 5 and 7), and the edit page saves and deletes with plain forms, without JavaScript (item 16)."""

from __future__ import annotations

import pytest
from claudeops_memory import repository
from web_helpers import HX

from claudeops.store import db

NOT_UTF8 = b'{"category": "timing", "observation": "caf\xe9 \xff\xfe"}'


def add(observation: str) -> int:
    with db.connection_context():
        return repository.create_memory(category="timing", observation=observation).id


def stored_ids() -> list[int]:
    with db.connection_context():
        return sorted(memory.id for memory in repository.list_memories())


@pytest.mark.parametrize(("method", "path"), [
    ("POST", "/api/v1/memories"),
    ("PATCH", "/api/v1/memories/{id}"),
    ("POST", "/api/v1/memories/delete"),
    ("POST", "/api/v1/memories/adjust-confidence"),
])
def test_a_json_body_that_is_not_utf8_is_a_400_in_one_line(client, method, path):
    kept = add("Takes 60s to start")
    response = client.request(method, path.format(id=kept), content=NOT_UTF8,
                              headers={"content-type": "application/json"})
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert detail == "the request body is not UTF-8 text (byte 0xe9 at offset 42); send it encoded as UTF-8"
    assert stored_ids() == [kept]


def test_a_page_request_whose_json_body_is_not_utf8_is_a_400_in_the_flash_area(client):
    kept = add("Takes 60s to start")
    response = client.request("DELETE", "/memories/bulk", content=b'{"ids": [1], "x": "\xff"}',
                              headers={"content-type": "application/json", **HX})
    assert response.status_code == 400 and "is not UTF-8 text" in response.text
    assert stored_ids() == [kept]


@pytest.mark.parametrize("observation", [b"caf%E9+au+lait", b"caf\xe9 au lait"], ids=["percent-encoded", "raw"])
@pytest.mark.parametrize("path", ["/memories", "/memories/{id}/edit"])
def test_a_form_field_that_is_not_utf8_is_refused_with_the_one_message(client, path, observation):
    kept = add("Takes 60s to start")
    body = b"category=timing&service=jellyfin&confidence=0.5&observation=" + observation
    response = client.post(path.format(id=kept), content=body,
                           headers={"content-type": "application/x-www-form-urlencoded"})
    assert response.status_code == 400
    assert "the form field &#39;observation&#39; is not UTF-8 text (byte 0xe9 at offset 3); send it encoded as " \
           "UTF-8" in response.text
    with db.connection_context():
        assert [memory.observation for memory in repository.list_memories()] == ["Takes 60s to start"]


def test_bulk_delete_through_the_api_is_all_or_nothing(client):
    kept = add("Takes 60s to start")
    response = client.post("/api/v1/memories/delete", json={"ids": [kept, 99999]})
    assert response.status_code == 404
    assert response.json()["detail"] == "no memory with id 99999; nothing deleted"
    assert stored_ids() == [kept]
    assert client.post("/api/v1/memories/delete", json={"ids": [kept, kept]}).json() == {"count": 1}
    assert stored_ids() == []


def test_bulk_delete_on_the_page_is_all_or_nothing(client):
    first, second = add("first"), add("second")
    response = client.delete(f"/memories/bulk?ids={first}&ids=99999&ids=88888", headers=HX)
    assert response.status_code == 404
    assert "no memory with id 88888, 99999; nothing deleted" in response.text
    assert stored_ids() == [first, second]


def test_many_unknown_ids_are_named_in_one_short_line(client):
    kept = add("kept")
    response = client.post("/api/v1/memories/delete", json={"ids": [kept, *range(1000, 1025)]})
    detail = response.json()["detail"]
    assert detail == ("no memory with id 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009 and 15 more; "
                      "nothing deleted")
    assert stored_ids() == [kept]


def test_the_schema_documents_the_404_of_bulk_delete(client):
    operation = client.get("/api/v1/schema/openapi.json").json()["paths"]["/api/v1/memories/delete"]["post"]
    assert "404" in operation["responses"]


# --------------------------------------------------------------------------- the edit page (no JavaScript)


def test_the_edit_address_serves_the_whole_page_to_a_browser_and_the_row_to_htmx(client):
    memory_id = add("Takes 60s to start")
    page = client.get(f"/memories/{memory_id}/edit")
    assert page.status_code == 200 and page.text.startswith("<!doctype html>")
    assert f'<form method="post" action="/memories/{memory_id}/edit"' in page.text
    assert page.headers["vary"] == "HX-Request"
    row = client.get(f"/memories/{memory_id}/edit", headers=HX)
    assert row.text.lstrip().startswith(f'<tr id="memory-{memory_id}"') and "<html" not in row.text


def test_the_edit_page_saves_with_a_plain_form(client):
    memory_id = add("Takes 60s to start")
    response = client.post(f"/memories/{memory_id}/edit", data={"observation": "Takes 90 s", "confidence": "0.2",
                                                                 "active": ""}, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == f"/memories/{memory_id}/edit?saved=true"
    with db.connection_context():
        memory = repository.get_memory(memory_id)
    assert (memory.observation, memory.confidence, memory.active) == ("Takes 90 s", 0.2, False)
    assert f"Saved memory #{memory_id}." in client.get(response.headers["location"]).text


def test_the_edit_page_keeps_a_memory_inactive_when_asked(client):
    memory_id = add("Takes 60s to start")
    client.post(f"/memories/{memory_id}/edit", data={"observation": "x", "confidence": "0.9", "active": "false"})
    with db.connection_context():
        assert repository.get_memory(memory_id).active is False


def test_a_failed_save_on_the_edit_page_leads_back_to_it(client):
    memory_id = add("Takes 60s to start")
    response = client.post(f"/memories/{memory_id}/edit", data={"observation": "  ", "confidence": "0.5"},
                           headers={"Referer": f"http://127.0.0.1:8080/memories/{memory_id}/edit"})
    assert response.status_code == 400 and "Nothing was saved" in response.text
    assert f'href="/memories/{memory_id}/edit"' in response.text


def test_deleting_from_the_edit_page_needs_the_ticked_box(client):
    memory_id = add("Takes 60s to start")
    refused = client.post(f"/memories/{memory_id}/delete", data={})
    assert refused.status_code == 400 and "nothing was deleted" in refused.text
    assert stored_ids() == [memory_id]
    deleted = client.post(f"/memories/{memory_id}/delete", data={"confirm": "yes"}, follow_redirects=False)
    assert deleted.status_code == 303 and deleted.headers["location"] == f"/memories?deleted={memory_id}"
    assert stored_ids() == []
    assert f"Deleted memory #{memory_id}." in client.get(deleted.headers["location"]).text
    assert client.post(f"/memories/{memory_id}/delete", data={"confirm": "yes"}).status_code == 404
