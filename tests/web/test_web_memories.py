"""SPEC-0015 dashboard scenarios for /memories, through Litestar's test client (no browser).

Browser behaviour (polling, inline editing, the slider) is covered in test_web_browser.py.
"""

from __future__ import annotations

import re

from claudeops_memory import repository
from web_helpers import BASE_URL, HX, TOKEN, add_memory, row_ids

from claudeops.session_rows import start_session_row
from claudeops.store import db


def add(observation: str = "Takes 60s to start after restart", **fields):
    return add_memory(observation, **fields)


def fetch(memory_id: int):
    with db.connection_context():
        return repository.get_memory(memory_id)


# --------------------------------------------------------------------------- Dashboard Memories Page


def test_memories_page_renders(client):
    """Service (or "general"), category, status, updated and source on a line above the observation;
    the confidence as one slider with its number."""
    jellyfin = add(service="jellyfin", session_id=None, confidence=0.9)
    add("DNS checks fail during WireGuard reconnects", category="remediation", confidence=0.6)
    response = client.get("/memories")
    assert response.status_code == 200
    html = response.text
    for heading in ("Memory", "Confidence"):
        assert f"<th>{heading}</th>" in html
    row = html[html.index(f'id="memory-{jellyfin.id}"'):]
    row = row[:row.index("</tr>")]
    assert '<strong class="service"><a href="/services/jellyfin">jellyfin</a></strong>' in row
    assert '<span class="badge">timing</span>' in row
    assert "in the prompt" in row and "operator" in row and "just now" in row
    assert '<p class="observation">Takes 60s to start after restart</p>' in row
    assert re.search(r'<input type="range"[^>]*value="0.90"', row)
    assert f'<output for="confidence-{jellyfin.id}">0.90' in row
    assert "<meter" not in html  # one confidence control, not a bar and a slider
    assert '<em class="service muted">general</em>' in html
    assert 'aria-current="page">Memories' in html


def test_memories_page_links_source_session(client):
    with db.connection_context():
        session = start_session_row(1, "haiku", "test", None, "2026-11-20T10:00:00Z")
    add(service="postgres", session_id=session.id)
    assert f'href="/sessions/{session.id}">session #{session.id}</a>' in client.get("/memories").text


def test_memories_page_auto_refreshes(client):
    """The table re-fetches itself every 5 s with its filters (a new memory shows up without reload)."""
    page = client.get("/memories?service=jellyfin&category=timing").text
    assert 'hx-get="/memories?service=jellyfin&amp;category=timing"' in page
    assert 'hx-trigger="every 5s' in page
    add(service="jellyfin")
    fragment = client.get("/memories?service=jellyfin&category=timing", headers=HX)
    assert fragment.text.lstrip().startswith('<div id="memory-table"')
    assert "<html" not in fragment.text
    assert len(row_ids(fragment.text)) == 1
    assert fragment.headers["vary"] == "HX-Request"


def test_boosted_navigation_gets_the_full_page(client):
    response = client.get("/memories", headers={**HX, "HX-Boosted": "true"})
    assert "<html" in response.text


def test_filter_by_service(client):
    jellyfin = add(service="jellyfin")
    general = add("Retry DNS once before escalating", category="remediation")
    add(service="postgres")
    assert row_ids(client.get("/memories?service=jellyfin").text) == [jellyfin.id]
    assert row_ids(client.get("/memories?service=general").text) == [general.id]
    assert row_ids(client.get("/memories?service=Jellyfin").text) == [jellyfin.id]  # as the CLI reads a name
    assert [item["id"] for item in client.get("/api/v1/memories?service=JELLYFIN").json()["items"]] == [jellyfin.id]


def test_a_service_filter_that_is_no_service_name_is_a_400_with_the_one_rule(client):
    response = client.get("/memories?service=bad%20name", headers=HX)
    assert response.status_code == 400
    assert "service" in response.text


def test_filter_by_category(client):
    add(service="jellyfin", category="timing")
    behavior = add("Returns 302 when healthy", service="adguard", category="behavior")
    assert row_ids(client.get("/memories?category=behavior").text) == [behavior.id]


