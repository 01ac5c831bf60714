"""Issue 15 item 1: ``memories export`` writes every memory and its history as canonical, reviewable files —
the ``.memories`` layout or one ``jsonl`` file — atomically, and an unchanged store exports to the same bytes."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import jsonschema_rs
import pytest
from claudeops_memory import repository
from claudeops_memory.export import export_memories
from claudeops_memory.history import memory_history
from claudeops_memory.models import CATEGORIES
from claudeops_memory.schemas import SCHEMAS, schema_text
from memory_helpers import LoadedApp, fill_varied_store

from claudeops.store import db


def files(folder: Path) -> dict[str, bytes]:
    return {str(path.relative_to(folder)): path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def test_a_folder_export_has_the_memories_layout_with_one_canonical_file_per_memory(memory_app: LoadedApp,
                                                                                       tmp_path: Path) -> None:
    stored = fill_varied_store(memory_app)
    target = tmp_path / ".memories"

    result = export_memories(target, "dir", memory_app.clock.stamp())

    written = files(target)
    uids = {memory.uid for memory in stored.values()}
    assert result.memories == len(stored) == len(uids)
    assert {name for name in written if name.startswith("memories/")} == {f"memories/mem_{uid}.json" for uid in uids}
    assert {name for name in written if name.startswith("history/")} == {f"history/mem_{uid}.json" for uid in uids}
    assert {name for name in written if "/" not in name} == {"manifest.json", "index.json"}
    assert {name for name in written if name.startswith("schemas/")} == {f"schemas/{name}.schema.json"
                                                                         for name in SCHEMAS}
    for name, data in written.items():
        if name.startswith("schemas/"):
            continue
        document = json.loads(data)
        canonical = json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
        assert data == canonical.encode("utf-8"), name  # sorted keys, 2 spaces, UTF-8 as is, LF, final newline
    backup = next(memory for text, memory in stored.items() if text.startswith("Grüße"))
    text = "Grüße: backups run at 02:00 — naïve retries fail 日本"
    assert text.encode() in written[f"memories/mem_{backup.uid}.json"]


def test_every_exported_document_is_valid_against_the_shipped_schemas(memory_app: LoadedApp, tmp_path: Path) -> None:
    fill_varied_store(memory_app)
    export_memories(tmp_path / "out", "dir", memory_app.clock.stamp())
    validators = {name: jsonschema_rs.Draft202012Validator(json.loads(schema_text(name))) for name in SCHEMAS}

    for name, data in files(tmp_path / "out").items():
        kind = {"memories": "memory", "history": "history"}.get(name.split("/")[0], name.removesuffix(".json"))
        if kind in validators:
            errors = [error.message for error in validators[kind].iter_errors(json.loads(data))]
            assert errors == [], name
    assert files(tmp_path / "out")["schemas/memory.schema.json"] == schema_text("memory")


def test_the_schemas_name_exactly_the_categories_kinds_and_actors_of_the_code() -> None:
    from claudeops_memory.history import ACTORS, KINDS

    memory = json.loads(schema_text("memory"))
    change = json.loads(schema_text("history"))["$defs"]["change"]["properties"]
    assert memory["properties"]["category"]["enum"] == list(CATEGORIES)
    assert change["kind"]["enum"] == list(KINDS)
    assert change["actor"]["enum"] == list(ACTORS)


def test_a_memory_document_says_everything_but_its_local_id(memory_app: LoadedApp, tmp_path: Path) -> None:
    stored = fill_varied_store(memory_app)
    export_memories(tmp_path / "out", "dir", memory_app.clock.stamp())
    order = next(memory for text, memory in stored.items() if text.startswith("OPERATOR STANDING ORDER"))
    vacuum = stored["Needs VACUUM weekly"]
    session_start = db.execute_sql("SELECT started_at FROM sessions WHERE id = ?", (order.session_id,)).fetchone()[0]

    document = json.loads((tmp_path / "out" / "memories" / f"mem_{order.uid}.json").read_text())

    assert document == {
        "active": False, "category": "remediation", "confidence": 0.7, "created_at": order.created_at,
        "decay_weeks_applied": 0,
        "flag": {"flagged_at": order.created_at,
                 "reason": "reads as an instruction to the agent: 'STANDING ORDER', 'supersedes'"},
        "observation": order.observation, "pinned_at": None,
        "provenance": {"session_id": order.session_id, "session_started_at": session_start, "tier": 1},
        "service": None, "uid": order.uid, "unpinned_at": None, "updated_at": order.updated_at}
    renewal = stored["Certificates renew every 90 days"]
    pinned = json.loads((tmp_path / "out" / "memories" / f"mem_{renewal.uid}.json").read_text())
    assert (pinned["pinned_at"], pinned["unpinned_at"]) == (renewal.pinned_at, None) and renewal.pinned_at
    decayed = json.loads((tmp_path / "out" / "memories" / f"mem_{vacuum.uid}.json").read_text())
    assert (decayed["confidence"], decayed["decay_weeks_applied"]) == (0.5, 2)  # a new home will not decay it again


def test_a_history_names_related_memories_by_uid_and_referred_changes_by_number(memory_app: LoadedApp,
                                                                                  tmp_path: Path) -> None:
    stored = fill_varied_store(memory_app)
    export_memories(tmp_path / "out", "dir", memory_app.clock.stamp())
    must, can = stored["Must be started after WireGuard"], stored["Can be started independently of WireGuard"]
    backup = next(memory for text, memory in stored.items() if text.startswith("Grüße"))

    changes = json.loads((tmp_path / "out" / "history" / f"mem_{must.uid}.json").read_text())["changes"]
    restored = json.loads((tmp_path / "out" / "history" / f"mem_{backup.uid}.json").read_text())["changes"]

    assert [change["kind"] for change in changes] == ["created", "contradicted", "reviewed"]
    assert [change["seq"] for change in changes] == [1, 2, 3]
    assert changes[1]["related_memory_uid"] == can.uid and changes[1]["needs_review"] is True
    assert changes[2]["refers_to"] == 2 and changes[2]["decided_by"] == "accept"
    assert [change["kind"] for change in restored] == ["created", "edited", "deleted", "restored"]
    assert restored[3]["refers_to"] == 3
    snapshot = restored[2]["snapshot"]
    assert "id" not in snapshot["memory"] and snapshot["memory"]["uid"] == backup.uid
    assert len(memory_history(backup.id)) == 4


def test_exporting_an_unchanged_store_again_writes_no_file(memory_app: LoadedApp, tmp_path: Path) -> None:
    fill_varied_store(memory_app)
    target = tmp_path / "out"
    export_memories(target, "dir", memory_app.clock.stamp())
    before = {path: (path.stat().st_mtime_ns, path.read_bytes()) for path in target.rglob("*") if path.is_file()}
    memory_app.clock.advance(days=1)

    result = export_memories(target, "dir", memory_app.clock.stamp())

    assert (result.written, result.removed) == (0, 0)
    after = {path: (path.stat().st_mtime_ns, path.read_bytes()) for path in target.rglob("*") if path.is_file()}
    assert after == before


def test_a_re_export_rewrites_only_what_changed_and_removes_deleted_memories(memory_app: LoadedApp,
                                                                             tmp_path: Path) -> None:
    kept = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    gone = memory_app.remember("Answers 302 when healthy", service="adguard", category="behavior")
    edited = memory_app.remember("Needs VACUUM weekly", service="postgres", category="maintenance")
    target = tmp_path / "out"
    export_memories(target, "dir", memory_app.clock.stamp())
    untouched = (target / "memories" / f"mem_{kept.uid}.json").stat().st_mtime_ns
    repository.delete_memories([gone.id])
    repository.update_memory(edited.id, confidence=0.9)

    result = export_memories(target, "dir", memory_app.clock.stamp())

    assert not (target / "memories" / f"mem_{gone.uid}.json").exists()
    assert not (target / "history" / f"mem_{gone.uid}.json").exists()
    assert json.loads((target / "memories" / f"mem_{edited.uid}.json").read_text())["confidence"] == 0.9
    assert (target / "memories" / f"mem_{kept.uid}.json").stat().st_mtime_ns == untouched
    # the edited memory and its history, and index.json (counts); two stale files removed
    assert (result.written, result.removed) == (3, 2)


def test_a_jsonl_export_is_one_canonical_line_per_memory_with_its_history(memory_app: LoadedApp,
                                                                           tmp_path: Path) -> None:
    stored = fill_varied_store(memory_app)
    export_memories(tmp_path / "folder", "dir", memory_app.clock.stamp())
    target = tmp_path / "memories.jsonl"

    export_memories(target, "jsonl", memory_app.clock.stamp())

    lines = target.read_text().splitlines()
    assert len(lines) == len(stored)
    pairs = [json.loads(line) for line in lines]
    assert [pair["memory"]["uid"] for pair in pairs] == sorted(memory.uid for memory in stored.values())
    for line, pair in zip(lines, pairs, strict=True):
        assert line == json.dumps(pair, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        folder_file = tmp_path / "folder" / "memories" / f"mem_{pair['memory']['uid']}.json"
        assert json.loads(folder_file.read_text()) == pair["memory"]  # the same documents as the folder's
    mtime = target.stat().st_mtime_ns
    assert export_memories(target, "jsonl", memory_app.clock.stamp()).written == 0
    assert target.stat().st_mtime_ns == mtime


def test_a_crash_in_the_middle_of_a_re_export_leaves_every_file_whole(memory_app: LoadedApp, tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    memories = [memory_app.remember(f"Observation number {number}", service=f"svc{number}") for number in range(6)]
    target = tmp_path / "out"
    export_memories(target, "dir", memory_app.clock.stamp())
    old = files(target)
    for memory in memories:
        repository.update_memory(memory.id, observation=f"Changed observation of #{memory.id}")
    renames, replace = [], os.replace

    def failing_replace(source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> None:
        renames.append(destination)
        if len(renames) == 4:
            raise OSError(28, "No space left on device")
        replace(source, destination)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError, match="No space left"):
        export_memories(target, "dir", memory_app.clock.stamp())
    monkeypatch.undo()

    after = files(target)
    changed = [name for name in old if after.get(name) != old[name]]
    assert 0 < len(changed) < len(old)  # it stopped part way
    for name, data in after.items():
        if name.startswith("memories/mem_"):
            document = json.loads(data)  # whole: the old version or the new one, never a mix
            assert data == old[name] or document["observation"].startswith("Changed observation")
    export_memories(target, "dir", memory_app.clock.stamp())  # the next export finishes the job
    assert not [name for name in files(target) if name.split("/")[-1].startswith(".")]


def test_a_crash_before_a_new_folder_is_complete_leaves_no_folder(memory_app: LoadedApp, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    memory_app.remember("Takes 60s to start after restart", service="jellyfin")

    def failing_rename(source: str, destination: str) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "rename", failing_rename)
    (tmp_path / "exports").mkdir()
    with pytest.raises(OSError):
        export_memories(tmp_path / "exports" / "new", "dir", memory_app.clock.stamp())

    assert list((tmp_path / "exports").iterdir()) == []  # neither the folder nor its temporary twin


def test_a_folder_or_file_that_is_no_export_is_refused(memory_app: LoadedApp, tmp_path: Path, invoke_cli) -> None:
    memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "notes.txt").write_text("mine")
    (tmp_path / "bashrc").write_text("export PATH=...\n")

    folder = invoke_cli("memories", "export", str(tmp_path / "home"))
    single = invoke_cli("memories", "export", "--format", "jsonl", str(tmp_path / "bashrc"))

    assert folder.exit_code == 2 and "holds no memories export (no valid manifest.json)" in folder.output
    assert single.exit_code == 2 and "exists and is not a memories export" in single.output
    assert (tmp_path / "home" / "notes.txt").read_text() == "mine"
    assert (tmp_path / "bashrc").read_text() == "export PATH=...\n"


def test_the_command_says_what_it_wrote(memory_app: LoadedApp, tmp_path: Path, invoke_cli) -> None:
    memory_app.remember("Takes 60s to start after restart", service="jellyfin")

    first = invoke_cli("memories", "export", str(tmp_path / "out"))
    again = invoke_cli("memories", "export", str(tmp_path / "out"))

    assert first.exit_code == 0, first.output
    assert first.output == f"exported 1 memory to {tmp_path / 'out'} (8 files written)\n"
    assert again.output == f"exported 1 memory to {tmp_path / 'out'} (no file changed)\n"


def test_a_memory_written_without_a_uid_gets_one_when_exported(memory_app: LoadedApp, tmp_path: Path,
                                                               invoke_cli) -> None:
    db.execute_sql("INSERT INTO memories (category, observation, created_at, updated_at) "
                   "VALUES ('timing', 'written by hand', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')")

    result = invoke_cli("memories", "export", str(tmp_path / "out"))

    [uid] = [row[0] for row in db.execute_sql("SELECT uid FROM memories").fetchall()]
    assert uid is not None and (tmp_path / "out" / "memories" / f"mem_{uid}.json").is_file()
    assert "gave 1 memory stored without a uid (written outside claudeops) a uid" in result.output


def test_each_export_becomes_the_sync_base_of_its_memories(memory_app: LoadedApp, tmp_path: Path) -> None:
    memory = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    export_memories(tmp_path / "out", "dir", memory_app.clock.stamp())
    data = (tmp_path / "out" / "memories" / f"mem_{memory.uid}.json").read_bytes()

    expected = hashlib.sha256(json.dumps(json.loads(data), sort_keys=True, separators=(",", ":"),
                                         ensure_ascii=False).encode()).hexdigest()
    assert db.execute_sql("SELECT uid, synced_hash FROM memory_sync").fetchall() == [(memory.uid, expected)]
