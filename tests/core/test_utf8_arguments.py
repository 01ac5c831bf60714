"""The one UTF-8 rule on every argument, option and ``CLAUDEOPS_*`` value (audit of issue 13/6).

Bytes that are not UTF-8 reach Python's argv and environment as lone surrogates; before, ``run
--request`` accepted them, ``config show`` printed ``"hai\\udcffku"`` and service arguments said the
name was bad. Each is now refused before the command does anything, with the one message.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from claudeops import EXIT_USAGE

REPLAY = str(Path(__file__).parents[2] / "examples" / "sessions" / "healthy-tier1.jsonl")


def claudeops(*args: str | bytes, cwd: Path, env: dict[str, str | bytes] | None = None
              ) -> subprocess.CompletedProcess[bytes]:
    environment = {**os.environb, **{key.encode(): value if isinstance(value, bytes) else value.encode()
                                     for key, value in (env or {}).items()}}
    return subprocess.run([sys.executable, "-m", "claudeops", *args], cwd=cwd, capture_output=True, timeout=120,
                          env=environment)


@pytest.mark.parametrize(("args", "named"), [
    (["run", "--tier", "1", "--request", b"a\xffb", "--replay", REPLAY], "--request"),
    (["run", "--alert", b"disk full\xff", "--replay", REPLAY], "--alert"),
    (["run", "--trigger-source", b"cron\xff", "--replay", REPLAY], "--trigger-source"),
    (["services", "show", b"a\xffb"], "NAME"),
    (["pause", b"a\xffb", "--for", "1h"], "SERVICE"),
    (["init", "--yes", "--service", b"jelly\xff:container", "here"], "--service"),
    (["memories", "add", "--category", "timing", b"jellyfin needs 60\xffs"], "TEXT"),
])
def test_an_argument_that_is_not_utf8_is_refused_with_the_one_message(tmp_path: Path, args: list[str | bytes],
                                                                      named: str) -> None:
    result = claudeops(*args, cwd=tmp_path)
    value = next(arg for arg in args if isinstance(arg, bytes))
    offset = value.index(b"\xff")
    assert result.returncode == EXIT_USAGE
    assert result.stderr.decode() == f"Error: {named} is not UTF-8 text (byte 0xff at offset {offset})\n"
    assert not (tmp_path / "here").exists()
    sessions = claudeops("sessions", "list", "--json", cwd=tmp_path)
    assert sessions.stdout.decode().strip() == "[]"  # nothing ran


@pytest.mark.parametrize(("variable", "args"), [
    ("CLAUDEOPS_TIER1_MODEL", ["config", "show"]),
    ("CLAUDEOPS_WEB_TOKEN", ["web", "--port", "1"]),
    ("CLAUDEOPS_STATE_DIR", ["sessions", "list"]),
])
def test_a_claudeops_variable_that_is_not_utf8_is_a_configuration_error(tmp_path: Path, variable: str,
                                                                        args: list[str]) -> None:
    value = b"abcdefghijklmnopqrstuvwxyz012345\xff"
    result = claudeops(*args, cwd=tmp_path, env={variable: value})
    assert result.returncode == EXIT_USAGE
    assert result.stderr.decode() == f"claudeops: error: environment: {variable} is not UTF-8 text (byte 0xff " \
                                     f"at offset {len(value) - 1})\n"
    assert b"dashboard on" not in result.stdout + result.stderr


def test_a_config_path_that_is_not_utf8_is_refused_before_it_is_looked_for(tmp_path: Path) -> None:
    result = claudeops("--config", b"a\xff", "sessions", "list", cwd=tmp_path)
    assert result.returncode == EXIT_USAGE
    assert result.stderr.decode() == "claudeops: error: --config is not UTF-8 text (byte 0xff at offset 1)\n"
