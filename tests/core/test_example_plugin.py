"""The example third-party plugin (examples/claudeops-ticket), installed as a real distribution.

Proves the whole third-party path without any change to core: entry-point discovery, listing,
its migration, its marker type in the prompt sections, dispatch of its marker, and disabling.
"""

from __future__ import annotations

import importlib.metadata

import pytest

from claudeops.app import App
from claudeops.plugins import describe_plugins

CORE_ONLY = ("claudeops.environment", "claudeops.escalation")


@pytest.fixture
def app_with_entry_points(tmp_path):
    if "ticket" not in [entry.name for entry in importlib.metadata.entry_points(group="claudeops")]:
        pytest.fail("examples/claudeops-ticket is not installed; run .ci/setup")
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(tmp_path / "s")}, builtins=CORE_ONLY)
    app.open_store()
    return app


def test_ticket_plugin_is_discovered_and_listed(app_with_entry_points):
    info = {plugin.name: plugin for plugin in describe_plugins(app_with_entry_points.pm)}["ticket"]
    assert info.source == "entry point (claudeops-ticket)"
    assert info.version == "0.1.0"
    assert info.hooks == ("register_commands", "register_marker_types", "register_migrations")


def test_ticket_plugin_migration_is_applied(app_with_entry_points):
    status = {(row.owner, row.name): row.applied_at for row in app_with_entry_points.migration_status()}
    assert status[("ticket", "0001_create_tickets")] is not None


def test_ticket_marker_is_dispatched_to_the_plugin(app_with_entry_points):
    from claudeops_ticket import Ticket

    from claudeops.clock import now_timestamp
    from claudeops.session import Session
    from claudeops.session_rows import start_session_row

    row = start_session_row(1, "haiku", "test", None, now_timestamp())
    session = Session(id=row.id, tier=1, model="haiku", trigger="test", config=app_with_entry_points.config,
                      hook=app_with_entry_points.hook)
    for candidate in app_with_entry_points.markers.candidates("ok\n[TICKET:ups] Replace the battery"):
        candidate.marker_type.handler(session, candidate.parse())
    assert [(ticket.service, ticket.text) for ticket in Ticket.select()] == [("ups", "Replace the battery")]


def test_disabling_the_ticket_plugin_removes_it(tmp_path):
    app = App.load(None, {"CLAUDEOPS_DISABLE_PLUGINS": "ticket"}, builtins=CORE_ONLY)
    assert app.pm.get_plugin("ticket") is None
    assert "TICKET" not in [marker.name for marker in app.markers.types]
    assert all(owner != "ticket" for owner, _ in app.migrations)
