"""The runner against a real PostgreSQL server: the session rows it writes by hand-written SQL
(start with the transcript path, final status, escalated child) work there as on SQLite."""

from __future__ import annotations

from pathlib import Path

import pytest
from runner_helpers import notes, replay, row

from claudeops.app import App
from claudeops.runner.script import script_to_stream

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_runner_app(make_claudeops_app, empty_postgres_url: str, tmp_path: Path) -> App:
    """``runner_app`` on an empty PostgreSQL database (and a state dir for the transcripts)."""
    return make_claudeops_app({"CLAUDEOPS_DATABASE_URL": empty_postgres_url,
                               "CLAUDEOPS_STATE_DIR": str(tmp_path / "state")})


def test_an_escalated_session_pair_is_recorded_on_postgresql(pg_runner_app, tmp_path):
    first = script_to_stream(["[NOTE] caddy is slow\n[ESCALATE] caddy answers 502"], cost_usd=0.01)
    second = script_to_stream(["[NOTE] restarted caddy", "fixed"], cost_usd=0.02)
    parent, child = replay(pg_runner_app, first, second)
    assert (parent.status, child.status) == ("escalated", "completed")
    stored_parent, stored_child = row(parent.session_id), row(child.session_id)
    assert stored_child.parent_session_id.id == parent.session_id and stored_child.trigger == "escalation"
    assert (stored_child.tier, stored_child.cost_usd, stored_child.result) == (2, 0.02, "fixed")
    assert stored_parent.transcript_path == str(tmp_path / "state" / "transcripts" / f"{parent.session_id}.jsonl")
    assert notes() == ["caddy is slow", "restarted caddy"]
