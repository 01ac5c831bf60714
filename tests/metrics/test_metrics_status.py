"""``GET /api/v1/status`` (issue 17, item 6): a small JSON for gethomepage.dev's custom API widget — the last
run, its status and age, the services down, the items waiting for review."""

from __future__ import annotations

from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from claudeops import hookimpl
from claudeops.runner.chain import RunRequest, run_chain
from claudeops.runner.script import ScriptTransport


def status(client) -> dict[str, Any]:
    response = client.get("/api/v1/status")
    assert response.status_code == 200
    return response.json()


def test_an_empty_install_says_nothing_ran_yet(claudeops_app, dashboard):
    assert status(dashboard(claudeops_app)) == {
        "last_run": None, "services_up": 0, "services_degraded": 0, "services_down": 0, "down": [], "degraded": [],
        "items_to_review": 0}


def test_the_last_run_its_status_and_age_and_the_services(replayed_series, dashboard):
    body = status(dashboard(replayed_series))
    last = body["last_run"]
    assert (last["status"], last["tier"], last["trigger"]) == ("failed", 1, "scheduled")
    assert last["ended_at"] and last["age_seconds"] >= 0
    statuses = replayed_series.hook.service_statuses()
    assert body["services_degraded"] == sum(1 for item in statuses if item.status == "degraded")
    assert "nextcloud" in body["degraded"] and body["down"] == []


def test_items_to_review_counts_the_memory_review_queue(claudeops_app, claudeops_clock, dashboard):
    for text in ("[MEMORY:timing:jellyfin] needs 60s to start after a restart",
                 "[MEMORY:timing:jellyfin] needs 90s to start after a restart (replaces #1)"):
        transport = ScriptTransport([text])
        run_chain(claudeops_app, RunRequest(tier=1, clock=claudeops_clock,
                                            transport_factory=lambda _tier, script=transport: script))
        claudeops_clock.advance(minutes=30)
    client = dashboard(claudeops_app)
    assert status(client)["items_to_review"] == 1
    families = text_string_to_metric_families(client.get("/metrics").text)
    gauges = {sample.labels["why"]: sample.value for family in families if family.name == "claudeops_review_items"
              for sample in family.samples}
    assert gauges == {"contradiction": 0, "replacement": 1, "unsure": 0, "sync conflict": 0, "duplicates": 0}


def test_items_to_review_is_what_a_plugin_reports(make_claudeops_app, dashboard):
    class ReviewQueue:
        @hookimpl
        def collect_metrics(self):
            from prometheus_client.core import GaugeMetricFamily

            family = GaugeMetricFamily("claudeops_review_items", "Items waiting in the review queue", labels=["why"])
            family.add_metric(["contradiction"], 2)
            family.add_metric(["unsure"], 1)
            return [family]

    body = status(dashboard(make_claudeops_app(plugins=[ReviewQueue()])))
    assert body["items_to_review"] == 3
