"""The ``claudeops.testing`` fixtures plugin authors get (and this suite builds its apps with):
the overrides choose what the app is made of, and the helpers work on the app the test built last."""

from __future__ import annotations

import json
import re

import pytest

from claudeops import MarkerType, PluginError, hookimpl
from claudeops.session_rows import SessionRow
from claudeops.store import db

CORE_ONLY = ("claudeops.environment", "claudeops.escalation")


@pytest.fixture
def claudeops_builtins():
    return CORE_ONLY


@pytest.fixture
def claudeops_environ():
    return {"CLAUDEOPS_TIER2_MODEL": "opus"}


class Noting:
    """A plugin with a ``[NOTED] text`` marker whose handler keeps what it was given, or fails on ``boom``."""

    def __init__(self) -> None:
        self.noted: list[str] = []

    def handle(self, session, marker):
        if marker.groups[0] == "boom":
            raise RuntimeError("cannot note")
        self.noted.append(marker.groups[0])

    @hookimpl
    def register_marker_types(self, register):
        register(MarkerType("NOTED", re.compile(r"\[NOTED\][ \t]*(.+)"), "## Noted", self.handle))


def test_the_overrides_choose_the_built_ins_and_the_settings(claudeops_app, claudeops_state_dir):
    assert sorted(name for name, _ in claudeops_app.pm.list_name_plugin()) == sorted(CORE_ONLY)
    assert claudeops_app.config.tier(2).model == "opus"
    assert claudeops_app.config.state_dir == claudeops_state_dir
    assert "sessions" in db.get_tables()  # migrated


def test_an_app_built_with_other_settings_is_the_one_the_helpers_use(claudeops_app, make_claudeops_app, make_session):
    app = make_claudeops_app({"CLAUDEOPS_TIER1_MODEL": "sonnet"})
    session = make_session(tier=1)
    assert session.config is app.config and session.config is not claudeops_app.config
    assert session.config.tier(1).model == "sonnet"
    assert session.config.tier(2).model == "opus"  # claudeops_environ still applies


def test_a_test_that_builds_its_own_app_builds_no_other(make_claudeops_app, make_session):
    app = make_claudeops_app()
    make_session()
    assert make_claudeops_app.built == [app]


def test_sessions_start_on_claudeops_clock_unless_given_another(make_session, claudeops_clock):
    session = make_session(tier=2, model="sonnet")
    assert SessionRow.get_by_id(session.id).started_at == claudeops_clock.stamp()
    claudeops_clock.advance(hours=3)
    assert session.now() == claudeops_clock.stamp()
    chosen = make_session(session_id=42)
    assert (chosen.id, SessionRow.get_by_id(42).status, SessionRow.get_by_id(42).tier) == (42, "running", 1)


def test_feed_text_dispatches_markers_of_assistant_text_and_fails_loudly(make_claudeops_app, make_session, feed_text):
    noting = Noting()
    make_claudeops_app(plugins=[noting])
    session = make_session()
    feed_text(session, "Checked.\n[NOTED] disk at 40 %\n[NOTED] fans fine")
    assert noting.noted == ["disk at 40 %", "fans fine"] and session.markers_recorded == 2
    with pytest.raises(PluginError, match="marker NOTED handler failed: RuntimeError: cannot note"):
        feed_text(session, "[NOTED] boom")


def test_invoke_cli_runs_the_command_line_against_the_app(make_claudeops_app, invoke_cli):
    make_claudeops_app(plugins=[Noting()])
    result = invoke_cli("plugins", "--json")
    assert result.exit_code == 0
    assert [plugin["source"] for plugin in json.loads(result.output)] == ["built-in", "built-in", "registered (Noting)"]
