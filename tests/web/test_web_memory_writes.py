"""Bad input to the memory writes of the API and the page: one line, and nothing half done (issue 13, items 5 and 7)."""

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