def test_filters_combine(client):
    add(service="jellyfin", category="timing")
    wanted = add("First restart fails on a DB lock", service="jellyfin", category="behavior")
    add("Returns 302 when healthy", service="adguard", category="behavior")
    assert row_ids(client.get("/memories?service=jellyfin&category=behavior").text) == [wanted.id]


def test_unknown_category_filter_is_a_400_with_a_message(client):
    response = client.get("/memories?category=misc", headers=HX)
    assert response.status_code == 400
    assert "unknown memory category &#39;misc&#39; (expected one of: " in response.text


def test_table_paginates_over_a_page_of_memories(client):
    for number in range(120):
        add(f"observation {number}", service="svc")
    first = client.get("/memories").text
    assert len(row_ids(first)) == 50
    assert "1–50 of 120" in first and "page 1 of 3" in first
    last = client.get("/memories?page=3", headers=HX).text
    assert len(row_ids(last)) == 20
    assert "page 3 of 3" in last


# --------------------------------------------------------------------------- Dashboard Memory CRUD


def test_create_memory_manually(client):
    """Add Memory: the values given, session_id NULL (operator-created) and active."""
    response = client.post("/memories", data={"category": "maintenance", "service": "postgres",
                                              "observation": "Needs manual VACUUM FULL weekly", "confidence": "0.9"},
                           headers=HX)
    assert response.status_code == 201
    (memory,) = repository_list()
    assert response.headers["HX-Redirect"] == (
        f"/memories?service=postgres&category=maintenance&page=1&added={memory.id}#memory-{memory.id}")
    assert (memory.category, memory.service, memory.observation, memory.confidence) == (
        "maintenance", "postgres", "Needs manual VACUUM FULL weekly", 0.9)
    assert memory.session_id is None and memory.active


def repository_list():
    with db.connection_context():
        return repository.list_memories()


def test_create_memory_with_empty_service_is_general(client):
    client.post("/memories", data={"category": "remediation", "service": "", "observation": "Retry DNS once"},
                headers=HX)
    (memory,) = repository_list()
    assert memory.service is None and memory.confidence == 0.7


def test_create_memory_without_javascript_redirects_back(client):
    response = client.post("/memories", data={"category": "timing", "observation": "Slow start"},
                           follow_redirects=False)
    (memory,) = repository_list()
    assert response.status_code == 303
    assert response.headers["location"] == f"/memories?service=general&category=timing&page=1&added={memory.id}" \
                                           f"#memory-{memory.id}"


def test_a_memory_added_with_low_confidence_is_shown_where_it_sorts(make_dashboard):
    """Added memory #n must be visible: the answer opens its service and category on its page, highlighted."""
    _, client = make_dashboard({"CLAUDEOPS_WEB_PAGE_SIZE": "10"})
    for number in range(25):
        add(f"trusted {number}", service="jellyfin", category="timing", confidence=0.9)
    add("other service", service="caddy", category="timing", confidence=0.05)
    response = client.post("/memories", data={"category": "timing", "service": "jellyfin",
                                              "observation": "Maybe slow on Mondays", "confidence": "0.1"})
    memory = next(memory for memory in repository_list() if memory.observation == "Maybe slow on Mondays")
    assert str(response.url).endswith(f"/memories?service=jellyfin&category=timing&page=3&added={memory.id}"
                                      f"#memory-{memory.id}")
    html = response.text
    assert memory.id in row_ids(html) and "page 3 of 3" in html
    assert re.search(rf'<tr id="memory-{memory.id}" class="[^"]* added"', html)
    assert len(re.findall(r'class="[^"]* added"', html)) == 1
    assert f"Added memory #{memory.id} (jellyfin, timing), highlighted below" in html
    assert "Added memory" not in client.get("/memories?page=3").text


def test_a_failed_form_without_javascript_leads_back_to_the_form(client):
    """The error page says nothing was saved and links to the page the form was on (never off-site)."""
    form = {"category": "timing", "observation": "Slow start", "confidence": "abc"}
    came_from = client.post("/memories", data=form, headers={"Referer": f"{BASE_URL}/memories?service=x&page=2"})
    assert came_from.status_code == 400 and "Nothing was saved" in came_from.text
    assert '<a href="/memories?service=x&amp;page=2">Back to the form</a>' in came_from.text
    for referer in ({"Referer": "http://evil.example/phish"}, {}):
        response = client.post("/memories", data=form, headers=referer)
        assert '<a href="/memories">Back to Memories</a>' in response.text and "evil" not in response.text
    assert "Nothing was saved" not in client.get("/memories?page=0").text
    assert repository_list() == []


