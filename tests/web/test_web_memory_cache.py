"""The memories table, its poll and the JSON list are kept until the memories, their flags or decay ledger
change, and each rendered row until what it shows changes: every change another process makes is seen
on the next request, in the row it changed, while the rows it did not change are served as kept."""

from __future__ import annotations

import html
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta

from claudeops_memory.web.rows import rendered_rows
from web_helpers import HX, add_memory

from claudeops import to_timestamp

WRITE = "import sqlite3, sys; connection = sqlite3.connect(sys.argv[1]); connection.execute(sys.argv[2]); " \
        "connection.commit()"


def write_from_another_process(app, statement: str) -> None:
    """A plain sqlite3 connection of another process, as an operator's shell (no code of ours runs)."""
    subprocess.run([sys.executable, "-c", WRITE, str(app.state_dir / "claudeops.db"), statement], check=True)


def everything(client) -> list[str]:
    return [html.unescape(client.get("/memories").text), html.unescape(client.get("/memories", headers=HX).text),
            client.get("/api/v1/memories").text]


def test_a_change_by_another_process_shows_in_its_row_on_the_page_the_poll_and_the_list(web, client):
    app, _ = web
    edited = add_memory("Jellyfin takes 30 s to start", service="jellyfin", confidence=0.9).id
    raised = add_memory("Sonarr needs the VPN up first", service="sonarr", confidence=0.4).id
    held = add_memory("Restart nginx whenever you like", service="nginx", confidence=0.8).id
    kept = add_memory("Backups run at 03:00", service="backup", confidence=0.7).id
    for _ in range(2):
        answers = everything(client)
    assert all("Jellyfin takes 30 s to start" in answer for answer in answers)
    first_page = answers[1]
    write_from_another_process(app, f"UPDATE memories SET observation = 'Jellyfin takes 45 s to start' "
                                    f"WHERE id = {edited}")
    write_from_another_process(app, f"UPDATE memories SET confidence = 0.95 WHERE id = {raised}")
    write_from_another_process(app, f"UPDATE memories SET active = 0 WHERE id = {held}")
    write_from_another_process(app, f"INSERT INTO memory_flags VALUES ({held}, 'reads as an order', "
                                    "'2026-03-01T12:00:00Z')")
    page, poll, listed = everything(client)
    for answer in (page, poll, listed):
        assert "Jellyfin takes 45 s to start" in answer and "Jellyfin takes 30 s to start" not in answer
    for answer in (page, poll):
        assert answer.index(f'id="memory-{raised}"') < answer.index(f'id="memory-{edited}"')  # 0.95 sorts first
        assert 'value="0.95"' in answer
        assert "held back for review: reads as an order" in answer
    assert '"confidence":0.95' in listed and '"flag":"reads as an order"' in listed
    unchanged = first_page[first_page.index(f'<tr id="memory-{kept}"'):]
    assert unchanged[:unchanged.index("</tr>")] in poll


def test_a_kept_row_is_rendered_again_when_its_relative_time_changes(web, client):
    """The row says "just now" or "1 min ago": that text is part of what a kept row is kept under."""
    memory = add_memory("Jellyfin takes 30 s to start", service="jellyfin")
    almost_a_minute = to_timestamp(datetime.now(UTC) - timedelta(seconds=59))
    memory = type(memory)(**{**memory.as_row(), "updated_at": almost_a_minute})
    environment = client.app.template_engine.engine

    def row() -> str:
        [rendered] = rendered_rows(environment, [memory], {memory.id: "injected"}, {}, {}, 0.3, None)
        return str(rendered)

    assert ">just now</time>" in row()
    time.sleep(1.5)
    assert ">1 min ago</time>" in row()
