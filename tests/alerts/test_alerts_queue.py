"""What becomes of an alert: queued, a repeat, resolved, in maintenance; the tier its rules give;
one run for every queued alert once the lock is free."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from alert_payloads import body
from claudeops_alerts import queue
from claudeops_alerts.models import AlertRow
from claudeops_alerts.parse import parse_alerts

from claudeops import get_session_dict, pause_service
from claudeops.runner.lock import RunLock

NOW = datetime(2026, 5, 5, 12, 0, tzinfo=UTC)
REPLAY = [sys.executable, "-m", "claudeops", "run", "--replay",
          str(Path(__file__).resolve().parents[2] / "examples" / "sessions" / "healthy-tier1.jsonl")]


def receive(app, name, now=NOW, **changes):
    payload = body(name) | changes
    return queue.receive(app.config, parse_alerts(payload, app.config.inventory), now)


def test_the_same_fingerprint_is_a_repeat_while_queued_and_within_the_window(app):
    assert [row.state for row in receive(app, "alertmanager")] == ["queued"]
    assert [row.state for row in receive(app, "alertmanager", NOW + timedelta(minutes=1))] == ["repeat"]
    AlertRow.update(state="started", session_id=1).where(AlertRow.state == "queued").execute()
    assert [row.state for row in receive(app, "alertmanager", NOW + timedelta(minutes=29))] == ["repeat"]
    assert [row.state for row in receive(app, "alertmanager", NOW + timedelta(minutes=31))] == ["queued"]


def test_resolutions_tests_and_paused_services_start_no_run(app):
    assert [row.state for row in receive(app, "alertmanager", status="resolved", alerts=[
        body("alertmanager")["alerts"][0] | {"status": "resolved"}])] == ["resolved"]
    pause_service("postgres", NOW + timedelta(hours=1), "backup", "cli", now=NOW)
    assert [row.state for row in receive(app, "generic")] == ["maintenance"]


def test_rules_choose_the_tier_and_max_tier_caps_it(make_claudeops_app, config_file):
    app = make_claudeops_app({"CLAUDEOPS_CONFIG": str(config_file), "CLAUDEOPS_ALERTS_RULES":
                              "severity=critical:2,service=post*:3", "CLAUDEOPS_MAX_TIER": "2"})
    assert [row.tier for row in receive(app, "alertmanager")] == [2]
    assert [row.tier for row in receive(app, "grafana")] == [2]  # rule says 3, max_tier is 2
    assert [row.tier for row in receive(app, "uptime-kuma", monitor={"id": 9, "name": "Nextcloud"},
                                        heartbeat={"status": 0, "msg": "down"})] == [2]


def test_a_bad_rule_is_a_configuration_error(make_claudeops_app, config_file):
    from claudeops import ConfigError

    try:
        make_claudeops_app({"CLAUDEOPS_CONFIG": str(config_file), "CLAUDEOPS_ALERTS_RULES": "critical=2"})
    except ConfigError as exc:
        assert "'alerts.rules' must be KEY=VALUE:TIER rules" in str(exc) and "'critical=2'" in str(exc)
    else:
        raise AssertionError("a bad rule was accepted")


def test_queued_alerts_wait_for_the_lock_then_start_one_run_with_every_brief(app):
    receive(app, "alertmanager")
    receive(app, "grafana")
    receive(app, "uptime-kuma")
    with RunLock(app.state_dir):
        assert queue.dispatch_queued(app.config, app.hook, REPLAY) is None
    assert AlertRow.select().where(AlertRow.state == "queued").count() == 3
    session_id = queue.dispatch_queued(app.config, app.hook, REPLAY)
    assert session_id is not None
    rows = list(AlertRow.select())
    assert {(row.state, row.session_id) for row in rows} == {("started", session_id)}
    row = get_session_dict(session_id)
    assert (row["trigger"], row["trigger_source"]) == ("alert", "alertmanager+grafana+uptime-kuma")
    assert queue.dispatch_queued(app.config, app.hook, REPLAY) is None  # nothing left to run


def test_a_dashboard_that_stopped_mid_start_puts_its_alerts_back(app):
    receive(app, "alertmanager")
    AlertRow.update(state="starting").execute()
    assert queue.recover_unstarted() == 1
    assert AlertRow.get().state == "queued"


def test_a_run_that_cannot_start_leaves_the_alerts_queued(app):
    import pytest

    from claudeops import LaunchError

    receive(app, "generic")
    broken = [sys.executable, "-c", "import sys; sys.stderr.write('claudeops: error: no credentials\\n'); sys.exit(2)"]
    with pytest.raises(LaunchError, match="no credentials"):
        queue.dispatch_queued(app.config, app.hook, broken)
    assert [row.state for row in AlertRow.select()] == ["queued"]


def test_a_flood_of_alerts_quotes_at_most_max_briefs_and_counts_the_rest(make_claudeops_app, config_file, tmp_path):
    app = make_claudeops_app({"CLAUDEOPS_CONFIG": str(config_file), "CLAUDEOPS_ALERTS_MAX_BRIEFS": "2"})
    for number, service in enumerate(["jellyfin", "nextcloud", "postgres", "jellyfin", "nextcloud"]):
        payload = body("generic") | {"name": f"alert {number}", "service": service}
        queue.receive(app.config, parse_alerts(payload, app.config.inventory), NOW)
    argv = tmp_path / "argv.json"
    run = [sys.executable, "-c", f"import json, sys; open({str(argv)!r}, 'w').write(json.dumps(sys.argv[1:])); "
                                 "print('session 4242', flush=True)"]
    assert queue.dispatch_queued(app.config, app.hook, run) == 4242
    words = json.loads(argv.read_text())
    quoted = [words[index + 1] for index, word in enumerate(words) if word == "--alert"]
    briefs = [row.brief for row in AlertRow.select().order_by(AlertRow.id)]
    assert quoted[:2] == briefs[:2] and len(quoted) == 3
    assert quoted[2] == ("(and 3 more alerts not quoted here, alerts.max_briefs = 2; services named: jellyfin, "
                         "nextcloud, postgres; all are listed on the dashboard's /alerts page)")
    assert {(row.state, row.session_id) for row in AlertRow.select()} == {("started", 4242)}  # none dropped


def test_max_briefs_is_bounded(make_claudeops_app, config_file):
    import pytest

    from claudeops import ConfigError

    with pytest.raises(ConfigError, match=r"alerts\.max_briefs"):
        make_claudeops_app({"CLAUDEOPS_CONFIG": str(config_file), "CLAUDEOPS_ALERTS_MAX_BRIEFS": "0"})