def test_create_memory_without_observation_is_a_400(client):
    response = client.post("/memories", data={"category": "timing", "service": "x"}, headers=HX)
    assert response.status_code == 400
    assert "observation is required" in response.text
    assert repository_list() == []


def test_create_memory_with_non_numeric_confidence_is_a_400(client):
    response = client.post("/memories", data={"category": "timing", "observation": "x", "confidence": "abc"},
                           headers=HX)
    assert response.status_code == 400
    assert "confidence must be a number between 0 and 1, not &#39;abc&#39;" in response.text


def test_create_memory_with_unknown_category_is_a_400(client):
    response = client.post("/memories", data={"category": "misc", "observation": "x"}, headers=HX)
    assert response.status_code == 400 and "unknown memory category" in response.text


def test_confidence_clamped_to_valid_range(client):
    """An operator setting 1.5 gets 1.0 stored."""
    memory = add(service="jellyfin")
    response = client.put(f"/memories/{memory.id}", data={"confidence": "1.5"}, headers=HX)
    assert response.status_code == 200
    assert fetch(memory.id).confidence == 1.0
    assert f'<output for="confidence-{memory.id}">1.00</output>' in response.text


def test_edit_memory_observation(client):
    """Observation updated, updated_at refreshed, confidence unchanged; the answer is the row."""
    memory = add(service="jellyfin", confidence=0.8, now="2026-01-01T00:00:00Z")
    response = client.put(f"/memories/{memory.id}", data={"observation": "Takes 90s to start"}, headers=HX)
    assert response.status_code == 200
    assert response.text.lstrip().startswith(f'<tr id="memory-{memory.id}"')
    changed = fetch(memory.id)
    assert changed.observation == "Takes 90s to start"
    assert changed.confidence == 0.8
    assert changed.updated_at > "2026-01-01T00:00:00Z"


def test_inline_editor_and_cancel_rows(client):
    memory = add(service="jellyfin")
    editor = client.get(f"/memories/{memory.id}/edit", headers=HX).text
    assert 'class="active editing"' in editor and "<textarea name=\"observation\"" in editor
    assert f'hx-put="/memories/{memory.id}"' in editor
    row = client.get(f"/memories/{memory.id}/row", headers=HX).text
    assert "editing" not in row and 'type="range"' in row


def test_adjust_memory_confidence(client):
    """Slider from 0.7 to 0.95: confidence 0.95 and updated_at refreshed."""
    memory = add(service="jellyfin", now="2026-01-01T00:00:00Z")
    client.put(f"/memories/{memory.id}", data={"confidence": "0.95"}, headers=HX)
    changed = fetch(memory.id)
    assert changed.confidence == 0.95 and changed.updated_at > "2026-01-01T00:00:00Z"


def test_update_with_non_numeric_confidence_is_a_400(client):
    memory = add()
    response = client.put(f"/memories/{memory.id}", data={"confidence": "abc"}, headers=HX)
    assert response.status_code == 400 and "confidence must be a number" in response.text
    assert fetch(memory.id).confidence == 0.7


def test_update_with_empty_observation_is_a_400(client):
    memory = add()
    response = client.put(f"/memories/{memory.id}", data={"observation": "  "}, headers=HX)
    assert response.status_code == 400 and "must not be empty" in response.text


def test_update_unknown_memory_is_a_404(client):
    response = client.put("/memories/999", data={"confidence": "0.5"}, headers=HX)
    assert response.status_code == 404 and "no memory with id 999" in response.text


