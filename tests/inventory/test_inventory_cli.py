"""``claudeops services`` and ``claudeops pause/unpause/pauses`` against the inventory of the conftest."""

from __future__ import annotations

import json

from claudeops.exit_codes import EXIT_USAGE


def test_services_list_shows_every_service_in_dependency_order_with_its_status(app, make_session, feed_text,
                                                                               invoke_cli):
    feed_text(make_session(), "[EVENT:critical:nextcloud] HTTP 502\n[EVENT:info:typo-svc] fine")
    result = invoke_cli("services", "list")
    assert result.exit_code == 0, result.output
    header, *lines = result.output.splitlines()
    assert header.split() == ["SERVICE", "STATUS", "SINCE", "RUNS", "AS", "NOTES"]
    assert [line.split()[0] for line in lines] == ["postgres", "nextcloud", "jellyfin", "nas", "typo-svc"]
    for column in ("STATUS", "SINCE", "RUNS AS", "NOTES"):  # every row's cell starts under its heading
        start = header.index(column)
        assert all(line[start - 2:start] == "  " and line[start] != " " for line in lines[:4]
                   if len(line) > start), column  # (a row without notes ends before NOTES)
    assert "down" in lines[1] and "2026-05-05T12:00:00Z" in lines[1] and "after postgres" in lines[1]
    assert len(lines[1]) > header.index("NOTES")
    assert "unknown" in lines[0] and "no remediation" in lines[3]
    assert "NOT IN THE INVENTORY (named by events)" in lines[4]


def test_a_paused_service_is_in_maintenance_since_its_pause_began_not_its_last_finding(app, make_session, feed_text,
                                                                                     invoke_cli):
    feed_text(make_session(), "[EVENT:critical:jellyfin] down")  # a finding at the fake clock's 2026-05-05 12:00
    assert invoke_cli("pause", "jellyfin", "--for", "2h").exit_code == 0
    (pause,) = json.loads(invoke_cli("pauses", "--json").output)
    row = next(row for row in json.loads(invoke_cli("services", "list", "--json").output) if row["name"] == "jellyfin")
    assert row["maintenance"]["since"] == pause["since"] != "2026-05-05T12:00:00Z"
    line = next(line for line in invoke_cli("services", "list").output.splitlines() if line.startswith("jellyfin"))
    assert f"maintenance  {pause['since']}" in line and "2026-05-05T12:00:00Z" not in line


def test_services_list_as_json_carries_the_inventory_and_the_status(app, invoke_cli):
    rows = json.loads(invoke_cli("services", "list", "--json").output)
    jellyfin = next(row for row in rows if row["name"] == "jellyfin")
    assert (jellyfin["kind"], jellyfin["runtime_name"], jellyfin["host"], jellyfin["status"]) == (
        "systemd", "jellyfin.service", "media.lan", "unknown")


def test_services_show_names_what_depends_on_a_service(app, invoke_cli):
    data = json.loads(invoke_cli("services", "show", "postgres", "--json").output)
    assert data["needed_by"] == ["nextcloud"] and data["maintenance_windows"] == ["0 3 * * sun 2h"]
    assert invoke_cli("services", "show", "postgres-16").exit_code == 0  # by its container name


def test_services_show_of_an_unknown_name_is_a_usage_error(app, invoke_cli):
    result = invoke_cli("services", "show", "nope")
    assert result.exit_code == EXIT_USAGE


def test_pause_then_pauses_then_unpause(app, invoke_cli):
    paused = invoke_cli("pause", "jellyfin", "--for", "2h", "--reason", "disk swap")
    assert paused.exit_code == 0 and paused.output.startswith("jellyfin: in maintenance until ")
    listed = invoke_cli("pauses")
    assert "jellyfin: in maintenance until" in listed.output and "(disk swap) [pause]" in listed.output
    assert "maintenance" in invoke_cli("services", "list").output.splitlines()[3]  # a header row, then jellyfin third
    assert invoke_cli("unpause", "jellyfin").output == "ended the pause of jellyfin\n"
    assert invoke_cli("pauses").output == "No service is in maintenance.\n"


def test_a_global_pause_and_its_end(app, invoke_cli):
    assert invoke_cli("pause", "--all", "--for", "30m").output.startswith("every service: in maintenance until")
    assert invoke_cli("unpause", "--all").output == "ended the global pause\n"


def test_pause_refuses_bad_input_with_the_usage_exit_code(app, invoke_cli):
    assert invoke_cli("pause", "jellyfin", "--for", "soon").exit_code == EXIT_USAGE
    assert invoke_cli("pause", "--for", "1h").exit_code == EXIT_USAGE
    assert invoke_cli("pause", "jellyfin", "--all", "--for", "1h").exit_code == EXIT_USAGE
    assert invoke_cli("pause", "web server", "--for", "1h").exit_code == EXIT_USAGE


def test_a_pause_lasts_at_most_a_month_from_the_cli_as_from_the_dashboard(app, invoke_cli):
    """A forgotten pause must end on its own: 30 days pass, 31 are one usage error and no pause."""
    assert invoke_cli("pause", "jellyfin", "--for", "30d").exit_code == 0
    refused = invoke_cli("pause", "nextcloud", "--for", "31d")
    assert refused.exit_code == EXIT_USAGE
    assert "a pause lasts at most 30 days" in refused.output and len(refused.output.strip().splitlines()) == 1
    assert "nextcloud" not in invoke_cli("pauses").output


def test_a_service_outside_the_inventory_can_be_paused_and_is_said_to_be(app, invoke_cli):
    assert "(not in the inventory)" in invoke_cli("pause", "grafana", "--for", "1h").output
