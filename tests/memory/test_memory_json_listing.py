"""Issue 18 item 6: ``memories list --json`` encodes rows without a record per row, and prints exactly
the text ``json.dumps(…, indent=2)`` prints, whatever the values hold."""

from __future__ import annotations

import io
import json

from claudeops_memory import repository
from claudeops_memory.json_listing import write_json_array
from claudeops_memory.listing import stream_pages
from claudeops_memory.models import MEMORY_COLUMNS, MemoryRecord
from click.testing import CliRunner
from memory_helpers import LoadedApp

from claudeops.cli.group import build_cli
from claudeops.store import db

AWKWARD = ['quotes " and \\ backslashes', "tab\tand NUL\x00 inside", "naïve café ✓ 😀", "\x1f\x7f", "", "[1, 2]",
           "\u2028 line separator"]


def _awkward_store(memory_app: LoadedApp) -> None:
    """Rows as any writer may have left them (a hand-written ``INSERT``, an old version): the text raw."""
    now = memory_app.clock.stamp()
    for number, text in enumerate(AWKWARD):
        db.execute_sql("INSERT INTO memories (service, category, observation, confidence, active, created_at, "
                       "updated_at, tier, uid, pinned_at) VALUES (?, 'timing', ?, ?, ?, ?, ?, 2, ?, ?)",
                       (None if number % 2 else "nas", text, [0.0, 0.3, 1.0, 0.57, 0.1, 0.99, 0.7][number],
                        int(number not in (0, 3)), now, now, None if number == 5 else f"uid-{number}",
                        now if number == 3 else None))


def test_the_json_is_byte_for_byte_what_json_dumps_prints(memory_app: LoadedApp) -> None:
    _awkward_store(memory_app)
    records = repository.list_memories(include_inactive=True)
    expected = json.dumps([record.as_row() for record in records], indent=2) + "\n"

    printed = CliRunner().invoke(build_cli(memory_app.app), ["memories", "list", "--json", "--all", "--limit", "0"])

    assert printed.exit_code == 0 and printed.stdout == expected
    assert [row["observation"] for row in json.loads(printed.stdout)] == [record.observation for record in records]


def test_pages_are_joined_into_one_array_and_nothing_is_an_empty_one(memory_app: LoadedApp) -> None:
    _awkward_store(memory_app)
    wanted = repository.memory_filter(include_inactive=True)
    out = io.StringIO()

    written = write_json_array(stream_pages(wanted, page=2), out)

    rows = json.loads(out.getvalue())
    assert written == len(AWKWARD) == len(rows)
    assert rows == [MemoryRecord.from_row(tuple(row[column] for column in MEMORY_COLUMNS)).as_row() for row in rows]
    assert [row["active"] for row in rows].count(False) == 2 and all(isinstance(row["active"], bool) for row in rows)
    empty = io.StringIO()
    assert write_json_array(iter([]), empty) == 0 and empty.getvalue() == "[]\n"
