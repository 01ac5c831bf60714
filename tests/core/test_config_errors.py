"""Configuration and database-URL problems: one line, the exit status the table gives them (2), and
what was wrong said as it is (audit of issues 12/13)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from claudeops import EXIT_USAGE
from claudeops.store import mask_url
from claudeops.testing import CommandRun


@pytest.mark.parametrize("command", [["sessions", "list"], ["memories", "list"], ["db", "migrate"], ["events", "list"]])
def test_a_database_url_no_driver_knows_is_a_configuration_error(run_claudeops: Callable[..., CommandRun],
                                                                 command: list[str]) -> None:
    status, _, err = run_claudeops("--database-url", "foo://x", *command)
    assert status == EXIT_USAGE
    assert err.count("\n") == 1 and "cannot use database URL foo://x" in err and "scheme" in err


def test_a_run_with_a_database_url_no_driver_knows_exits_2(run_claudeops: Callable[..., CommandRun]) -> None:
    replay = Path(__file__).parents[2] / "examples" / "sessions" / "healthy-tier1.jsonl"
    status, _, err = run_claudeops("--database-url", "foo://x", "run", "--replay", str(replay))
    assert status == EXIT_USAGE and "cannot use database URL foo://x" in err


def test_doctor_reports_a_database_url_no_driver_knows(run_claudeops: Callable[..., CommandRun]) -> None:
    status, out, _ = run_claudeops("--database-url", "foo://x", "doctor")
    assert "FAIL database: cannot use database URL foo://x" in out and status != 0


@pytest.mark.parametrize(("url", "shown"), [
    ("postgresql://nouser@127.0.0.1:1/x", "postgresql://nouser@127.0.0.1:1/x"),  # no password: nothing to hide
    ("postgresql://ops:s3cret@db/x", "postgresql://ops:***@db/x"),
    ("postgresql://ops:@db/x", "postgresql://ops:@db/x"),  # an empty password hides nothing either
    ("postgresql://:s3cret@db/x", "postgresql://:***@db/x"),
    ("postgresql://ops:p@ss@db/x", "postgresql://ops:***@db/x"),
])
def test_a_url_is_masked_only_where_it_has_a_password(url: str, shown: str) -> None:
    assert mask_url(url) == shown


def test_a_config_path_that_is_a_directory_says_so(run_claudeops: Callable[..., CommandRun], tmp_path: Path) -> None:
    status, _, err = run_claudeops("--config", str(tmp_path), "sessions", "list")
    assert status == EXIT_USAGE
    assert err == f"claudeops: error: {tmp_path}: is a directory, not a config file\n"


BROKEN_CONFIGS = {
    "missing": None,
    "not UTF-8": b'tier1.model = "hai\xffku"\n',
    "nested": b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
}


@pytest.fixture(params=list(BROKEN_CONFIGS))
def broken_config(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """CLAUDEOPS_CONFIG naming a config that cannot load; the error every command reports for it."""
    path = tmp_path / "broken.toml"
    content = BROKEN_CONFIGS[request.param]
    if content is not None:
        path.write_bytes(content)
    monkeypatch.setenv("CLAUDEOPS_CONFIG", str(path))
    from claudeops.app import App
    from claudeops.config import ConfigError
    with pytest.raises(ConfigError) as failed:
        App.load(None)
    return str(failed.value)


@pytest.mark.parametrize("args", [["memories", "--help"], ["memories", "list"], ["events", "list", "-h"],
                                  ["no-such-command"]])
def test_a_plugin_command_under_a_broken_config_reports_the_config_error(run_claudeops: Callable[..., CommandRun],
                                                                         broken_config: str,
                                                                         args: list[str]) -> None:
    status, out, err = run_claudeops(*args)
    assert status == EXIT_USAGE
    assert err == f"claudeops: error: {broken_config}\n"
    assert "No such command" not in out + err


def test_help_under_a_broken_config_says_plugin_commands_are_missing(run_claudeops: Callable[..., CommandRun],
                                                                     broken_config: str) -> None:
    status, out, _ = run_claudeops("--help")
    assert status == 0
    assert "  run " in out  # the core's commands are still there
    notes = [line for line in out.splitlines() if "plugin commands" in line]
    assert notes == [f"Note: plugin commands are missing because the configuration did not load: {broken_config}"]
