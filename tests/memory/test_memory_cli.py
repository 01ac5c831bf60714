"""``claudeops memories``: list, add, edit, rm, context and decay, and their one-line errors."""

from __future__ import annotations

import json

import pytest
from claudeops_memory import repository
from claudeops_memory.models import Memory
from click.testing import CliRunner, Result
from memory_helpers import LoadedApp

from claudeops.cli.group import build_cli
from claudeops.clock import now_timestamp, utc_now
from claudeops.store import db

COLUMNS = ["id", "service", "category", "observation", "confidence", "active", "created_at", "updated_at",
           "session_id", "tier", "uid", "pinned_at", "unpinned_at"]
"""SPEC-0015's columns, then ours: the uid (012), the pin columns (013; the decay schedule is an index's cache,
not shown)."""


def run(memory_app: LoadedApp, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(build_cli(memory_app.app), ["memories", *args], input=stdin)


def _table_dump() -> list[tuple]:
    return db.execute_sql("SELECT * FROM memories ORDER BY id").fetchall()


def test_help_documents_every_command(memory_app: LoadedApp) -> None:
    result = run(memory_app, "--help")
    assert result.exit_code == 0
    for command in ("list", "add", "edit", "rm", "context", "decay"):
        assert f"  {command}" in result.output
    for command in ("list", "add", "edit", "rm", "context", "decay"):
        assert run(memory_app, command, "--help").exit_code == 0


def test_list_json_has_exactly_the_table_columns(memory_app: LoadedApp) -> None:
    memory_app.remember("Takes 60s to start after restart", service="jellyfin", confidence=0.9)
    memory_app.remember("DNS checks fail during reconnects", category="remediation")

    result = run(memory_app, "list", "--json")

    assert result.exit_code == 0
    rows = json.loads(result.output)
    assert [list(row) for row in rows] == [COLUMNS, COLUMNS]
    assert rows[0]["service"] == "jellyfin" and rows[0]["active"] is True and rows[0]["confidence"] == 0.9
    assert rows[1]["service"] is None and rows[1]["session_id"] is None


def test_list_filters_by_service_category_and_state(memory_app: LoadedApp) -> None:
    jellyfin = memory_app.remember("Takes 60s to start", service="jellyfin")
    general = memory_app.remember("Retry DNS once", category="remediation")
    retired = memory_app.remember("Old fact", service="jellyfin", confidence=0.9, active=False)

    def ids(*args: str) -> list[int]:
        return [row["id"] for row in json.loads(run(memory_app, "list", "--json", *args).output)]

    assert ids() == [general.id, jellyfin.id]  # most trusted first, then newest
    assert ids("--service", "jellyfin") == [jellyfin.id]
    assert ids("--service", "general") == [general.id]
    assert ids("--category", "remediation") == [general.id]
    assert ids("--inactive") == [retired.id]
    assert ids("--all") == [retired.id, general.id, jellyfin.id]


@pytest.mark.parametrize("flags", [("--inactive", "--all"), ("--all", "--inactive")])
def test_list_refuses_inactive_together_with_all(memory_app: LoadedApp, flags: tuple[str, str]) -> None:
    """The two are alternatives; taking whichever came last would silently answer another question."""
    memory_app.remember("Old fact", confidence=0.9, active=False)
    result = run(memory_app, "list", "--json", *flags)
    assert result.exit_code == 2
    assert "Error: --inactive and --all exclude each other: choose one" in result.output


def test_list_prints_a_readable_table(memory_app: LoadedApp) -> None:
    memory_app.remember("Takes 60s to start after restart", service="jellyfin", confidence=0.9)
    lines = run(memory_app, "list").output.splitlines()
    assert lines[0].split() == ["ID", "CONF", "STATE", "SERVICE", "CATEGORY", "UPDATED", "OBSERVATION"]
    assert lines[1].split()[:5] == ["1", "0.90", "active", "jellyfin", "timing"]
    assert lines[1].endswith("Takes 60s to start after restart")


def test_add_creates_an_operator_memory(memory_app: LoadedApp) -> None:
    result = run(memory_app, "add", "--category", "maintenance", "--service", "postgres", "--confidence", "0.9",
                 "Needs manual VACUUM FULL weekly")

    assert result.exit_code == 0, result.output
    [memory] = repository.list_memories()
    assert (memory.category, memory.service, memory.observation, memory.confidence, memory.active,
            memory.session_id) == ("maintenance", "postgres", "Needs manual VACUUM FULL weekly", 0.9, True, None)


def test_add_uses_the_default_confidence_and_joins_words(memory_app: LoadedApp) -> None:
    assert run(memory_app, "add", "--category", "remediation", "Retry", "DNS", "once").exit_code == 0
    [memory] = repository.list_memories()
    assert (memory.observation, memory.confidence, memory.service) == ("Retry DNS once", 0.7, None)


@pytest.mark.parametrize(("args", "message"), [
    (["add", "--category", "misc", "x"], "unknown memory category 'misc'"),
    (["add", "--category", "timing", "--confidence", "1.5", "x"], "confidence must be between 0 and 1"),
    (["add", "--category", "timing", "--confidence", "high", "x"], "confidence must be a number"),
    (["add", "--category", "timing", "--service", "two words", "x"], "invalid service name"),
    (["add", "--category", "timing", "   "], "observation must not be empty"),
    (["edit", "999", "--confidence", "0.5"], "no memory with id 999"),
    (["edit", "1", "--confidence", "-0.1"], "confidence must be between 0 and 1"),
    (["edit", "1"], "nothing to change"),
    (["rm", "--yes", "1", "999"], "no memory with id 999; nothing deleted"),
    (["edit", "99999999999999999999", "--confidence", "0.5"], "no memory with id 99999999999999999999"),
    (["rm", "--yes", "99999999999999999999"], "no memory with id 99999999999999999999; nothing deleted"),
    (["list", "--category", "misc"], "unknown memory category 'misc'"),
    (["edit", "1", "--active", "--inactive"], "--active and --inactive exclude each other"),
])
def test_bad_input_is_a_one_line_error_and_changes_nothing(memory_app: LoadedApp, args: list[str],
                                                          message: str) -> None:
    memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    before = _table_dump()

    result = run(memory_app, *args)

    assert result.exit_code == 2  # usage or configuration error, as the README's table says
    assert message in result.output
    assert len([line for line in result.output.splitlines() if line.strip()]) == 1
    assert _table_dump() == before


def test_edit_observation_refreshes_updated_at_and_keeps_confidence(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Takes 60s to start", service="jellyfin", confidence=0.9, days_ago=10)
    assert run(memory_app, "edit", str(memory.id), "--observation", "Takes 90s to start").exit_code == 0
    after = repository.get_memory(memory.id)
    assert after is not None
    assert (after.observation, after.confidence) == ("Takes 90s to start", 0.9)
    assert after.updated_at > memory.updated_at


def test_edit_confidence_reactivates_an_inactive_memory(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Old fact", confidence=0.2)
    assert not memory.active
    result = run(memory_app, "edit", str(memory.id), "--confidence", "0.5")
    assert result.exit_code == 0 and "active" in result.output
    after = repository.get_memory(memory.id)
    assert after is not None and (after.confidence, after.active) == (0.5, True)


def test_edit_can_switch_a_memory_off_and_on(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("A fact", confidence=0.8)
    run(memory_app, "edit", str(memory.id), "--inactive")
    assert repository.get_memory(memory.id).active is False  # type: ignore[union-attr]
    run(memory_app, "edit", str(memory.id), "--active")
    assert repository.get_memory(memory.id).active is True  # type: ignore[union-attr]


def test_activating_a_memory_below_the_threshold_is_refused(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Old fact", confidence=0.2)
    result = run(memory_app, "edit", str(memory.id), "--active")
    assert result.exit_code == 2 and "below the 0.3 threshold" in result.output


def test_rm_asks_before_deleting(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("A fact")
    declined = run(memory_app, "rm", str(memory.id), stdin="n\n")
    assert declined.exit_code == 1 and repository.count_memories() == 1
    confirmed = run(memory_app, "rm", str(memory.id), stdin="y\n")
    assert confirmed.exit_code == 0 and repository.count_memories() == 0


def test_rm_yes_deletes_several_at_once(memory_app: LoadedApp) -> None:
    ids = [memory_app.remember(f"Fact {number}").id for number in range(5)]
    keep = memory_app.remember("Keep me")
    result = run(memory_app, "rm", "--yes", *map(str, ids))
    assert result.exit_code == 0 and "deleted 5 memories" in result.output
    assert [memory.id for memory in repository.list_memories()] == [keep.id]


def _ledger_dump() -> list[tuple]:
    """The decay ledger and the history: a preview must leave neither a decay step nor its entry."""
    return (db.execute_sql("SELECT * FROM memory_decay ORDER BY memory_id").fetchall()
            + db.execute_sql("SELECT * FROM memory_changes ORDER BY id").fetchall())


def _section_a_session_starting_now_gets(memory_app: LoadedApp) -> str | None:
    session = memory_app.session()
    memory_app.app.hook.before_session(session=session)
    return next((section.text for section in session.ordered_sections() if section.name == "memory"), None)


def test_context_prints_exactly_what_a_session_starting_now_would_get(memory_app: LoadedApp) -> None:
    """Decay is taken into account, as a session start applies it first, but nothing is kept."""
    memory_app.clock.moment = utc_now()  # the command reads the real clock
    memory_app.remember("Takes 60s to start after restart", service="jellyfin", confidence=0.9)
    older = memory_app.remember("Older fact", service="nas", days_ago=44)  # 0.7 -> 0.5
    stale = memory_app.remember("Stale fact", confidence=0.4, days_ago=44)  # 0.4 -> 0.2: not injected
    before, ledger = _table_dump(), _ledger_dump()

    result = run(memory_app, "context")

    assert result.exit_code == 0
    assert _table_dump() == before and _ledger_dump() == ledger
    assert repository.get_memory(stale.id) == stale and repository.get_memory(older.id) == older
    assert "Stale fact" not in result.output and "- [timing] Older fact (confidence: 0.5)" in result.output
    assert result.output == f"{_section_a_session_starting_now_gets(memory_app)}\n"


def test_context_says_so_when_decay_leaves_nothing_to_inject(memory_app: LoadedApp) -> None:
    memory_app.clock.moment = utc_now()
    memory = memory_app.remember("Stale fact", confidence=0.4, days_ago=44)

    result = run(memory_app, "context")

    assert result.exit_code == 0 and "no memory would be injected (0 qualify" in result.output
    assert repository.get_memory(memory.id) == memory
    assert _section_a_session_starting_now_gets(memory_app) is None


def test_context_says_so_when_nothing_qualifies(memory_app: LoadedApp) -> None:
    result = run(memory_app, "context")
    assert result.exit_code == 0 and "no memory would be injected" in result.output


def test_decay_command_reports_what_changed(memory_app: LoadedApp) -> None:
    memory = repository.create_memory(category="timing", observation="Stale fact", confidence=0.4)
    stale = "2000-01-01T00:00:00Z"
    Memory.update({Memory.updated_at: stale}).where(Memory.id == memory.id).execute()
    repository.create_memory(category="timing", observation="Fresh fact", now=now_timestamp())

    first = run(memory_app, "decay")
    second = run(memory_app, "decay")

    assert (first.exit_code, first.output.strip()) == (0, "decayed 1 memory (1 deactivated)")
    assert second.output.strip() == "decayed 0 memories (0 deactivated)"


# --------------------------------------------------------------------------- paging (issue 18 item 6)


def _many(count: int) -> None:
    for number in range(count):
        repository.create_memory(category="timing", observation=f"fact {number}",
                                 confidence=0.2 if number == 0 else 0.5 + number % 3 / 10)  # ties: newest first


def test_list_prints_a_page_and_says_where_the_next_one_starts(memory_app: LoadedApp) -> None:
    _many(7)

    first = CliRunner().invoke(build_cli(memory_app.app), ["memories", "list", "--json", "--limit", "3"])
    second = CliRunner().invoke(build_cli(memory_app.app), ["memories", "list", "--json", "--limit", "3",
                                                            "--offset", "3"])

    everything = [row["id"] for row in json.loads(run(memory_app, "list", "--json", "--limit", "0").output)]
    assert len(everything) == 6  # the 0.0 memory is inactive
    assert [row["id"] for row in json.loads(first.stdout)] == everything[:3]
    assert [row["id"] for row in json.loads(second.stdout)] == everything[3:6]
    assert first.stderr == "1-3 of 6 memories; the next page: --offset 3 (--limit 0 for all)\n"
    assert second.stderr == ""  # the last page


def test_list_streams_every_memory_in_the_same_order_and_format_as_a_page(memory_app: LoadedApp,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Streamed in keyset pages (made tiny here) and printed in chunks: the same JSON and table as one read."""
    from claudeops_memory import listing

    from claudeops.cli import context

    _many(23)
    whole_json = run(memory_app, "list", "--json", "--all", "--limit", "0").output
    whole_table = run(memory_app, "list", "--all", "--limit", "0").output
    monkeypatch.setattr(listing, "STREAM_PAGE", 4)
    monkeypatch.setattr(context, "STREAM_CHUNK", 5)

    streamed_json = run(memory_app, "list", "--json", "--all", "--limit", "0").output
    streamed_table = run(memory_app, "list", "--all", "--limit", "0").output

    assert json.loads(whole_json) == json.loads(streamed_json)
    assert streamed_json == json.dumps(json.loads(whole_json), indent=2) + "\n"  # the text every list prints
    assert [row["id"] for row in json.loads(streamed_json)] == [
        memory.id for memory in repository.list_memories(include_inactive=True)]
    assert [line.split()[0] for line in streamed_table.splitlines()] == [
        line.split()[0] for line in whole_table.splitlines()]
    assert len(streamed_table.splitlines()) == 24


@pytest.mark.parametrize("active_only", [False, True])
def test_each_streamed_page_is_a_range_of_the_listing_index_not_a_scan(memory_app: LoadedApp, active_only: bool,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A page continuing after the last row read starts where it stopped: a million memories are read
    in time linear in their number."""
    from claudeops_memory import listing

    _many(50)
    db.execute_sql("ANALYZE")
    wanted = repository.memory_filter(include_inactive=not active_only)
    recorded: list[str] = []
    real = listing._rows
    monkeypatch.setattr(listing, "_rows", lambda statement, arguments: recorded.append(statement) or real(
        statement, arguments))

    list(listing.stream_memories(wanted, page=10))

    _, params = wanted.where()
    plan = " | ".join(row[-1] for row in db.execute_sql("EXPLAIN QUERY PLAN " + recorded[1], (*params, 0.5, 40, 10)))
    assert "SEARCH" in plan and "<" in plan and "TEMP B-TREE" not in plan, plan


def test_list_limit_and_offset_past_any_table_are_every_row_and_none(memory_app: LoadedApp) -> None:
    _many(3)
    huge = str(2 ** 70)
    assert len(json.loads(run(memory_app, "list", "--json", "--limit", huge).output)) == 2
    assert run(memory_app, "list", "--offset", huge).output == "No memories match.\n"
