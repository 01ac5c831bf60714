"""Numbers too large for the database or the calendar: one usage error (exit 2), never a traceback.

Found by the audit: ``--limit 99999999999999999999999`` raised OverflowError from SQLite's binding,
``pause --for 99999999999h`` overflowed a C int and ``--for 999999999h`` the date range.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from claudeops import EXIT_USAGE
from claudeops.testing import CommandRun

HUGE = "99999999999999999999999"
JUST_TOO_BIG = "9223372036854775808"  # 2**63: one past the largest integer SQLite and PostgreSQL store

LISTS = [["sessions", "list"], ["events", "list"], ["notifications", "list"], ["memories", "changes"]]


@pytest.mark.parametrize("number", [HUGE, JUST_TOO_BIG, "9223372036854775807"])
@pytest.mark.parametrize("command", LISTS, ids=" ".join)
def test_a_limit_larger_than_any_table_lists_every_row(run_claudeops: Callable[..., CommandRun], command: list[str],
                                                       number: str) -> None:
    """"At most N" with N past what a table can hold is every row: the limit is clamped, never bound as is."""
    run_claudeops("memories", "add", "--service", "web", "--category", "remediation", "restart it")
    run = run_claudeops(*command, "--limit", number)
    status, output = run.code, run.output
    assert status == 0, output
    assert "Traceback" not in output and "Error" not in output
    if command == ["memories", "changes"]:
        assert "created  operator" in output


COMMANDS_WITH_AN_ID = [
    ["sessions", "show", "{n}"],
    ["memories", "edit", "{n}", "--confidence", "0.5"],
    ["memories", "rm", "{n}", "--yes"],
    ["memories", "history", "{n}"],
    ["memories", "revert", "{n}"],
    ["memories", "restore", "{n}"],
    ["memories", "purge", "{n}", "--yes"],
    ["memories", "review", "accept", "{n}"],
    ["memories", "review", "revert", "{n}"],
    ["memories", "review", "merge", "{n}", "1"],
    ["memories", "review", "merge", "1", "2", "--text-from", "{n}"],
    ["memories", "review", "keep-both", "1", "{n}"],
]


@pytest.mark.parametrize("number", [HUGE, JUST_TOO_BIG])
@pytest.mark.parametrize("command", COMMANDS_WITH_AN_ID, ids=" ".join)
def test_an_id_too_large_for_the_database_names_no_row(run_claudeops: Callable[..., CommandRun], command: list[str],
                                                       number: str) -> None:
    for text in ("restart it", "check the disk"):
        run_claudeops("memories", "add", "--service", "web", "--category", "remediation", text)
    run = run_claudeops(*(number if part == "{n}" else part for part in command))
    status, output = run.code, run.output
    assert status == EXIT_USAGE, output
    assert "Traceback" not in output and "OverflowError" not in output
    assert len(output.strip().splitlines()) == 1 and number in output


@pytest.mark.parametrize("duration", ["99999999999h", "999999999h", "9999999999999999999999999999999d", "3651d",
                                      "0" * 5000 + "1" + "9" * 5000 + "m"])
def test_a_pause_longer_than_any_date_is_a_usage_error(run_claudeops: Callable[..., CommandRun], duration: str) -> None:
    run = run_claudeops("pause", "web", "--for", duration)
    status, output = run.code, run.output
    assert status == EXIT_USAGE, output
    assert "longer than the longest duration, 3650d" in output
    assert len(output.strip().splitlines()) == 1
