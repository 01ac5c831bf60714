"""Issue 14 on the dashboard: a memory's timeline, the recent changes, the review queue, undo and their
JSON API — and every path that changes a memory writing an entry that matches the row it left."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable

from claudeops_memory import repository
from claudeops_memory.history import HistoryEntry, memory_history, standing_changes
from click.testing import CliRunner
from web_helpers import add_memory as add

from claudeops.app import App
from claudeops.cli.group import build_cli
from claudeops.session import Session
from claudeops.store import db

HX = {"HX-Request": "true"}


def fetch(memory_id: int) -> repository.MemoryRecord | None:
    with db.connection_context():
        return repository.get_memory(memory_id)


def entries(memory_id: int) -> list[HistoryEntry]:
    with db.connection_context():
        return memory_history(memory_id)


def assert_history_matches_row(memory_id: int) -> None:
    """The memory as its history says it stands: the latest standing change's new values (text from the
    newest entry that recorded one) equal the stored row; a memory gone from the table ends in a removal."""
    with db.connection_context():
        row = repository.get_memory(memory_id)
        timeline = memory_history(memory_id)
        latest = standing_changes(memory_id).latest
    assert latest is not None, f"memory #{memory_id} has no history"
    if row is None:
        assert latest.kind in ("deleted", "reverted", "created") and timeline[-1].new_confidence is None, timeline[-1]
        return
    text = next(entry.new_observation for entry in reversed(timeline) if entry.new_observation is not None)
    last = timeline[-1]
    assert (last.new_confidence, last.new_active, last.new_updated_at, text) == (
        row.confidence, row.active, row.updated_at, row.observation), (last, row)


def started(app: App, make_session: Callable[..., Session]) -> Session:
    with db.connection_context():
        session = make_session(app=app)
        app.hook.before_session(session=session)
    return session


# --------------------------------------------------------------------------- every path writes its entry


def test_every_path_that_changes_a_memory_writes_an_entry_matching_the_row(web, make_session, feed_text, tmp_path):
    app, client = web

    def check(*ids: int) -> None:
        for memory_id in ids:
            assert_history_matches_row(memory_id)

    def marker(text: str) -> None:
        session = started(app, make_session)
        with db.connection_context():
            feed_text(session, text, app=app)

    def cli(*args: str) -> None:
        result = CliRunner().invoke(build_cli(app), ["memories", *args])
        assert result.exit_code == 0, result.output

    # markers: created, reinforced, contradicted (judge) with the new fact, replaced (citation) with a successor
    marker("[MEMORY:dependency:caddy] Must be started after WireGuard")
    [must] = repository_list()
    check(must.id)
    marker("[MEMORY:dependency:caddy] Must be started after WireGuard")
    check(must.id)
    marker("[MEMORY:dependency:caddy] Can be started independently of WireGuard")
    can = next(memory for memory in repository_list() if memory.observation.startswith("Can"))
    assert entries(must.id)[-1].kind == "contradicted"
    check(must.id, can.id)
    marker(f"[MEMORY:dependency:caddy] Starts on its own since 2.8 (replaces #{can.id})")
    successor = next(memory for memory in repository_list() if memory.observation.startswith("Starts"))
    assert entries(can.id)[-1].kind == "replaced"
    check(can.id, successor.id)
    # the command line
    cli("add", "--category", "maintenance", "--service", "postgres", "Needs", "VACUUM", "weekly")
    vacuum = next(memory for memory in repository_list() if memory.service == "postgres")
    cli("edit", str(vacuum.id), "--observation", "Needs VACUUM FULL weekly", "--confidence", "0.9")
    check(vacuum.id)
    cli("revert", str(entries(vacuum.id)[-1].id))
    check(vacuum.id)
    cli("rm", "--yes", str(vacuum.id))
    check(vacuum.id)
    cli("restore", str(vacuum.id))
    check(vacuum.id)
    # the JSON API
    created = client.post("/api/v1/memories", json={"category": "behavior", "observation": "Answers 302",
                                                     "service": "adguard"}).json()
    check(created["id"])
    assert client.patch(f"/api/v1/memories/{created['id']}", json={"confidence": 0.2}).status_code == 200
    check(created["id"])
    assert client.post("/api/v1/memories/adjust-confidence", json={"ids": [created["id"]], "delta": 0.5}
                       ).status_code == 200
    check(created["id"])
    assert client.delete(f"/api/v1/memories/{created['id']}").status_code == 204
    check(created["id"])
    assert client.post(f"/api/v1/memories/{created['id']}/restore").status_code == 200
    check(created["id"])
    assert client.post("/api/v1/memories/delete", json={"ids": [created["id"]]}).status_code == 200
    check(created["id"])
    # the dashboard's forms
    response = client.post("/memories", data={"category": "timing", "service": "plex", "observation": "Slow start"},
                           follow_redirects=False)
    assert response.status_code == 303
    plex = next(memory for memory in repository_list() if memory.service == "plex")
    check(plex.id)
    assert client.put(f"/memories/{plex.id}", data={"observation": "Slow start after updates"}).status_code == 200
    check(plex.id)
    assert client.post("/memories/bulk/confidence", data={"ids": [str(plex.id)], "delta": "-0.5"}).status_code == 200
    check(plex.id)
    assert client.delete(f"/memories/{plex.id}").status_code == 200
    check(plex.id)
    assert client.post(f"/memories/{plex.id}/restore", follow_redirects=False).status_code == 303
    check(plex.id)
    assert client.delete("/memories/bulk", params={"ids": [str(plex.id)]}).status_code == 200
    check(plex.id)
    # decay (from the command line, as a session start would)
    old = add("Nightly backup at 02:00", service="nas", category="maintenance", now="2020-01-01T00:00:00Z")
    cli("decay")
    assert entries(old.id)[-1].kind == "decayed"
    check(old.id)
    # review: accept, merge, keep both
    twin = add("Nightly backup at 02:00 ", service="nas", category="maintenance")
    assert client.post("/api/v1/memory-review/keep-both", json={"first_id": old.id, "second_id": twin.id}
                       ).status_code == 200
    check(old.id, twin.id)
    assert client.post("/review/merge", data={"keep": str(twin.id), "other": str(old.id)},
                       follow_redirects=False).status_code == 303
    check(old.id, twin.id)
    replaced = next(entry for entry in entries(can.id) if entry.kind == "replaced")
    assert client.post("/api/v1/memory-review/accept", json={"change_id": replaced.id}).status_code == 200
    check(can.id)
    # undo, from the timeline's button
    merge_entry = entries(twin.id)[-1]
    assert client.post(f"/memories/changes/{merge_entry.id}/revert", follow_redirects=False).status_code == 303
    check(old.id, twin.id)
    assert client.post(f"/api/v1/memory-changes/{entries(successor.id)[-1].id}/revert").status_code == 200
    check(successor.id)
    # import (the command line): a new memory, and a memory changed on both sides, decided in the review queue
    for resolve in (lambda conflict: client.post("/review/resolve", data={"conflict": str(conflict),
                                                                           "resolution": "take theirs"},
                                                 follow_redirects=False).status_code == 303,
                    lambda conflict: client.post("/api/v1/memory-review/resolve", json={
                        "conflict_id": conflict, "resolution": "keep both"}).status_code == 200):
        cli("export", "--format", "jsonl", str(tmp_path / "export.jsonl"))
        lines = [json.loads(line) for line in (tmp_path / "export.jsonl").read_text().splitlines()]
        theirs = next(pair for pair in lines if pair["memory"]["uid"] == fetch(vacuum.id).uid)
        theirs["memory"].update(observation=f"{theirs['memory']['observation']} there", updated_at=_LATER)
        new = {"history": None, "memory": {**theirs["memory"], "uid": str(uuid.uuid4()), "observation": "New"}}
        (tmp_path / "export.jsonl").write_text("\n".join(json.dumps(pair) for pair in (theirs, new)) + "\n")
        assert client.patch(f"/api/v1/memories/{vacuum.id}", json={"confidence": 0.3}).status_code == 200
        cli("import", str(tmp_path / "export.jsonl"))
        imported = next(memory for memory in repository_list() if memory.uid == new["memory"]["uid"])
        check(vacuum.id, imported.id)
        [item] = [item for item in client.get("/api/v1/memory-review").json() if item["kind"] == "sync conflict"]
        card = client.get("/review").text.split(f'id="conflict-{item["conflict_id"]}"')[1].split("</section>")[0]
        assert 'data-kind="sync conflict"' in card and "ours: as it stands here" in card
        assert all(f">{word}</button>" in card for word in ("Take theirs", "Keep ours", "Keep both"))
        assert resolve(item["conflict_id"])
        check(*(memory.id for memory in repository_list()))
    assert entries(vacuum.id)[-1].decided_by == "keep both"
    assert [entry.kind for entry in entries(vacuum.id)[-4:]] == ["edited", "imported", "edited", "reviewed"]


_LATER = "2030-01-01T00:00:00Z"


def repository_list() -> list[repository.MemoryRecord]:
    with db.connection_context():
        return repository.list_memories()


# --------------------------------------------------------------------------- the timeline


def _replaced_by_a_session(app: App, make_session: Callable[..., Session], feed_text: Callable[..., None]
                           ) -> tuple[repository.MemoryRecord, repository.MemoryRecord, Session]:
    old = add("Takes 60s to start after restart", service="jellyfin")
    session = started(app, make_session)
    with db.connection_context():
        feed_text(session, f"[MEMORY:timing:jellyfin] Takes 3 minutes to start (replaces #{old.id})", app=app)
    successor = next(memory for memory in repository_list() if memory.id != old.id)
    return old, successor, session


def test_a_memory_opens_to_its_timeline(web, make_session, feed_text):
    app, client = web
    old, successor, session = _replaced_by_a_session(app, make_session, feed_text)

    html = client.get(f"/memories/{old.id}").text

    assert f"<h1>Memory #{old.id}</h1>" in html and "Takes 60s to start after restart" in html
    assert re.search(r'<dd id="injection-now">injected</dd>', html)
    assert f'into 1 session, last <a href="/sessions/{session.id}">' in html
    svg = html[html.index('<svg id="confidence-timeline"'):html.index("</svg>")]
    assert svg.count("<polyline") == 1 and svg.count("<circle") == 2  # created 0.70, replaced 0.50
    replaced = entries(old.id)[-1]
    row = html[html.index(f'id="change-{replaced.id}"'):]
    row = row[:row.index("</tr>")]
    assert f'<a href="/sessions/{session.id}">session #{session.id}</a>' in row and "0.70 → 0.50" in row
    assert f'replaced by <a href="/memories/{successor.id}">#{successor.id}</a>' in row and "citation" in row
    assert row.count(">Revert</button>") == 1  # only the latest change is offered
    assert html.count(">Revert</button>") == 1


def test_revert_from_the_timeline_then_an_older_change_is_refused_with_its_reason(web, make_session, feed_text):
    app, client = web
    old, successor, _ = _replaced_by_a_session(app, make_session, feed_text)
    replaced = entries(old.id)[-1]
    created = entries(old.id)[0]

    reverted = client.post(f"/memories/changes/{replaced.id}/revert", follow_redirects=False)

    assert reverted.status_code == 303 and reverted.headers["location"] == f"/memories/{old.id}?reverted={replaced.id}"
    assert fetch(old.id) == old and fetch(successor.id) is None
    assert f"Reverted change #{replaced.id}." in client.get(reverted.headers["location"]).text
    client.put(f"/memories/{old.id}", data={"confidence": "0.9"})
    refused = client.post(f"/memories/changes/{created.id}/revert", headers=HX)
    assert refused.status_code == 400 and "revert change #" in refused.text and "(edited) first" in refused.text


def test_a_deleted_memory_keeps_its_timeline_and_can_be_restored(client):
    memory = add("Old fact", service="nas")
    client.delete(f"/memories/{memory.id}")

    html = client.get(f"/memories/{memory.id}").text
    restored = client.post(f"/memories/{memory.id}/restore", data={"next": "https://evil.example/"},
                           follow_redirects=False)

    assert "(deleted)" in html and "Restore memory #" in html and "Old fact" in html
    assert restored.headers["location"] == f"/memories/{memory.id}?restored=1"  # never the other site
    assert fetch(memory.id) == memory


def test_purge_needs_the_word_and_then_erases_the_timeline(client):
    memory = add("Should never have existed")

    refused = client.post(f"/memories/{memory.id}/purge", data={"confirm": "yes"}, headers=HX)
    assert refused.status_code == 400 and fetch(memory.id) is not None

    purged = client.post(f"/memories/{memory.id}/purge", data={"confirm": "purge"}, follow_redirects=False)

    assert purged.status_code == 303 and fetch(memory.id) is None and entries(memory.id) == []
    assert client.get(f"/memories/{memory.id}").status_code == 404
    assert f"Purged memory #{memory.id} and its 1 history entries" in client.get(purged.headers["location"]).text


def test_recent_changes_are_filtered_by_kind_and_actor(web, make_session, feed_text):
    app, client = web
    _replaced_by_a_session(app, make_session, feed_text)

    everything = client.get("/memories/changes").text
    replaced = client.get("/memories/changes", params={"kind": "replaced"}).text
    by_operator = client.get("/memories/changes", params={"actor": "operator"}, headers=HX).text

    assert everything.count('data-change-id="') == 3
    assert re.findall(r'data-kind="(\w+)"', replaced) == ["replaced"]
    assert re.findall(r'data-kind="(\w+)"', by_operator) == ["created"] and "<html" not in by_operator
    assert client.get("/memories/changes", params={"kind": "renamed"}).status_code == 400


# --------------------------------------------------------------------------- the review queue


def test_review_lists_a_replacement_and_accept_resolves_it(web, make_session, feed_text):
    app, client = web
    old, successor, session = _replaced_by_a_session(app, make_session, feed_text)
    replaced = entries(old.id)[-1]

    html = client.get("/review").text
    accepted = client.post("/review/accept", data={"change": str(replaced.id)}, follow_redirects=False)

    item = html[html.index(f'id="change-{replaced.id}"'):]
    assert 'data-kind="replacement"' in item[:80] and f'href="/sessions/{session.id}"' in item
    assert f'<a href="/memories/{old.id}">#{old.id}</a>' in item and f'<a href="/memories/{successor.id}">' in item
    assert ">Accept</button>" in item and ">Revert</button>" in item and f">Merge, keep #{old.id}</button>" in item
    assert accepted.headers["location"] == f"/review?done=accept&ids={replaced.id}"
    after = client.get(accepted.headers["location"]).text
    assert f"Accepted change #{replaced.id}." in after and "Nothing waits for review." in after


def test_review_actions_refuse_bad_input_in_one_line(client):
    assert client.post("/review/accept", data={"change": "x"}, headers=HX).status_code == 400
    assert client.post("/review/accept", data={"change": "99"}, headers=HX).status_code == 404
    assert client.post("/review/keep-both", data={"first": "3", "second": "3"}, headers=HX).status_code == 400
    assert client.get("/review", params={"done": "<script>"}).status_code == 400


def test_the_overview_offers_the_review_count_as_a_card(client):
    add("Takes 60s to start after restart", service="jellyfin", confidence=0.8)
    add("takes 60s to start after a restart", service="jellyfin")

    html = client.get("/").text

    card = html[html.index('id="review-card"'):]
    assert '<p class="big">1</p>' in card[:300]


# --------------------------------------------------------------------------- the JSON API


def test_the_api_gives_a_memory_history_and_reverts_a_change(web, make_session, feed_text):
    app, client = web
    old, successor, _ = _replaced_by_a_session(app, make_session, feed_text)

    shown = client.get(f"/api/v1/memories/{old.id}/history").json()
    listed = client.get("/api/v1/memory-changes", params={"kind": "replaced"}).json()
    [item] = client.get("/api/v1/memory-review").json()
    reverted = client.post(f"/api/v1/memory-changes/{shown['changes'][-1]['id']}/revert").json()

    assert (shown["deleted"], shown["now"], [change["kind"] for change in shown["changes"]]) == (
        False, "injected", ["created", "replaced"])
    assert listed["total"] == 1 and listed["items"][0]["memory_id"] == old.id
    assert (item["kind"], item["first"]["id"], item["second"]["id"], item["actions"]) == (
        "replacement", old.id, successor.id, ["accept", "revert", "merge"])
    assert reverted["memory"]["confidence"] == 0.7 and reverted["removed"] == [successor.id]


def test_the_api_answers_impossible_ids_with_404_not_500(client):
    huge = 2**70
    assert client.get(f"/api/v1/memories/{huge}/history").status_code == 404
    assert client.post(f"/api/v1/memory-changes/{huge}/revert").status_code == 404
    assert client.post(f"/api/v1/memories/{huge}/restore").status_code == 404
    assert client.post(f"/api/v1/memories/{huge}/purge").status_code == 404
    assert client.post("/api/v1/memory-review/accept", json={"change_id": huge}).status_code == 404
    assert client.post("/api/v1/memory-review/merge", json={"keep_id": huge, "other_id": 1}).status_code == 404
    assert client.get(f"/memories/{huge}").status_code == 404
