"""A queued alert past the spend cap (audit of issues 16 item 4 × 17 item 7): the real ``claudeops run``
the queue starts is refused (exit 77) once; the alerts stay queued, held, with the reason on
/alerts; the queue asks again without starting a run (no second event, no run log) and starts
the run as soon as the cap's period has changed."""

from __future__ import annotations

import pytest
from alert_payloads import body
from claudeops_alerts import queue
from claudeops_alerts.models import AlertRow
from claudeops_alerts.parse import parse_alerts
from claudeops_events.repository import list_events
from fake_api import text

from claudeops import START_REFUSED, db, now_timestamp, spend_since
from claudeops.session_rows import SessionRow, start_session_row

pytestmark = pytest.mark.e2e

CONFIG = """\
[services.jellyfin]
kind = "container"

[budget]
daily_usd = 0.001
"""


@pytest.fixture
def claudeops_builtins() -> tuple[str, ...]:
    return ("claudeops.environment", "claudeops.escalation", "claudeops_events", "claudeops_inventory",
            "claudeops_alerts", "claudeops_budget", "claudeops_web")


@pytest.fixture
def config_text() -> str:
    return CONFIG


def spent_today(cost: float) -> SessionRow:
    row = start_session_row(1, "haiku", "scheduled", None, now_timestamp())
    SessionRow.update(status="completed", cost_usd=cost).where(SessionRow.id == row.id).execute()
    return row


def refusals() -> list[str]:
    return [event.message for event in list_events() if event.kind == START_REFUSED]


def test_an_alert_past_the_cap_is_held_refused_once_and_runs_when_the_day_changes(app, fake_api):
    spent = spent_today(0.002)
    queue.receive(app.config, parse_alerts(body("alertmanager"), app.config.inventory))
    logs = app.state_dir / "run-logs"

    with pytest.raises(queue.Held) as held:
        queue.dispatch_queued(app.config, app.hook)
    assert held.value.first and "daily spend cap reached" in held.value.reason
    (alert,) = AlertRow.select()
    assert alert.state == "queued" and alert.held == held.value.reason
    assert len(refusals()) == 1 and SessionRow.select().count() == 1
    assert not list(logs.glob("*.log"))

    for _ in range(3):  # what the dashboard's task does every minute: ask, start nothing, record nothing
        with pytest.raises(queue.Held) as again:
            queue.dispatch_queued(app.config, app.hook)
        assert not again.value.first
    assert len(refusals()) == 1 and SessionRow.select().count() == 1 and not list(logs.glob("*.log"))

    SessionRow.update(started_at="2000-01-01T00:00:00Z").where(SessionRow.id == spent.id).execute()  # a new day
    assert spend_since(now_timestamp()[:10] + "T00:00:00Z") == 0
    fake_api.script(text("[EVENT:info:jellyfin] fine"))
    session_id = queue.dispatch_queued(app.config, app.hook)
    assert session_id is not None
    alert = AlertRow.get_by_id(alert.id)
    assert (alert.state, alert.session_id, alert.held) == ("started", session_id, None)


def test_alerts_shows_why_a_queued_alert_is_held(app):
    from claudeops_web import create_app
    from litestar.testing import TestClient

    queue.receive(app.config, parse_alerts(body("generic"), app.config.inventory))
    with db.connection_context():
        AlertRow.update(held="tier 1 not started: daily spend cap reached: $0.0020 spent").execute()
    # no lifespan: the dashboard's queue task would start a run for the alert (no cap is set here)
    html = TestClient(app=create_app(app), base_url="http://127.0.0.1:8080").get("/alerts").text
    assert "held: tier 1 not started: daily spend cap reached: $0.0020 spent (starts when that lifts)" in html
