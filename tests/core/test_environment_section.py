"""The environment section generated from the inventory: its text (a snapshot), dependency order,
maintenance, the operator's runbooks, and the token budget it keeps."""

from __future__ import annotations

import platform
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from claudeops import pause_service
from claudeops.clock import FakeClock
from claudeops.default_plugins.environment import render_environment
from claudeops.token_estimate import estimate_tokens

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_OPS = REPO / "examples" / "ops"
SNAPSHOT = Path(__file__).parent / "snapshots" / "environment-section.md"
SUNDAY_3AM = datetime(2026, 5, 3, 3, 10, tzinfo=UTC)


@pytest.fixture
def claudeops_clock() -> FakeClock:
    return FakeClock(moment=datetime(2026, 5, 5, 12, 0, tzinfo=UTC))


@pytest.fixture(autouse=True)
def fixed_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "node", lambda: "runner-host")


def app_with(make_claudeops_app, tmp_path, text, **environ):
    config = tmp_path / "config.toml"
    config.write_text(text)
    return make_claudeops_app({"CLAUDEOPS_CONFIG": str(config), **environ})


@pytest.fixture
def example_app(make_claudeops_app, tmp_path):
    return app_with(make_claudeops_app, tmp_path, f'services_file = "{EXAMPLE_OPS / "services.toml"}"\n'
                                                  f'ops_dir = "{EXAMPLE_OPS}"\n')


def test_the_section_of_the_example_inventory_matches_the_snapshot(example_app, make_session):
    text = render_environment(make_session(tier=2, model="sonnet", app=example_app))
    rendered = text.replace(str(EXAMPLE_OPS), "<ops>")
    if not SNAPSHOT.exists():  # first run writes it; review it like code
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(rendered + "\n")
    assert rendered + "\n" == SNAPSHOT.read_text()


def test_dependencies_come_first_and_shared_causes_are_named(example_app, make_session):
    text = render_environment(make_session(app=example_app))
    order = [text.index(f"**{name}**") for name in ("wireguard", "postgres", "nextcloud")]
    assert order == sorted(order)
    assert ("Shared causes: wireguard (needed by postgres, nextcloud); postgres (needed by nextcloud). "
            "When several services fail together, check these first.") in text


def test_a_paused_service_is_said_to_be_in_maintenance(example_app, make_session, claudeops_clock):
    pause_service("jellyfin", claudeops_clock() + timedelta(hours=2), "disk swap", "cli", now=claudeops_clock())
    text = render_environment(make_session(app=example_app))
    assert ("**jellyfin**: container; health http://127.0.0.1:8096/health → 200; notes: Takes about a minute to "
            "start after a restart; IN MAINTENANCE until 2026-05-05T14:00:00Z (disk swap): do not act on it; "
            "failures are expected, report them as info") in text


def test_an_inventory_window_is_maintenance_while_it_is_open(example_app, make_session):
    text = render_environment(make_session(app=example_app, clock=FakeClock(moment=SUNDAY_3AM)))
    assert "IN MAINTENANCE until 2026-05-03T04:00:00Z (window 0 3 * * sun 1h)" in text


def test_playbooks_are_listed_with_the_tier_they_need(example_app, make_session):
    text = render_environment(make_session(app=example_app))
    assert f"- Overview, read it first: {EXAMPLE_OPS / 'CLAUDEOPS.md'}" in text
    assert "  - restart-container (tier 2): Restart a container that is down, unhealthy or hung" in text
    assert "  - redeploy-compose-service (tier 3): Redeploy one Docker Compose service (pull, recreate)" in text
    assert "  - tls: Check a TLS certificate: valid, for the right name, not about to expire" in text


def big_inventory(count: int) -> str:
    tables = []
    for number in range(count):
        after = f'after = ["svc{number - 1:03}"]\n' if number else ""
        tables.append(f'[services.svc{number:03}]\nkind = "container"\nhealth_url = "http://10.0.0.{number % 250}:80'
                      f'80/health"\n{after}notes = "{"a long note about this service " * 4}"\n')
    return "\n".join(tables)


@pytest.mark.parametrize("count", [5, 40, 400])
def test_the_section_stays_within_its_token_budget(make_claudeops_app, make_session, tmp_path, count):
    app = app_with(make_claudeops_app, tmp_path, big_inventory(count) + '[services.nas]\nkind = "vm"\n'
                   'remediate = false\n', CLAUDEOPS_ENVIRONMENT_BUDGET_TOKENS="1000")
    text = render_environment(make_session(app=app))
    assert estimate_tokens(text) <= 1000
    assert "**nas**: virtual machine; tiers 2 and 3 may look but never act on it" in text  # never cut
    if count == 5:
        assert "notes: a long note" in text
    else:
        assert "notes:" not in text


def test_a_cut_inventory_keeps_every_paused_service_and_names_the_rest(make_claudeops_app, make_session, tmp_path,
                                                                       claudeops_clock):
    app = app_with(make_claudeops_app, tmp_path, big_inventory(120), CLAUDEOPS_ENVIRONMENT_BUDGET_TOKENS="1000")
    pause_service("svc119", claudeops_clock() + timedelta(hours=1), "", "cli", now=claudeops_clock())
    text = render_environment(make_session(app=app))
    assert estimate_tokens(text) <= 1000
    assert "**svc119**: container; after svc118; IN MAINTENANCE" in text
    assert "**svc000**" in text and "more, by name: " in text


def test_without_an_inventory_the_bare_service_list_still_works(make_claudeops_app, make_session):
    app = make_claudeops_app({"CLAUDEOPS_ENVIRONMENT_SERVICES": "jellyfin,nextcloud"})
    assert "- Services in scope: jellyfin, nextcloud" in render_environment(make_session(app=app))


def test_a_global_pause_is_said_before_every_service(example_app, make_session, claudeops_clock):
    pause_service(None, claudeops_clock() + timedelta(minutes=30), "network work", "cli", now=claudeops_clock())
    text = render_environment(make_session(app=example_app))
    assert "- EVERY SERVICE IS IN MAINTENANCE until 2026-05-05T12:30:00Z (network work)" in text