def test_an_id_beyond_sqlite_integers_is_an_unknown_memory(client):
    """A 20-digit id names no memory: a 404 or 400 with a reason, never a 500 from the database driver."""
    huge = "99999999999999999999"
    memory = add()
    assert client.put(f"/memories/{huge}", data={"confidence": "0.5"}, headers=HX).status_code == 404
    assert client.get(f"/memories/{huge}/edit", headers=HX).status_code == 404
    assert client.delete(f"/memories/{huge}", headers=HX).status_code == 404
    bulk = client.delete(f"/memories/bulk?ids={memory.id}&ids={huge}", headers=HX)
    assert bulk.status_code == 400 and f"not &#39;{huge}&#39;" in bulk.text
    confidence = client.post("/memories/bulk/confidence", data={"ids": huge, "delta": "0.1"}, headers=HX)
    assert confidence.status_code == 400
    api = client.patch(f"/api/v1/memories/{huge}", json={"confidence": 0.5})
    assert api.status_code == 404 and api.json()["detail"] == f"no memory with id {huge}"
    assert client.get(f"/api/v1/memories/{huge}").status_code == 404
    assert client.delete(f"/api/v1/memories/{huge}").status_code == 404
    assert client.post("/api/v1/memories/delete", json={"ids": [int(huge)]}).status_code == 400
    assert fetch(memory.id) == memory


def test_delete_memory(client):
    memory = add()
    response = client.delete(f"/memories/{memory.id}", headers=HX)
    assert response.status_code == 200 and response.text == ""
    assert fetch(memory.id) is None


def test_delete_unknown_memory_is_a_404(client):
    assert client.delete("/memories/999", headers=HX).status_code == 404


def test_delete_buttons_ask_for_confirmation(client):
    memory = add()
    html = client.get("/memories").text
    assert f'hx-confirm="Delete memory #{memory.id}? It can be restored from its history until purged."' in html
    assert 'hx-confirm="Delete the selected memories? They can be restored from their history."' in html


def test_bulk_delete(client):
    """Five selected memories, sent as repeated ids in the query string (as htmx 2 sends a DELETE)."""
    chosen = [add(f"observation {number}").id for number in range(5)]
    kept = add("keep me")
    query = "&".join(f"ids={memory_id}" for memory_id in chosen)
    response = client.delete(f"/memories/bulk?{query}", headers=HX)
    assert response.status_code == 200 and "Deleted 5 memories." in response.text
    assert [memory.id for memory in repository_list()] == [kept.id]


def test_bulk_delete_with_a_json_body(client):
    chosen = [add(f"observation {number}").id for number in range(3)]
    response = client.request("DELETE", "/memories/bulk", json={"ids": chosen})
    assert response.status_code == 200
    assert repository_list() == []


def test_bulk_delete_without_selection_is_a_400(client):
    response = client.delete("/memories/bulk", headers=HX)
    assert response.status_code == 400 and "select at least one memory" in response.text


def test_bulk_delete_with_bad_ids_is_a_400(client):
    assert client.delete("/memories/bulk?ids=abc", headers=HX).status_code == 400


def test_bulk_confidence_adjust(client):
    first, second = add("a", confidence=0.5), add("b", confidence=0.95)
    response = client.post("/memories/bulk/confidence", data={"ids": [str(first.id), str(second.id)], "delta": "0.1"},
                           headers=HX)
    assert response.status_code == 200 and "by +0.10" in response.text
    assert (fetch(first.id).confidence, fetch(second.id).confidence) == (0.6, 1.0)


def test_bulk_confidence_adjust_needs_a_number(client):
    memory = add()
    response = client.post("/memories/bulk/confidence", data={"ids": str(memory.id), "delta": "lots"}, headers=HX)
    assert response.status_code == 400 and "delta must be a number" in response.text


# --------------------------------------------------------------------------- Inactive Memory Handling


def test_inactive_memory_visible_in_dashboard(client):
    """Inactive memories are shown, visibly distinct, and can still be edited or deleted."""
    inactive = add("Old fact", confidence=0.2)
    active = add("Current fact", confidence=0.8)
    html = client.get("/memories").text
    assert re.search(rf'<tr id="memory-{inactive.id}" class="inactive"', html)
    assert re.search(rf'<tr id="memory-{active.id}" class="active"', html)
    assert f'hx-get="/memories/{inactive.id}/edit"' in html and f'hx-delete="/memories/{inactive.id}"' in html


def test_show_and_hide_inactive_memories(client):
    inactive = add("Old fact", confidence=0.2)
    active = add("Current fact", confidence=0.8)
    assert row_ids(client.get("/memories?show=active").text) == [active.id]
    assert row_ids(client.get("/memories?show=inactive").text) == [inactive.id]
    assert client.get("/memories?show=sometimes").status_code == 400


