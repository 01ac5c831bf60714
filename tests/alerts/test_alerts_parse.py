"""Each sender's shape becomes alerts with a fingerprint, the services it names and a brief, by code."""

from __future__ import annotations

import pytest
from alert_payloads import body
from claudeops_alerts.parse import AlertPayloadError, parse_alerts


def test_alertmanager_names_the_service_by_its_job_label(app):
    (alert,) = parse_alerts(body("alertmanager"), app.config.inventory)
    assert (alert.source, alert.fingerprint, alert.status, alert.services, alert.severity) == (
        "alertmanager", "alertmanager:c1b2a3d4e5f60718", "firing", ("jellyfin",), "critical")
    assert alert.brief == ("[firing] alertmanager: JellyfinDown (jellyfin; critical): Jellyfin is not answering on "
                           "8096")


def test_grafana_is_recognised_by_its_own_fields(app):
    (alert,) = parse_alerts(body("grafana"), app.config.inventory)
    assert (alert.source, alert.name, alert.services, alert.severity) == ("grafana", "Disk full", ("postgres",),
                                                                           "warning")


def test_uptime_kuma_maps_the_monitor_to_the_inventory_and_its_heartbeat_to_a_status(app):
    (down,) = parse_alerts(body("uptime-kuma"), app.config.inventory)
    assert (down.fingerprint, down.status, down.services) == ("uptime-kuma:3", "firing", ("nextcloud",))
    up = body("uptime-kuma")
    up["heartbeat"]["status"] = 1
    assert parse_alerts(up, app.config.inventory)[0].status == "resolved"


def test_uptime_kumas_test_button_is_a_test(app):
    (alert,) = parse_alerts({"msg": "Uptime Kuma test notification", "heartbeat": None, "monitor": None},
                            app.config.inventory)
    assert alert.status == "test"


def test_a_generic_alert_needs_only_a_name(app):
    (alert,) = parse_alerts(body("generic"), app.config.inventory)
    assert (alert.source, alert.services, alert.summary) == ("generic", ("postgres",), "pg_dump exited 1")
    (bare,) = parse_alerts({"title": "something broke"}, app.config.inventory)
    assert bare.services == () and bare.fingerprint.startswith("generic:")


def test_a_service_outside_the_inventory_is_kept_by_its_name(app):
    (alert,) = parse_alerts({"name": "x", "service": "Grafana"}, app.config.inventory)
    assert alert.services == ("grafana",)


@pytest.mark.parametrize(("payload", "message"), [
    ([1, 2], "an alert is a JSON object"),
    ({"severity": "critical"}, 'a generic alert needs a "name"'),
    ({"alerts": ["nope"]}, r"alerts\[0\] is not an object"),
    ({"alerts": [{"labels": {}}] * 201}, "201 alerts in one request; at most 200"),
])
def test_a_body_that_is_no_alert_says_what_is_expected(app, payload, message):
    with pytest.raises(AlertPayloadError, match=message):
        parse_alerts(payload, app.config.inventory)


def test_a_brief_is_one_bounded_line(app):
    long = body("generic") | {"message": "line\n" * 500}
    (alert,) = parse_alerts(long, app.config.inventory)
    assert "\n" not in alert.brief and len(alert.brief) <= 300
