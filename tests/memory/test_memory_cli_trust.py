"""``claudeops memories history | changes | revert | restore | purge | review``: the history, undo and
the review queue from the command line, with their one-line errors."""

from __future__ import annotations

import json

from claudeops_memory import repository
from claudeops_memory.history import memory_history
from click.testing import CliRunner, Result
from memory_helpers import LoadedApp

from claudeops.cli.group import build_cli
from claudeops.exit_codes import EXIT_USAGE


def run(memory_app: LoadedApp, *args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(build_cli(memory_app.app), ["memories", *args], input=stdin)


def _replaced(memory_app: LoadedApp) -> tuple[repository.MemoryRecord, repository.MemoryRecord]:
    old = memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    memory_app.emit(memory_app.started(), f"[MEMORY:timing:jellyfin] Takes 3 minutes to start (replaces #{old.id})")
    [successor] = [memory for memory in repository.list_memories() if memory.id != old.id]
    return old, successor


def test_help_lists_the_history_commands(memory_app: LoadedApp) -> None:
    result = run(memory_app, "--help")
    for command in ("history", "changes", "revert", "restore", "purge", "review"):
        assert f"  {command}" in result.output
        assert run(memory_app, command, "--help").exit_code == 0


def test_history_prints_the_timeline_and_what_sessions_were_told(memory_app: LoadedApp) -> None:
    old, successor = _replaced(memory_app)

    result = run(memory_app, "history", str(old.id))

    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == f"memory #{old.id} [timing:jellyfin] active, confidence 0.50: Takes 60s to start after restart"
    assert lines[1].startswith("injected into 1 session, last session #") and lines[1].endswith("now: injected")
    [replaced] = [line for line in lines if " replaced " in line]
    assert "session #" in replaced and "0.70 -> 0.50" in replaced and "citation" in replaced
    assert f"related #{successor.id}" in replaced and "flagged for review" in replaced


def test_history_json_has_the_memory_its_injections_and_every_entry(memory_app: LoadedApp) -> None:
    old, _ = _replaced(memory_app)

    shown = json.loads(run(memory_app, "history", str(old.id), "--json").output)

    assert shown["memory"]["id"] == old.id and shown["deleted"] is False
    assert (shown["injected_sessions"], shown["now"]) == (1, "injected")
    assert [change["kind"] for change in shown["changes"]] == ["created", "replaced"]
    assert shown["changes"][1]["decided_by"] == "citation"


def test_history_of_a_deleted_memory_says_how_to_restore_it(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Old fact", service="nas")
    run(memory_app, "rm", "--yes", str(memory.id))

    result = run(memory_app, "history", str(memory.id))

    assert result.output.splitlines()[0] == f"memory #{memory.id} [timing:nas] deleted, confidence 0.70: Old fact"
    assert f"restore it with: claudeops memories restore {memory.id}" in result.output


def test_history_of_an_unknown_memory_is_a_one_line_error(memory_app: LoadedApp) -> None:
    result = run(memory_app, "history", "4242")
    assert (result.exit_code, result.output) == (EXIT_USAGE, "Error: no memory with id 4242, stored or in the "
                                                              "history\n")


def test_changes_lists_recent_changes_filtered_by_kind_and_actor(memory_app: LoadedApp) -> None:
    old, successor = _replaced(memory_app)
    run(memory_app, "edit", str(successor.id), "--confidence", "0.9")

    edited = json.loads(run(memory_app, "changes", "--actor", "operator", "--json").output)
    replaced = run(memory_app, "changes", "--kind", "replaced")

    assert [(change["memory_id"], change["kind"]) for change in edited] == [(successor.id, "edited"),
                                                                            (old.id, "created")]
    assert len(replaced.output.splitlines()) == 2 and f"#{old.id}" in replaced.output.splitlines()[1]
    assert run(memory_app, "changes", "--kind", "nonsense").exit_code == 2


def test_revert_undoes_a_change_and_says_what_it_did(memory_app: LoadedApp) -> None:
    old, successor = _replaced(memory_app)
    replaced = memory_history(old.id)[-1].id

    result = run(memory_app, "revert", str(replaced))

    assert result.exit_code == 0, result.output
    assert result.output == (f"undid change #{replaced} (replaced): memory #{old.id} back to confidence 0.70, active; "
                             f"removed #{successor.id} (restorable)\n")
    assert repository.list_memories() == [old]


def test_revert_of_an_older_change_is_refused_in_one_line(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("A fact")
    run(memory_app, "edit", str(memory.id), "--confidence", "0.9")
    run(memory_app, "edit", str(memory.id), "--confidence", "0.8")
    first_edit = memory_history(memory.id)[1].id
    before = repository.get_memory(memory.id)

    result = run(memory_app, "revert", str(first_edit))

    assert result.exit_code == EXIT_USAGE
    assert result.output == (f"Error: memory #{memory.id} changed after change #{first_edit}: revert change "
                             f"#{first_edit + 1} (edited) first\n")
    assert repository.get_memory(memory.id) == before


def test_rm_then_restore_round_trips_to_the_exact_row(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Old fact", service="nas", days_ago=3)
    run(memory_app, "rm", "--yes", str(memory.id))

    result = run(memory_app, "restore", str(memory.id))

    assert result.output == f"restored memory #{memory.id} [timing:nas] (confidence 0.7, active)\n"
    assert repository.get_memory(memory.id) == memory
    assert run(memory_app, "restore", str(memory.id)).output == (f"Error: memory #{memory.id} exists; there is "
                                                                 "nothing to restore\n")


def test_purge_asks_then_removes_the_memory_and_its_history_for_good(memory_app: LoadedApp) -> None:
    memory = memory_app.remember("Should never have existed")

    declined = run(memory_app, "purge", str(memory.id), stdin="n\n")
    assert declined.exit_code == 1 and repository.get_memory(memory.id) is not None
    assert "Purge memory #" in declined.output and "1 history entry" in declined.output

    result = run(memory_app, "purge", str(memory.id), "--yes")

    assert result.output == f"purged memory #{memory.id} (1 history entry erased)\n"
    assert repository.get_memory(memory.id) is None and memory_history(memory.id) == []
    assert run(memory_app, "restore", str(memory.id)).exit_code == EXIT_USAGE


def test_review_lists_items_with_the_commands_that_decide_them(memory_app: LoadedApp) -> None:
    old, successor = _replaced(memory_app)
    change = memory_history(old.id)[-1].id

    listed = run(memory_app, "review")

    assert listed.exit_code == 0
    lines = listed.output.splitlines()
    assert lines[0].startswith(f"change-{change}  replacement  by session #") and "citation" in lines[0]
    assert lines[1].startswith(f"  #{old.id} [timing:jellyfin] 0.50 active:")
    assert lines[2].startswith(f"  #{successor.id} [timing:jellyfin] 0.70 active:")
    assert lines[3] == (f"  claudeops memories review accept {change} | revert {change} | "
                        f"merge {old.id} {successor.id}")
    [item] = json.loads(run(memory_app, "review", "--json").output)
    assert (item["kind"], item["first"]["id"], item["second"]["id"]) == ("replacement", old.id, successor.id)


def test_review_actions_from_the_command_line(memory_app: LoadedApp) -> None:
    old, successor = _replaced(memory_app)
    change = memory_history(old.id)[-1].id

    assert run(memory_app, "review", "accept", str(change)).output == (f"accepted change #{change} "
                                                                       f"(memory #{old.id})\n")
    again = run(memory_app, "review", "accept", str(change))
    assert (again.exit_code, again.output) == (EXIT_USAGE, f"Error: change #{change} is not waiting for review\n")
    merged = run(memory_app, "review", "merge", str(successor.id), str(old.id))
    assert merged.output == (f"merged memory #{old.id} into #{successor.id} (confidence 0.70): "
                             "Takes 3 minutes to start\n")
    assert repository.get_memory(old.id).active is False  # type: ignore[union-attr]
    assert run(memory_app, "review").output == "Nothing to review.\n"  # as every list command says it


def test_keep_both_from_the_command_line(memory_app: LoadedApp) -> None:
    first = memory_app.remember("Takes 60s to start after restart", service="jellyfin", confidence=0.8)
    second = memory_app.remember("Takes 60s to start after a restart", service="jellyfin")

    assert f"pair-{first.id}-{second.id}  duplicates  similarity 97" in run(memory_app, "review").output
    assert run(memory_app, "review", "keep-both", str(first.id), str(second.id)).exit_code == 0
    assert run(memory_app, "review", "--json").output == "[]\n"


def test_an_id_that_matches_nothing_is_one_line_with_the_usage_status_and_asks_nothing(
        memory_app: LoadedApp) -> None:
    for command in ("history", "revert", "restore", "purge"):
        result = run(memory_app, command, "4242", stdin="y\n")

        assert result.exit_code == EXIT_USAGE, (command, result.output)
        assert result.output.startswith("Error: ") and result.output.count("\n") == 1, (command, result.output)
        assert "Purge" not in result.output


def test_changes_with_nothing_to_show_says_so_as_every_list_command_does(memory_app: LoadedApp) -> None:
    assert run(memory_app, "changes", "--kind", "merged").output == "No changes match.\n"
