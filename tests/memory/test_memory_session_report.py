"""``claudeops sessions show`` says what a session was told and which memories it changed (issue 14
item 2 and 8), so it never claims nothing happened when a session reinforced memories (issue 13 item 2)."""

from __future__ import annotations

import json
from collections.abc import Callable

from claudeops_memory import repository
from click.testing import CliRunner
from memory_helpers import LoadedApp

from claudeops.cli.group import build_cli
from claudeops.session import Outcome
from claudeops.session_rows import session_dicts


def _show(memory_app: LoadedApp, *args: str) -> str:
    return CliRunner().invoke(build_cli(memory_app.app), ["sessions", "show", *args], catch_exceptions=False).output


def test_show_says_what_the_session_was_told_and_what_it_changed(
        memory_app: LoadedApp, run_scripted_session: Callable[..., Outcome]) -> None:
    jellyfin = memory_app.remember("Takes 60s to start after restart", service="jellyfin", confidence=0.9)
    caddy = memory_app.remember("Must be started after WireGuard", service="caddy", category="dependency")
    nas = memory_app.remember("Scrub runs monthly", service="nas", category="maintenance", confidence=0.6)
    run_scripted_session([
        f"[MEMORY:timing:jellyfin] Takes about a minute to start (confirms #{jellyfin.id})\n"
        "[MEMORY:dependency:caddy] Must be started after WireGuard\n"
        f"[MEMORY:maintenance:nas] Scrub runs weekly since March (replaces #{nas.id})\n"
        "[MEMORY:behavior:adguard] Answers 302 when healthy"])
    [row] = session_dicts(limit=1)
    created = {memory.observation: memory.id for memory in repository.list_memories()}

    output = _show(memory_app, str(row["id"]))
    details = json.loads(_show(memory_app, str(row["id"]), "--json"))["details"]["memory"]

    memory_part = output[output.index("\nMemory\n"):]
    assert "  told 3 of 3 memories, ~" in memory_part
    assert f"    rank 1: #{jellyfin.id} [timing:jellyfin] Takes 60s to start after restart\n" in memory_part
    assert f"    rank 3: #{nas.id} [maintenance:nas] Scrub runs monthly\n" in memory_part
    assert "  reinforced 2:\n" in memory_part
    assert f"    #{jellyfin.id} [timing:jellyfin] Takes 60s to start after restart (0.90 -> 1.00); citation\n" in output
    assert (f"    #{caddy.id} [dependency:caddy] Must be started after WireGuard (0.70 -> 0.80); exact repeat\n"
            in output)
    successor = created["Scrub runs weekly since March"]
    assert f"  replaced 1:\n    #{nas.id} [maintenance:nas] Scrub runs monthly (0.60 -> 0.40) by #{successor}" in output
    assert "  created 2:\n" in memory_part
    assert [entry["memory_id"] for entry in details["changes"]["reinforced"]] == [jellyfin.id, caddy.id]
    assert [item["memory_id"] for item in details["told"]["injected"]] == [jellyfin.id, caddy.id, nas.id]


def test_a_session_that_changed_no_memory_says_so(memory_app: LoadedApp,
                                                  run_scripted_session: Callable[..., Outcome]) -> None:
    run_scripted_session(["All services healthy."])
    [row] = session_dicts(limit=1)

    output = _show(memory_app, str(row["id"]))

    assert "\nMemory\n  told no memories (no memory qualified; budget 2,000 tokens)\n  changed no memory\n" in output
