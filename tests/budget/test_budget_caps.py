"""Spend caps across runs (issue 17, item 7): sessions against the fake Messages API cross a tiny cap;
the next run and the next tier of a chain are refused with one line, exit 77, an event and a notification."""

from __future__ import annotations

import asyncio

import pytest
from claudeops_budget.spend import usd
from claudeops_events.repository import list_events
from fake_api import text

from claudeops import FakeClock
from claudeops.exit_codes import EXIT_REFUSED
from claudeops.runner.chain import RunRequest, run_chain, run_session_chain
from claudeops.runner.script import ScriptTransport
from claudeops.session_rows import SessionRow, spend_since

pytestmark = pytest.mark.e2e


def test_the_run_after_the_cap_is_crossed_is_refused(claudeops_app, fake_api, http_receiver):
    fake_api.script(text("[EVENT:info:caddy] fine"))
    [first] = run_chain(claudeops_app, RunRequest(tier=1, escalate=False))
    assert first.status == "completed" and first.cost_usd > 0.00001
    result = asyncio.run(run_session_chain(claudeops_app, RunRequest(tier=1, escalate=False)))
    assert result.sessions == [] and result.exit_code == EXIT_REFUSED
    assert result.refused.startswith(f"tier 1 not started: daily spend cap reached: {usd(first.cost_usd)} spent since ")
    assert result.refused.endswith(" local time (budget.daily_usd = $0.000010)")
    assert SessionRow.select().count() == 1 and len(fake_api.messages()) == 1
    [event] = [event for event in list_events() if event.message.startswith("tier 1 not started")]
    assert (event.level, event.session_id) == ("warning", None)  # and the notify plugin saw its kind:
    [message] = [body for body in http_receiver.json_bodies("/alerts") if body["title"].startswith("claudeops refused")]
    assert "daily spend cap reached" in message["message"]


def test_the_next_tier_of_a_chain_is_refused_once_the_first_crossed_the_cap(claudeops_app, fake_api):
    fake_api.script(text("[EVENT:critical:jellyfin] down\n[ESCALATE] jellyfin needs a restart"))
    result = asyncio.run(run_session_chain(claudeops_app, RunRequest(tier=1)))
    [parent] = result.sessions
    assert parent.status == "completed" and parent.escalation_requested == "jellyfin needs a restart"
    assert parent.escalation_note.startswith("tier 2 not started: daily spend cap reached")
    assert result.exit_code == EXIT_REFUSED and len(fake_api.messages()) == 1
    assert any(event.message.startswith("tier 2 not started") and event.session_id == parent.session_id
               for event in list_events())


def test_the_cli_prints_one_line_and_exits_77(claudeops_app, fake_api, invoke_cli):
    fake_api.script(text("fine"))
    [first] = run_chain(claudeops_app, RunRequest(tier=1, escalate=False))
    result = invoke_cli("run", "--tier", "1")
    assert result.exit_code == EXIT_REFUSED == 77
    assert result.stderr.startswith(f"claudeops: tier 1 not started: daily spend cap reached: {usd(first.cost_usd)}")
    assert len(result.stderr.splitlines()) == 1


def test_replays_cost_nothing_and_are_never_refused(claudeops_app):
    def recording(_tier: int) -> ScriptTransport:
        return ScriptTransport(["ok"], cost_usd=2.5)

    for _ in range(3):
        [report] = run_chain(claudeops_app, RunRequest(tier=1, escalate=False, trigger="replay",
                                                       transport_factory=recording))
        assert report.status == "completed" and report.cost_usd == 2.5
    assert spend_since("2000-01-01T00:00:00Z") == 0.0


def test_the_day_is_the_local_calendar_day(make_claudeops_app, fake_api, monkeypatch):
    """Spent at 23:30 local counts for that day only: at 00:10 the next day a run may start again."""
    import time
    from datetime import UTC, datetime

    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    try:
        app = make_claudeops_app()
        clock = FakeClock(datetime(2026, 3, 10, 22, 30, tzinfo=UTC))  # 23:30 in Berlin
        fake_api.script(text("fine"), text("fine again"))
        run_chain(app, RunRequest(tier=1, escalate=False, clock=clock))
        clock.advance(minutes=40)  # 00:10 on the 11th in Berlin
        [report] = run_chain(app, RunRequest(tier=1, escalate=False, clock=clock))
        assert report.status == "completed"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_doctor_shows_the_running_totals(claudeops_app, fake_api, invoke_cli):
    fake_api.script(text("fine"))
    [first] = run_chain(claudeops_app, RunRequest(tier=1, escalate=False))
    spent = usd(first.cost_usd)
    line = next(line for line in invoke_cli("doctor").output.splitlines() if " budget:" in line)
    assert line == (f"warn budget: spent {spent} of $0.000010 today, {spent} (no cap) this month; runs are refused "
                    "until the period ends")


def test_the_monthly_cap_holds_across_days_and_ends_with_the_calendar_month(make_claudeops_app, fake_api):
    """Spent on the 20th still counts on the 30th; on the 1st of the next month a run may start again."""
    from datetime import UTC, datetime

    app = make_claudeops_app({"CLAUDEOPS_BUDGET_DAILY_USD": "0", "CLAUDEOPS_BUDGET_MONTHLY_USD": "0.00001"})
    clock = FakeClock(datetime(2026, 4, 20, 12, 0, tzinfo=UTC))
    fake_api.script(text("fine"), text("a new month"))
    [first] = run_chain(app, RunRequest(tier=1, escalate=False, clock=clock))
    clock.advance(days=9)  # 29 April (in every time zone): another day, the same month

    refused = asyncio.run(run_session_chain(app, RunRequest(tier=1, escalate=False, clock=clock)))

    assert refused.exit_code == EXIT_REFUSED and refused.sessions == []
    assert refused.refused.startswith(f"tier 1 not started: monthly spend cap reached: {usd(first.cost_usd)} spent ")
    assert refused.refused.endswith("(budget.monthly_usd = $0.000010)")
    clock.advance(days=2)  # 1 May (in every time zone)
    [report] = run_chain(app, RunRequest(tier=1, escalate=False, clock=clock))
    assert report.status == "completed" and len(fake_api.messages()) == 2
