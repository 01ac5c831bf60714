"""The dead-man's switch (issue 17, item 5): a run pings start, then success or fail with its reason,
following Healthchecks.io's conventions; a dead receiver slows a run by at most its timeout."""

from __future__ import annotations

import time
import uuid

import pytest
from claudeops_health import after_run, before_run
from fake_api import error, text

from claudeops import Run, RunOutcome
from claudeops.exit_codes import EXIT_FAILED, EXIT_OK
from claudeops.runner.chain import RunRequest, run_chain, run_session_chain
from claudeops.runner.script import ScriptTransport

CHECK = "/ping/2f5c7a10-check"


def pings(receiver) -> list[tuple[str, str, str]]:
    """(method, path, body) of every ping, in the order they arrived."""
    return [(request.method, request.path.split("?")[0], request.body) for request in receiver.requests()]


@pytest.mark.e2e
def test_a_real_run_pings_start_then_success(claudeops_app, fake_api, http_receiver):
    fake_api.script(text("[EVENT:info:caddy] fine"))
    [report] = run_chain(claudeops_app, RunRequest(tier=1, escalate=False))
    assert report.status == "completed"
    assert pings(http_receiver) == [("GET", f"{CHECK}/start", ""), ("POST", CHECK, "")]
    start, end = http_receiver.requests()
    run_id = start.path.split("rid=")[1]
    assert end.path.endswith(f"?rid={run_id}") and uuid.UUID(run_id)


@pytest.mark.e2e
def test_a_failed_run_pings_fail_with_the_one_line_reason(claudeops_app, fake_api, http_receiver):
    fake_api.script(error(500))
    [report] = run_chain(claudeops_app, RunRequest(tier=1, escalate=False))
    assert report.status == "failed"
    assert pings(http_receiver) == [("GET", f"{CHECK}/start", ""),
                                    ("POST", f"{CHECK}/fail", f"session #{report.session_id} failed: {report.reason}")]


def test_replayed_runs_do_not_ping(claudeops_app, http_receiver):
    run_chain(claudeops_app, RunRequest(tier=1, escalate=False, transport_factory=lambda _: ScriptTransport(["ok"])))
    assert http_receiver.requests() == []


def test_a_refused_start_pings_fail(claudeops_app, http_receiver, register_plugin):
    import asyncio

    from claudeops import hookimpl

    class Cap:
        @hookimpl
        def check_session_start(self) -> str:
            return "daily spend cap reached"

    register_plugin(Cap(), "cap")
    request = RunRequest(tier=1, escalate=False)
    result = asyncio.run(run_session_chain(claudeops_app, request))
    assert result.sessions == []
    assert pings(http_receiver)[-1] == ("POST", f"{CHECK}/fail", "tier 1 not started: daily spend cap reached")


def run_info(claudeops_app) -> Run:
    return Run(str(uuid.uuid4()), 1, "scheduled", False, claudeops_app.config, claudeops_app.hook)


@pytest.mark.parametrize("hung", ["start", "end"])
def test_a_receiver_that_never_answers_delays_a_ping_by_at_most_its_timeout(claudeops_app, http_receiver, hung):
    http_receiver.hang(f"{CHECK}/start" if hung == "start" else f"{CHECK}/fail")
    started = time.monotonic()
    if hung == "start":
        before_run(run=run_info(claudeops_app))
    else:
        after_run(run=run_info(claudeops_app), outcome=RunOutcome(EXIT_FAILED, "session #1 failed: boom"))
    assert 0.9 < time.monotonic() - started < 1.5  # health.timeout_seconds is 1
    assert http_receiver.wait_for(1)


def test_a_receiver_that_is_gone_costs_nothing_and_fails_nothing(make_claudeops_app, caplog):
    app = make_claudeops_app({"CLAUDEOPS_HEALTH_PING_URL": "http://127.0.0.1:9/ping/x"})
    started = time.monotonic()
    [report] = run_chain(app, RunRequest(tier=1, escalate=False, transport_factory=lambda _: ScriptTransport(["ok"])))
    before_run(run=run_info(app))
    assert report.status == "completed" and time.monotonic() - started < 1.5 + 3
    assert "dead-man's switch ping (start) failed: " in caplog.text and "127.0.0.1:9" not in caplog.text


def test_uptime_kuma_push_monitors_get_up_and_down(make_claudeops_app, http_receiver):
    app = make_claudeops_app({"CLAUDEOPS_HEALTH_STYLE": "uptime-kuma",
                              "CLAUDEOPS_HEALTH_PING_URL": http_receiver.base_url + "/api/push/Kx81"})
    before_run(run=run_info(app))
    after_run(run=run_info(app), outcome=RunOutcome(EXIT_OK, None))
    after_run(run=run_info(app), outcome=RunOutcome(EXIT_FAILED, "session #3 failed: API error status 500"))
    assert [request.path for request in http_receiver.requests()] == [
        "/api/push/Kx81?status=up&msg=OK", "/api/push/Kx81?status=down&msg=session+%233+failed%3A+API+error+status+500"]


def test_doctor_says_whether_the_switch_is_set(invoke_cli, make_claudeops_app, ping_url):
    line = next(line for line in invoke_cli("doctor").output.splitlines() if " health:" in line)
    assert line == ("ok   health: every run pings the dead-man's switch (healthchecks: start, success and fail; "
                    "1 s timeout)") and ping_url not in line
    make_claudeops_app({"CLAUDEOPS_HEALTH_PING_URL": ""})
    line = next(line for line in invoke_cli("doctor").output.splitlines() if " health:" in line)
    assert line.startswith("warn health: no health.ping_url: nobody notices if cron stops running claudeops")


def test_a_malformed_ping_url_is_a_logged_warning_without_the_url(make_claudeops_app, caplog):
    app = make_claudeops_app({"CLAUDEOPS_HEALTH_PING_URL": "http://127.0.0.1:notaport-s3cr3t/ping"})
    before_run(run=run_info(app))
    assert "dead-man's switch ping (start) failed: InvalidURL (check health.ping_url)" in caplog.text
    assert "s3cr3t" not in caplog.text
