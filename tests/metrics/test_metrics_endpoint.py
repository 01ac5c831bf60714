"""``/metrics`` (issue 17, item 6): it parses with prometheus_client's own parser, and after a series of
replays every number matches the database; behind the dashboard's token when one is set."""

from __future__ import annotations

from collections import Counter

import pytest
from prometheus_client.parser import text_string_to_metric_families

from claudeops import db, from_timestamp, hookimpl
from claudeops.runner.chain import RunRequest, run_chain
from claudeops.runner.script import ScriptTransport
from claudeops.session_rows import SessionRow

TOKEN = "metrics-token-0123456789abcdef"


def scrape(client) -> dict[str, dict[tuple, float]]:
    """``family sample name → {labels as sorted tuples: value}``, parsed by prometheus_client."""
    response = client.get("/metrics")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain; version=0.0.4")
    samples: dict[str, dict[tuple, float]] = {}
    for family in text_string_to_metric_families(response.text):
        for sample in family.samples:
            samples.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return samples


def sql(statement: str) -> list[tuple]:
    return list(db.execute_sql(statement).fetchall())


def test_sessions_by_tier_and_status_match_the_table(replayed_series, dashboard):
    metrics = scrape(dashboard(replayed_series))
    expected = {(("status", status), ("tier", str(tier))): count
                for tier, status, count in sql("SELECT tier, status, COUNT(*) FROM sessions GROUP BY tier, status")}
    assert metrics["claudeops_sessions"] == expected
    assert expected[(("status", "escalated"), ("tier", "1"))] == 3
    assert expected[(("status", "failed"), ("tier", "1"))] == 1


def test_duration_and_cost_histograms_match_the_table(replayed_series, dashboard):
    metrics = scrape(dashboard(replayed_series))
    for tier, count, total in sql("SELECT tier, COUNT(*), SUM(duration_ms) FROM sessions "
                                  "WHERE duration_ms IS NOT NULL GROUP BY tier"):
        labels = (("tier", str(tier)),)
        assert metrics["claudeops_session_duration_seconds_count"][labels] == count
        assert metrics["claudeops_session_duration_seconds_sum"][labels] == pytest.approx(total / 1000)
        assert metrics["claudeops_session_duration_seconds_bucket"][(("le", "+Inf"), *labels)] == count
    for tier, count, total in sql("SELECT tier, COUNT(*), SUM(cost_usd) FROM sessions WHERE cost_usd IS NOT NULL "
                                  "GROUP BY tier"):
        labels = (("replayed", "true"), ("tier", str(tier)))
        assert metrics["claudeops_session_cost_usd_count"][labels] == count
        assert metrics["claudeops_session_cost_usd_sum"][labels] == pytest.approx(total)
    cheap = sum(1 for (cost,) in sql("SELECT cost_usd FROM sessions WHERE tier = 1 AND cost_usd IS NOT NULL")
                if cost <= 0.05)
    assert metrics["claudeops_session_cost_usd_bucket"][(("le", "0.05"), ("replayed", "true"), ("tier", "1"))] == cheap


def test_markers_by_type_match_what_the_sessions_recorded(replayed_series, dashboard):
    metrics = scrape(dashboard(replayed_series))
    assert metrics["claudeops_markers_total"] == {
        (("type", "EVENT"),): 2 + 3 * (1 + 1) + 1,  # healthy 2; per chain: tier 1 critical, tier 2 warning; 1 info
        (("type", "MEMORY"),): 2 + 3 * 1,  # the grafana memory of the last one is in tool output: not a marker
        (("type", "ESCALATE"),): 3,
        (("type", "COOLDOWN"),): 2,  # the third chain's restart was refused: its record claims nothing, not counted
    }
    recorded = sql("SELECT SUM(count) FROM marker_counts")[0][0]
    assert recorded == sum(metrics["claudeops_markers_total"].values())


