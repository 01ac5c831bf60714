"""Reading a transcript for the session page: what is shown, how markers stand out, how a live
transcript is read piece by piece; and that loading the plugins does not load the web stack."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from claudeops_web.transcript import read_transcript

from claudeops.app import App


@pytest.fixture
def markers():
    return App.load(None, {}, entry_points=False).markers


def write(path: Path, *records: object) -> Path:
    path.write_text("".join((record if isinstance(record, str) else json.dumps(record)) + "\n" for record in records))
    return path


def assistant(*blocks: dict) -> dict:
    return {"type": "assistant", "message": {"role": "assistant", "content": list(blocks)}}


def test_markers_are_highlighted_by_type_and_malformed_ones_stand_out(tmp_path, markers):
    text = "Checked.\n[MEMORY:timing:jellyfin] Takes 60s [EVENT:info] fine\n[MEMORY:misc] not a category"
    chunk = read_transcript(str(write(tmp_path / "t.jsonl", assistant({"type": "text", "text": text}))), markers)
    (item,) = chunk.items
    assert [[(segment.text, segment.marker) for segment in line] for line in item.lines] == [
        [("Checked.", None)],
        [("[MEMORY:timing:jellyfin] Takes 60s ", "MEMORY"), ("[EVENT:info] fine", "EVENT")],
        [("[MEMORY:misc] not a category", "malformed")],
    ]


def test_tool_calls_and_results_become_collapsible_items(tmp_path, markers):
    path = write(tmp_path / "t.jsonl",
                 assistant({"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "docker ps\n-a"}}),
                 {"type": "user", "message": {"content": [{"type": "tool_result", "tool_use_id": "t1",
                                                           "content": [{"type": "text", "text": "a\nb"}],
                                                           "is_error": True}]}},
                 {"type": "result", "subtype": "success", "num_turns": 2, "total_cost_usd": 0.01, "result": "ok"})
    call, result, end = read_transcript(str(path), markers).items
    assert (call.kind, call.title) == ("tool_use", "Bash: docker ps") and '"command"' in call.body
    assert (result.kind, result.title, result.body, result.is_error) == ("tool_result", "error (2 lines)", "a\nb", True)
    assert (end.kind, end.title) == ("result", "session ended: success, 2 turns, $0.0100")


def test_a_one_line_result_says_one_line(tmp_path, markers):
    path = write(tmp_path / "t.jsonl", {"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]}})
    (result,) = read_transcript(str(path), markers).items
    assert result.title == "result (1 line)"


def test_an_offset_inside_a_line_starts_at_the_next_line(tmp_path, markers):
    """An offset typed into the URL may fall inside a line: its tail is skipped, not shown as unreadable."""
    first = json.dumps(assistant({"type": "text", "text": "one"})) + "\n"
    path = write(tmp_path / "t.jsonl", assistant({"type": "text", "text": "one"}),
                 assistant({"type": "text", "text": "two"}))
    for offset in (1, 10, len(first) - 1):
        chunk = read_transcript(str(path), markers, offset)
        assert [item.lines[0][0].text for item in chunk.items] == ["two"], offset
        assert chunk.start == len(first.encode())
    assert [item.lines[0][0].text for item in read_transcript(str(path), markers, len(first)).items] == ["two"]
    assert read_transcript(str(path), markers, path.stat().st_size - 1).items == []


def test_a_live_transcript_is_read_up_to_its_last_complete_line(tmp_path, markers):
    path = tmp_path / "t.jsonl"
    first = json.dumps(assistant({"type": "text", "text": "one"})) + "\n"
    path.write_text(first + '{"type": "assist')
    chunk = read_transcript(str(path), markers)
    assert len(chunk.items) == 1 and chunk.end == len(first.encode()) and not chunk.more
    path.write_text(first + json.dumps(assistant({"type": "text", "text": "two"})) + "\n")
    rest = read_transcript(str(path), markers, chunk.end)
    assert [item.lines[0][0].text for item in rest.items] == ["two"]


def test_a_long_transcript_is_read_in_chunks(tmp_path, markers):
    lines = [assistant({"type": "text", "text": f"line {number}"}) for number in range(50)]
    path = write(tmp_path / "t.jsonl", *lines)
    texts, offset, more = [], 0, True
    while more:
        chunk = read_transcript(str(path), markers, offset, limit=400)
        texts += [item.lines[0][0].text for item in chunk.items]
        offset, more = chunk.end, chunk.more
    assert texts == [f"line {number}" for number in range(50)]


def test_lines_that_are_not_json_are_shown_not_fatal(tmp_path, markers):
    chunk = read_transcript(str(write(tmp_path / "t.jsonl", "not json", "[1, 2]")), markers)
    assert [item.kind for item in chunk.items] == ["unreadable", "unreadable"]


def test_a_missing_transcript_is_reported(markers):
    assert read_transcript("/nonexistent/t.jsonl", markers).missing
    assert read_transcript(None, markers).missing


def test_loading_the_plugins_does_not_import_the_web_stack():
    """`claudeops run` loads every built-in plugin from cron; Litestar costs ~250 ms to import."""
    code = ("import sys; from claudeops.app import App; App.load(None, {}, entry_points=False); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'litestar', 'jinja2', 'uvicorn'}))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert result.stdout.strip() == "[]"
