"""``POST /api/v1/alerts`` through the app test client: the bearer token is the only way in, and alerts
that arrive while a run is busy become one run, started by the dashboard's own queue task."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from alert_payloads import body
from claudeops_alerts.models import AlertRow
from litestar.testing import TestClient

from claudeops import db, get_session_dict
from claudeops.runner.lock import RunLock

ALERT_TOKEN = "alert-token-for-tests-0123456789"
WEB_TOKEN = "web-token-for-tests-0123456789ab"
REPLAY = ",".join([sys.executable, "-m", "claudeops", "run", "--replay",
                   str(Path(__file__).resolve().parents[2] / "examples" / "sessions" / "healthy-tier1.jsonl")])


@pytest.fixture
def dashboard(make_claudeops_app, config_file):
    from claudeops_web import create_app

    def make(**environ: str) -> TestClient:
        app = make_claudeops_app({"CLAUDEOPS_CONFIG": str(config_file), "CLAUDEOPS_WEB_RUN_COMMAND": REPLAY,
                                  **environ})
        return TestClient(app=create_app(app), base_url="http://127.0.0.1:8080")

    return make


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def resolved(name: str) -> dict:
    """A body that is recorded but starts no run, for the tests of who may post."""
    payload = body(name)
    if name == "uptime-kuma":
        payload["heartbeat"]["status"] = 1
    else:
        payload["status"] = "resolved"
    return payload


def test_without_any_token_configured_every_alert_is_refused(dashboard):
    with dashboard() as client:
        response = client.post("/api/v1/alerts", json=body("generic"), headers=bearer("anything"))
    assert response.status_code == 401 and "no token is configured" in response.json()["detail"]
    with db.connection_context():
        assert AlertRow.select().count() == 0


def test_an_alert_without_the_token_is_refused(dashboard):
    with dashboard(CLAUDEOPS_WEB_ALERT_TOKEN=ALERT_TOKEN) as client:
        assert client.post("/api/v1/alerts", json=body("generic")).status_code == 401
        assert client.post("/api/v1/alerts", json=body("generic"), headers=bearer("wrong-token-0123456789")
                           ).status_code == 401


def test_the_alert_token_opens_the_webhook_and_nothing_else(dashboard):
    with dashboard(CLAUDEOPS_WEB_ALERT_TOKEN=ALERT_TOKEN, CLAUDEOPS_WEB_TOKEN=WEB_TOKEN) as client:
        response = client.post("/api/v1/alerts", json=resolved("uptime-kuma"), headers=bearer(ALERT_TOKEN))
        assert response.status_code == 202
        assert [(alert["services"], alert["state"]) for alert in response.json()["alerts"]] == [(["nextcloud"],
                                                                                                 "resolved")]
        assert client.get("/api/v1/sessions", headers=bearer(ALERT_TOKEN)).status_code == 401


def test_the_web_token_works_too_and_no_csrf_or_loopback_name_is_needed(dashboard):
    with dashboard(CLAUDEOPS_WEB_TOKEN=WEB_TOKEN) as client:
        response = client.post("/api/v1/alerts", json=resolved("generic"),
                               headers={**bearer(WEB_TOKEN), "Host": "homelab.example:8080"})
    assert response.status_code == 202


def test_a_webhook_from_another_host_name_needs_its_token_even_on_loopback(dashboard):
    with dashboard(CLAUDEOPS_WEB_ALERT_TOKEN=ALERT_TOKEN) as client:
        allowed = client.post("/api/v1/alerts", json=resolved("generic"),
                              headers={**bearer(ALERT_TOKEN), "Host": "monitoring.lan:8080"})
        pages = client.get("/", headers={"Host": "monitoring.lan:8080"})
    assert allowed.status_code == 202 and pages.status_code == 400


def test_a_body_that_is_no_alert_is_a_400(dashboard):
    with dashboard(CLAUDEOPS_WEB_ALERT_TOKEN=ALERT_TOKEN) as client:
        response = client.post("/api/v1/alerts", json={"severity": "critical"}, headers=bearer(ALERT_TOKEN))
    assert response.status_code == 400 and 'needs a "name"' in response.json()["detail"]


def test_three_alerts_while_busy_become_one_queued_run_with_all_three_briefs(dashboard, claudeops_state_dir):
    with dashboard(CLAUDEOPS_WEB_ALERT_TOKEN=ALERT_TOKEN) as client:
        with RunLock(claudeops_state_dir):
            for name in ("alertmanager", "grafana", "uptime-kuma"):
                answer = client.post("/api/v1/alerts", json=body(name), headers=bearer(ALERT_TOKEN))
                assert answer.json()["queued"] == 1
            time.sleep(1.2)  # the queue task looks twice a second; the lock is held
            with db.connection_context():
                assert [row.state for row in AlertRow.select()] == ["queued"] * 3
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with db.connection_context():
                started = {row.session_id for row in AlertRow.select() if row.state == "started"}
            if len(started) == 1 and None not in started:
                break
            time.sleep(0.2)
        (session_id,) = started
        html = client.get(f"/sessions/{session_id}").text
    with db.connection_context():
        assert get_session_dict(session_id)["trigger"] == "alert"
        briefs = [row.brief for row in AlertRow.select().order_by(AlertRow.id)]
    assert "Alerts that started this session" in html
    for brief in briefs:
        assert brief in html.replace("&#34;", '"').replace("&#39;", "'")
