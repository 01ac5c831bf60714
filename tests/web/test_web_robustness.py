"""The dashboard under conditions it does not control: a database another process keeps locked (503
with Retry-After, never a 500), a huge offset and a malformed Host header (400, never a 500)."""

from __future__ import annotations

import pytest
from web_helpers import HX, TOKEN

from claudeops import db

MEMORY = {"category": "maintenance", "service": "postgres", "observation": "Needs VACUUM FULL weekly"}
BUSY = ("the database is locked by another process (a run recording its session, or an open sqlite3 shell); "
        "nothing was saved: try again in a few seconds")


def memories() -> int:
    with db.connection_context():
        return db.execute_sql("SELECT count(*) FROM memories").fetchone()[0]


def test_an_api_write_while_another_process_holds_the_lock_is_a_503_with_retry_after(
        short_busy_timeout, make_dashboard, hold_write_lock):
    _, client = make_dashboard()
    holder = hold_write_lock(1.5)
    refused = client.post("/api/v1/memories", json=MEMORY)
    assert (refused.status_code, refused.headers["retry-after"]) == (503, "5")
    assert refused.json() == {"status_code": 503, "detail": BUSY}
    holder.wait()
    assert client.post("/api/v1/memories", json=MEMORY).status_code == 201
    assert memories() == 1  # the refused one left nothing behind


@pytest.mark.parametrize("headers", [{}, HX], ids=["form", "htmx"])
def test_a_form_sent_while_the_database_is_locked_says_so_and_to_retry(short_busy_timeout, make_dashboard,
                                                                      hold_write_lock, headers):
    _, client = make_dashboard()
    hold_write_lock(1.5)
    refused = client.post("/memories", data=MEMORY, headers=headers)
    assert (refused.status_code, refused.headers["retry-after"]) == (503, "5")
    assert BUSY in refused.text
    assert memories() == 0


@pytest.mark.parametrize("path", ["/api/v1/sessions", "/api/v1/events", "/api/v1/memories"])
@pytest.mark.parametrize("offset", ["9223372036854775808", "99999999999999999999999"])
def test_an_offset_past_any_row_id_is_a_400(client, path, offset):
    response = client.get(f"{path}?offset={offset}")
    assert response.status_code == 400
    assert response.json()["detail"].startswith(f"Validation failed for GET {path}?offset=")


def test_the_largest_offset_is_an_empty_page(client):
    assert client.get("/api/v1/sessions?offset=9223372036854775807").json()["items"] == []


@pytest.mark.parametrize("host", ["127.0.0.1:abc", "127.0.0.1:99999", "localhost:-1", "127.0.0.1:80:80",
                                  "[::1]:x", "local host"])
@pytest.mark.parametrize("path", ["/", "/memories", "/api/v1/sessions", "/no/such/page"])
def test_a_malformed_host_header_is_a_400_on_every_path(client, host, path):
    response = client.get(path, headers={"host": host})
    assert response.status_code == 400
    assert f"malformed Host header {host!r}" in response.text


def test_a_malformed_host_header_is_a_400_with_a_token_too(make_dashboard):
    _, client = make_dashboard({"CLAUDEOPS_WEB_TOKEN": TOKEN}, csrf=False)
    response = client.get("/api/v1/sessions", headers={"host": "dash.example:abc",
                                                       "Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 400 and response.json()["detail"].startswith("malformed Host header")


@pytest.mark.parametrize("host", ["127.0.0.1:8080", "localhost", "[::1]:8080", "127.0.0.1:"])
def test_well_formed_loopback_hosts_still_get_their_page(client, host):
    assert client.get("/api/v1/sessions", headers={"host": host}).status_code == 200
