"""The store against a real PostgreSQL server: every migration of every built-in plugin applies,
re-applies as a no-op, and the core sessions table works."""

from __future__ import annotations

import pytest

from claudeops.clock import now_timestamp
from claudeops.session_rows import SessionRow, interrupt_abandoned_sessions, start_session_row
from claudeops.store import apply_migrations, db

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg_app(make_claudeops_app, empty_postgres_url):
    """Every built-in plugin, migrated on an empty PostgreSQL database."""
    return make_claudeops_app({"CLAUDEOPS_DATABASE_URL": empty_postgres_url})


def test_all_migrations_apply_on_postgresql_and_are_idempotent(pg_app):
    assert all(row.applied_at for row in pg_app.migration_status())
    assert apply_migrations(pg_app.migrations) == []
    assert {"sessions", "memories", "events", "cooldown_actions"} <= set(db.get_tables())


def test_session_rows_on_postgresql(pg_app):
    row = start_session_row(1, "haiku", "scheduled", None, now_timestamp(), "ops:/var/lib/claudeops")
    child = start_session_row(2, "sonnet", "escalation", row.id, now_timestamp(), "ops:/var/lib/claudeops")
    elsewhere = start_session_row(1, "haiku", "scheduled", None, now_timestamp(), "nas:/var/lib/claudeops")
    assert SessionRow.get_by_id(child.id).parent_session_id.id == row.id
    assert interrupt_abandoned_sessions("ops:/var/lib/claudeops") == 2
    assert SessionRow.get_by_id(elsewhere.id).status == "running"  # another host's, on the shared database
