"""A cooldown record that claims a restart the tool gate refused in the same session is not counted (issue 13).

The recorded tier-2 session restarts nextcloud-app and records ``[COOLDOWN:restart:nextcloud-app]
success``. Replayed three times within the 4-hour window, the third restart is refused (two
already count); its record must not count, or the service shows 3/2, its window end moves and the
dashboard lists a restart that never happened as "ok".
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from claudeops_cooldowns.repository import list_actions, service_cooldown
from claudeops_cooldowns.settings import CooldownSettings, rules_from
from litestar.testing import TestClient

from claudeops.clock import FakeClock, utc_now
from claudeops.plugins import DEFAULT_PLUGINS
from claudeops.runner.chain import RunRequest, run_chain
from claudeops.runner.script import bash

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sessions" / "escalated-tier2.jsonl"
RESTART = rules_from(CooldownSettings())["restart"]


@pytest.fixture
def claudeops_builtins() -> tuple[str, ...]:
    return DEFAULT_PLUGINS  # the dashboard too, for its /cooldowns page


@pytest.fixture
def claudeops_clock() -> FakeClock:
    return FakeClock(moment=utc_now())  # ``claudeops cooldowns`` and the page count back from the real time


def replay_tier_2(app, clock):
    [report] = run_chain(app, RunRequest.replaying([EXAMPLE], tier=2, escalate=False, clock=clock))
    return report


def until(clock) -> str | None:
    return service_cooldown("nextcloud-app", "restart", RESTART, clock()).until


def test_a_restart_refused_by_the_cooldowns_is_not_counted_when_its_record_claims_it(app, clock, invoke_cli):
    first = replay_tier_2(app, clock)
    clock.advance(minutes=20)
    second = replay_tier_2(app, clock)
    window_end = until(clock)
    clock.advance(minutes=20)
    third = replay_tier_2(app, clock)

    assert (first.tools_denied, second.tools_denied, third.tools_denied) == (0, 0, 1)
    assert [action.session_id for action in list_actions()] == [second.session_id, first.session_id]
    messages = [event.message for event in third.events]
    assert any(message.startswith("cooldown blocked restart of nextcloud-app (2/2 in 4 h") for message in messages)
    assert ("cooldown record not counted: the restart of nextcloud-app it claims was refused in this session "
            "(docker restart nextcloud-app)") in messages
    assert third.markers_recorded == first.markers_recorded - 1
    assert until(clock) == window_end

    assert "nextcloud-app: 2/2 restarts in the last 4 h, IN COOLDOWN" in invoke_cli("cooldowns").output
    with TestClient(app=_dashboard(app), base_url="http://127.0.0.1:8080") as client:
        page = client.get("/cooldowns").text
    rows = re.findall(r'<td data-label="Result">(.*?)</td>', page)
    assert rows == ["ok", "ok"]


def test_as_many_records_count_as_restarts_ran_in_the_session(app, clock, run_scripted_session):
    """One restart ran and one was refused: of the two records, one counts."""
    run_scripted_session([bash("docker restart plex", "plex"), "[COOLDOWN:restart:plex] success — one"], tier=2,
                         escalate=False)
    report = run_scripted_session([
        bash("docker restart plex", "plex"), "[COOLDOWN:restart:plex] success — two",
        bash("docker restart plex", "plex"), "[COOLDOWN:restart:plex] success — three"], tier=2, escalate=False)
    assert report.tools_denied == 1
    assert [action.message for action in list_actions()] == ["two", "one"]
    assert report.events[-1].message.startswith("cooldown record not counted: the restart of plex")


def test_a_record_of_an_action_the_patterns_do_not_know_still_counts(app, clock, run_scripted_session):
    run_scripted_session([bash("curl -X POST http://portainer.lan/api/restart/plex", "ok"),
                          "[COOLDOWN:restart:plex] success — through the portainer API"], tier=2, escalate=False)
    assert [action.service for action in list_actions()] == ["plex"]


def _dashboard(app):
    from claudeops_web import create_app

    return create_app(app)
