"""Text that is not UTF-8 is refused with one message on every path (issue: the CLI said
"surrogates not allowed", a config file crashed, a recording gave Python's codec wording)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from claudeops import bytes_problem, text_problem

RAW = b"jellyfin needs 60\xffs"
MESSAGE = "not UTF-8 text (byte 0xff at offset 17)"


def test_bytes_and_a_surrogate_escaped_argument_get_the_same_message() -> None:
    assert bytes_problem(RAW) == MESSAGE
    assert text_problem(os.fsdecode(RAW)) == MESSAGE  # what Python makes of such an argv word
    assert bytes_problem("ünïcode".encode()) is None and text_problem("ünïcode") is None


def claudeops(*args: str | bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "claudeops", *args], cwd=cwd, capture_output=True, timeout=120)


def test_the_memory_cli_refuses_an_argument_that_is_not_utf8(tmp_path: Path) -> None:
    result = claudeops("memories", "add", "--category", "timing", RAW, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.decode() == f"Error: TEXT is {MESSAGE}\n"  # checked before any command runs
    listing = claudeops("memories", "list", "--json", cwd=tmp_path)
    assert listing.stdout.decode().strip() == "[]"


def test_a_recording_that_is_not_utf8_is_refused_with_the_same_words(tmp_path: Path) -> None:
    recording = tmp_path / "bad.jsonl"
    recording.write_bytes(b'{"type": "system", "subtype": "init", "note": "' + RAW + b'"}\n')
    result = claudeops("run", "--replay", str(recording), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.decode() == (f"claudeops: error: {recording}: cannot read recording: "
                                      "not UTF-8 text (byte 0xff at offset 64)\n")


@pytest.mark.parametrize("line", ['{"type": "assistant", "message": {"content": "unterminated'])
def test_a_broken_json_line_says_where_instead_of_stopping_mid_phrase(tmp_path: Path, line: str) -> None:
    recording = tmp_path / "bad.jsonl"
    recording.write_text('{"type": "system", "subtype": "init"}\n' + line + "\n")
    result = claudeops("run", "--replay", str(recording), cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.decode() == (f"claudeops: error: {recording}:2: not a JSON line (Unterminated string "
                                      "starting at column 46)\n")