def test_memories_events_refusals_and_notifications_match_their_tables(replayed_series, dashboard):
    metrics = scrape(dashboard(replayed_series))
    memories = {(("category", category), ("state", "active" if active else "inactive")): count
                for active, category, count in sql("SELECT active, category, COUNT(*) FROM memories "
                                                   "GROUP BY active, category")}
    assert metrics["claudeops_memories"] == memories
    events = dict(sql("SELECT level, COUNT(*) FROM events GROUP BY level"))
    assert metrics["claudeops_events_total"] == {(("level", level),): events.get(level, 0)
                                                 for level in ("info", "warning", "critical")}
    assert metrics["claudeops_cooldown_refusals_total"] == {(("action", "restart"),): 1}
    assert sql("SELECT COUNT(*) FROM cooldown_refusals") == [(1,)]
    notifications = {(("kind", kind), ("outcome", outcome)): count for outcome, kind, count in
                     sql("SELECT outcome, kind, COUNT(*) FROM notifications GROUP BY outcome, kind")}
    assert metrics["claudeops_notifications_total"] == notifications
    assert (("kind", "session"), ("outcome", "failed")) in notifications  # the failed session's, not delivered


def test_last_success_services_and_spend(replayed_series, dashboard):
    metrics = scrape(dashboard(replayed_series))
    for tier, ended_at in sql("SELECT tier, MAX(ended_at) FROM sessions WHERE status IN ('completed', 'escalated') "
                              "GROUP BY tier"):
        assert metrics["claudeops_last_success_timestamp_seconds"][(("tier", str(tier)),)] == (
            from_timestamp(ended_at).timestamp())
    statuses = replayed_series.hook.service_statuses()
    counts = Counter(status.status for status in statuses)
    assert metrics["claudeops_services"] == {(("status", state),): counts[state] for state in ("up", "degraded",
                                                                                            "down")}
    assert metrics["claudeops_service_status"] == {(("service", status.service), ("status", status.status)): 1
                                                   for status in statuses}
    assert metrics["claudeops_service_status"][(("service", "nextcloud"), ("status", "degraded"))] == 1
    assert metrics["claudeops_spend_usd"] == {(("period", "day"),): 0.0, (("period", "month"),): 0.0}  # replays


def test_a_plugin_that_fails_to_report_leaves_the_others_figures(make_claudeops_app, dashboard):
    class Broken:
        @hookimpl
        def collect_metrics(self):
            raise RuntimeError("table gone")

    app = make_claudeops_app(plugins=[Broken()])
    run_chain(app, RunRequest(tier=1, transport_factory=lambda _tier: ScriptTransport(["[EVENT:info:caddy] ok"])))
    metrics = scrape(dashboard(app))
    assert metrics["claudeops_sessions"] == {(("status", "completed"), ("tier", "1")): 1}
    assert metrics["claudeops_events_total"][(("level", "info"),)] == 1


def test_metrics_need_the_token_when_one_is_set(make_claudeops_app, dashboard):
    client = dashboard(make_claudeops_app({"CLAUDEOPS_WEB_TOKEN": TOKEN}))
    assert client.get("/metrics").status_code == 401
    assert client.get("/api/v1/status").status_code == 401
    response = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 200 and "claudeops_sessions" in response.text


def test_sessions_counted_match_the_table_after_more_runs(replayed_series, dashboard, claudeops_clock):
    client = dashboard(replayed_series)
    before = scrape(client)["claudeops_sessions"]
    run_chain(replayed_series, RunRequest(tier=3, clock=claudeops_clock,
                                          transport_factory=lambda _tier: ScriptTransport(["fixed"])))
    after = scrape(client)["claudeops_sessions"]
    assert Counter(after) != Counter(before)
    assert after[(("status", "completed"), ("tier", "3"))] == SessionRow.select().where(
        (SessionRow.tier == 3) & (SessionRow.status == "completed")).count()
