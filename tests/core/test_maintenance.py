"""Maintenance: an operator's pauses and the inventory's recurring windows, one answer (`is_paused`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from claudeops import is_paused, pause_service, paused_services
from claudeops.maintenance import end_pauses, pauses_in_force
from claudeops.windows import parse_duration, parse_window

SUNDAY_3AM = datetime(2026, 5, 3, 3, 0, tzinfo=UTC)  # a Sunday


@pytest.mark.parametrize(("at", "end"), [
    (SUNDAY_3AM, datetime(2026, 5, 3, 5, 0, tzinfo=UTC)),
    (SUNDAY_3AM + timedelta(minutes=119), datetime(2026, 5, 3, 5, 0, tzinfo=UTC)),
    (SUNDAY_3AM + timedelta(hours=2), None),
    (SUNDAY_3AM - timedelta(seconds=1), None),
    (SUNDAY_3AM + timedelta(days=1), None),
])
def test_a_window_is_open_from_each_cron_start_for_its_duration(at, end):
    assert parse_window("0 3 * * sun 2h").end_if_open(at) == end


def test_a_window_in_a_time_zone_keeps_its_local_hour_across_daylight_saving():
    window = parse_window("0 3 * * sun 1h Europe/Berlin")
    winter, summer = datetime(2026, 1, 4, 2, 30, tzinfo=UTC), datetime(2026, 7, 5, 1, 30, tzinfo=UTC)
    assert window.end_if_open(winter) == datetime(2026, 1, 4, 3, 0, tzinfo=UTC)  # 03:00-04:00 CET
    assert window.end_if_open(summer) == datetime(2026, 7, 5, 2, 0, tzinfo=UTC)  # 03:00-04:00 CEST


@pytest.mark.parametrize(("text", "minutes"), [("30m", 30), ("2h", 120), ("1h30m", 90), ("1d", 1440)])
def test_durations_read_as_written(text, minutes):
    assert parse_duration(text) == timedelta(minutes=minutes)


@pytest.mark.parametrize("text", ["", "2", "h", "0h", "-1h", "2 hours"])
def test_a_bad_duration_says_how_to_write_one(text):
    with pytest.raises(ValueError, match="is not a duration"):
        parse_duration(text)


@pytest.fixture
def inventory_app(make_claudeops_app, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('maintenance_windows = ["0 4 1 * * 30m"]\n'
                      '[services.jellyfin]\nkind = "systemd"\nunit = "jellyfin.service"\n'
                      '[services.postgres]\nkind = "container"\nmaintenance = ["0 3 * * sun 2h"]\n')
    return make_claudeops_app({"CLAUDEOPS_CONFIG": str(config)})


def test_an_operators_pause_lasts_until_its_end_and_covers_the_units_name(inventory_app):
    config = inventory_app.config
    start = datetime(2026, 5, 5, 12, 0, tzinfo=UTC)
    pause_service("jellyfin", start + timedelta(hours=2), "disk swap", "cli", now=start)
    paused = is_paused(config, "jellyfin.service", start + timedelta(hours=1))
    assert paused is not None
    assert paused.describe() == "in maintenance until 2026-05-05T14:00:00Z (disk swap)"
    assert is_paused(config, "jellyfin", start + timedelta(hours=2)) is None
    assert is_paused(config, "postgres", start + timedelta(hours=1)) is None
    assert is_paused(config, None, start + timedelta(hours=1)) is None


def test_ending_a_pause_early_takes_the_service_out_of_maintenance(inventory_app):
    start = datetime(2026, 5, 5, 12, 0, tzinfo=UTC)
    pause_service("jellyfin", start + timedelta(hours=2), "", "dashboard", now=start)
    assert end_pauses("Jellyfin", now=start + timedelta(minutes=5)) == 1
    assert is_paused(inventory_app.config, "jellyfin", start + timedelta(minutes=6)) is None


def test_a_global_pause_puts_every_service_and_the_fleet_in_maintenance(inventory_app):
    config = inventory_app.config
    start = datetime(2026, 5, 5, 12, 0, tzinfo=UTC)
    pause_service(None, start + timedelta(minutes=30), "network work", "cli", now=start)
    for name in ("jellyfin", "postgres", "not-in-inventory", None):
        paused = is_paused(config, name, start + timedelta(minutes=1))
        assert paused is not None and paused.everything


def test_inventory_windows_and_global_windows_count_as_maintenance(inventory_app):
    config = inventory_app.config
    assert is_paused(config, "postgres", SUNDAY_3AM + timedelta(minutes=10)).reason == "window 0 3 * * sun 2h"
    assert is_paused(config, "jellyfin", SUNDAY_3AM + timedelta(minutes=10)) is None
    first_of_month = datetime(2026, 6, 1, 4, 10, tzinfo=UTC)
    assert is_paused(config, "jellyfin", first_of_month).reason == "window 0 4 1 * * 30m"
    assert set(paused_services(config, first_of_month)) == {"*"}
    assert [pause.source for pause in pauses_in_force(config, first_of_month)] == ["window"]


def test_a_pause_must_end_in_the_future_and_name_a_service(inventory_app):
    now = datetime(2026, 5, 5, 12, 0, tzinfo=UTC)
    with pytest.raises(ValueError, match="must end in the future"):
        pause_service("jellyfin", now, "", "cli", now=now)
    with pytest.raises(ValueError, match="invalid service name"):
        pause_service("web server", now + timedelta(hours=1), "", "cli", now=now)
