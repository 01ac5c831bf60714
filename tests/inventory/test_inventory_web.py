"""The Services pages, the overview's status board and the pause buttons, through the app test client."""

from __future__ import annotations

import re

from claudeops import is_paused


def status_cells(html: str) -> dict[str, str]:
    """Service → the status its cell shows, from the status board rows."""
    return dict(re.findall(r'<tr data-service="([^"]+)">\s*<td class="status"><span class="status-cell status-\w+" '
                           r'data-status="(\w+)"', html))


def test_the_overview_has_a_status_cell_per_service_and_says_what_is_wrong(app, make_session, feed_text, dashboard):
    feed_text(make_session(), "[EVENT:critical:nextcloud] HTTP 502 twice\n[EVENT:warning:jellyfin] slow\n"
                              "[EVENT:info:postgres] accepting connections")
    html = dashboard.get("/").text
    assert status_cells(html) == {"postgres": "up", "nextcloud": "down", "jellyfin": "degraded", "nas": "unknown"}
    assert '<p class="headline bad" data-headline>1 service down, 1 degraded</p>' in html


def test_a_service_only_events_named_is_flagged_as_not_in_the_inventory(app, make_session, feed_text, dashboard):
    feed_text(make_session(), "[EVENT:critical:nextclod] down")
    html = dashboard.get("/services").text
    assert re.search(r'href="/services/nextclod">nextclod</a> <span class="stranger"[^>]*>not in the inventory', html)


def test_the_pause_button_puts_a_service_in_maintenance(app, dashboard):
    response = dashboard.post("/pauses", data={"service": "jellyfin", "for": "2h", "reason": "disk swap"},
                              follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (303, "/services/jellyfin")
    assert is_paused(app.config, "jellyfin") is not None
    page = dashboard.get("/services/jellyfin").text
    assert 'data-status="maintenance"' in page and "(disk swap)" in page and "End the maintenance of jellyfin" in page
    assert 'data-status="maintenance">maintenance <small>since just now</small>' in page  # the pause's start
    dashboard.post("/pauses/end", data={"service": "jellyfin"})
    assert is_paused(app.config, "jellyfin") is None


def test_a_pause_without_the_csrf_token_is_refused(app, dashboard):
    del dashboard.headers["x-csrftoken"]
    assert dashboard.post("/pauses", data={"service": "jellyfin", "for": "2h"}).status_code == 403
    assert is_paused(app.config, "jellyfin") is None


def test_a_bad_duration_is_a_400_saying_how_to_write_one(app, dashboard):
    response = dashboard.post("/api/v1/pauses", json={"duration": "forever", "service": "jellyfin"})
    assert response.status_code == 400 and "write it like 30m, 2h" in response.json()["detail"]


def test_the_api_lists_services_and_pauses_them(app, dashboard):
    assert [row["name"] for row in dashboard.get("/api/v1/services").json()] == ["postgres", "nextcloud", "jellyfin",
                                                                                 "nas"]
    created = dashboard.post("/api/v1/pauses", json={"duration": "30m", "reason": "switch swap"})
    assert created.status_code == 201 and created.json()["service"] == "*"
    assert dashboard.get("/api/v1/services/nas").json()["maintenance"]["reason"] == "switch swap"
    assert dashboard.delete("/api/v1/pauses").json() == {"ended": 1}


def test_a_service_page_shows_how_it_runs_and_what_needs_it(app, dashboard):
    html = dashboard.get("/services/postgres").text
    assert "<code>postgres-16</code>" in html and 'href="/services/nextcloud">nextcloud</a>' in html
    assert "<code>0 3 * * sun 2h</code>" in html and 'name="service" value="postgres"' in html
    assert dashboard.get("/services/nope").status_code == 404


def test_events_memories_and_cooldowns_link_services_and_flag_the_unknown(app, make_session, feed_text, dashboard,
                                                                         make_claudeops_app, config_file):
    feed_text(make_session(), "[EVENT:warning:jellyfin.service] slow\n[EVENT:info:jelyfin] typo")
    html = dashboard.get("/events").text
    assert '<a href="/services/jellyfin">jellyfin.service</a></td>' in html
    assert ('<a href="/services/jelyfin">jelyfin</a> <span class="stranger" title="not declared in the service '
            'inventory">not in the inventory</span>') in html


def test_without_an_inventory_nothing_is_flagged(make_claudeops_app, make_session, feed_text):
    from claudeops_web import create_app
    from litestar.testing import TestClient

    app = make_claudeops_app({"CLAUDEOPS_CONFIG": ""})
    feed_text(make_session(app=app), "[EVENT:info:anything] fine", app=app)
    with TestClient(app=create_app(app), base_url="http://127.0.0.1:8080") as client:
        assert "not in the inventory" not in client.get("/events").text