def test_reactivate_an_inactive_memory(client):
    """Raising the confidence of an inactive memory to 0.3 or more makes it active again."""
    memory = add("Old fact", confidence=0.2)
    response = client.put(f"/memories/{memory.id}", data={"confidence": "0.5"}, headers=HX)
    assert 'class="active"' in response.text
    assert fetch(memory.id).active


def test_reason_an_active_memory_is_not_injected(make_dashboard):
    """Over the token budget or (after the threshold was raised) below it, the row says so."""
    _, client = make_dashboard({"CLAUDEOPS_MEMORY_BUDGET": "40", "CLAUDEOPS_MEMORY_MIN_CONFIDENCE": "0.5"})
    injected = add("Short", confidence=0.9)
    over = add("A much longer observation that cannot fit in a forty token budget at all, honestly", confidence=0.8)
    below = add("Kept active from before the threshold was raised", confidence=0.4, min_confidence=0.3)
    html = client.get("/memories").text
    row = {memory_id: part for memory_id, part in re.findall(r'data-memory-id="(\d+)"(.*?)</tr>', html, re.S)}
    assert "in the prompt" in row[str(injected.id)]
    assert "not injected now: over the token budget" in row[str(over.id)]
    assert "not injected now: below the 0.50 threshold" in row[str(below.id)]


def test_html_in_an_observation_is_shown_not_run(client):
    add('<script>alert("pwned")</script> & <b>bold</b>')
    html = client.get("/memories").text
    assert "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in html
    assert '<script>alert("pwned")' not in html


# --------------------------------------------------------------------------- CSRF and the token


def test_state_changing_request_without_csrf_token_is_refused(client):
    memory = add()
    del client.headers["x-csrftoken"]
    response = client.delete(f"/memories/{memory.id}", headers=HX)
    assert response.status_code == 403
    assert fetch(memory.id) is not None


def test_csrf_token_in_the_form_field_is_accepted(client):
    token = client.headers.pop("x-csrftoken")
    response = client.post("/memories", data={"category": "timing", "observation": "x", "_csrf_token": token},
                           follow_redirects=False)
    assert response.status_code == 303


def test_bearer_token_is_exempt_from_csrf(make_dashboard):
    _, client = make_dashboard({"CLAUDEOPS_WEB_TOKEN": TOKEN}, csrf=False)
    response = client.post("/memories", data={"category": "timing", "observation": "from a script"},
                           headers={"Authorization": f"Bearer {TOKEN}", **HX})
    assert response.status_code == 201
    wrong = client.post("/memories", data={"category": "timing", "observation": "x"},
                        headers={"Authorization": "Bearer not-the-token", **HX})
    assert wrong.status_code == 401


# --------------------------------------------------------------------------- overview and session page


def test_overview_card_counts_active_and_inactive(client):
    add("a", confidence=0.8)
    add("b", confidence=0.2)
    html = client.get("/").text
    assert re.search(r"1 <small>active</small>", html) and "1 inactive" in html
    assert "Next session gets <strong>1</strong> of 1" in html


def test_session_page_lists_what_the_session_was_told_and_changed(web, make_session, feed_text):
    """Issue 13 item 2: a session that reinforced a memory never reads as one that did nothing."""
    app, client = web
    known = add("Takes 60s to start after restart", service="jellyfin")
    add("Not this one", service="nas", confidence=0.2)
    with db.connection_context():
        session = make_session(app=app)
        app.hook.before_session(session=session)
        feed_text(session, "[MEMORY:timing:jellyfin] Takes 60s to start after restart\n"
                           "[MEMORY:behavior:caddy] Recorded by the session", app=app)
    html = client.get(f"/sessions/{session.id}").text
    panel = html[html.index('id="session-memory"'):]
    assert "Told 1 of 1 memory, ~" in panel
    assert "What it changed <small>(2)</small>" in panel
    assert re.search(r'data-kind="reinforced"><span class="badge">reinforced</span> <a href="/memories/'
                     + str(known.id) + '">', panel)
    assert 'data-kind="created"' in panel and "Recorded by the session" in panel
    assert "Not this one" not in panel
