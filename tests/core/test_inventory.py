"""The service inventory as configuration: where it is read from, what is refused (one line each),
and the dependency order the prompt and every listing follow."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from claudeops.app import App
from claudeops.config import ConfigError
from claudeops.exit_codes import EXIT_USAGE
from claudeops.plugins import DEFAULT_PLUGINS


def load(tmp_path: Path, text: str, environ: dict[str, str] | None = None, name: str = "config.toml") -> App:
    path = tmp_path / name
    path.write_text(text)
    return App.load(str(path), {"CLAUDEOPS_STATE_DIR": str(tmp_path / "state"), **(environ or {})},
                    entry_points=False, builtins=DEFAULT_PLUGINS)


def error_of(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as raised:
        load(tmp_path, text)
    message = str(raised.value)
    assert "\n" not in message
    return message.replace(str(tmp_path / "config.toml"), "config.toml")


def test_services_tables_in_config_toml_are_the_inventory(tmp_path):
    app = load(tmp_path, """
[services.postgres]
kind = "container"
container = "postgres-16"
notes = "Shared   database;\\n backups at 03:00"

[services.Nextcloud]
kind = "container"
health_url = "https://cloud.example.net/status.php"
after = ["postgres"]
remediate = false
""")
    inventory = app.config.inventory
    assert inventory.names == ["postgres", "nextcloud"]
    postgres, nextcloud = inventory
    assert (postgres.runtime_name, postgres.notes, postgres.remediate) == ("postgres-16", "Shared database; backups "
                                                                                          "at 03:00", True)
    assert (nextcloud.after, nextcloud.expected_status, nextcloud.remediate) == (("postgres",), 200, False)
    assert inventory.named_by("postgres-16") is postgres
    assert "NEXTCLOUD" in inventory and "jellyfin" not in inventory


def test_a_services_file_is_read_relative_to_the_config_file(tmp_path):
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "services.toml").write_text('[services.dns]\nkind = "systemd"\nunit = "unbound.service"\n')
    app = load(tmp_path, 'services_file = "etc/services.toml"\n')
    (dns,) = app.config.inventory
    assert (dns.kind, dns.runtime_name, app.config.inventory.source) == ("systemd", "unbound.service",
                                                                         str(tmp_path / "etc" / "services.toml"))
    assert app.config.inventory.named_by("unbound") is dns


def test_services_are_ordered_after_what_they_depend_on(tmp_path):
    app = load(tmp_path, """
[services.immich]
kind = "container"
after = ["postgres", "redis"]
[services.caddy]
kind = "container"
after = ["wireguard"]
[services.redis]
kind = "container"
[services.postgres]
kind = "container"
after = ["wireguard"]
[services.wireguard]
kind = "systemd"
""")
    inventory = app.config.inventory
    assert inventory.names == ["redis", "wireguard", "caddy", "postgres", "immich"]
    assert inventory.shared_causes() == [("wireguard", ["caddy", "postgres", "immich"]), ("redis", ["immich"]),
                                         ("postgres", ["immich"])]


def test_no_inventory_is_an_empty_one_that_knows_every_name(tmp_path):
    inventory = load(tmp_path, "").config.inventory
    assert (len(inventory), inventory.knows("anything")) == (0, True)


@pytest.mark.parametrize(("text", "message"), [
    ('[services.web]\nhost = "nas"\n', "config.toml: [services.web] needs kind = one of container, systemd, vm, "
                                       "external"),
    ('[services.web]\nkind = "docker"\n', "config.toml: 'services.web.kind' must be one of container, systemd, "
                                          "vm, external, not 'docker'"),
    ('[services.web]\nkind = "vm"\nhelth_url = "http://x"\n', "config.toml: unknown key 'services.web.helth_url' "
                                                              "(did you mean health_url?)"),
    ('[services.web]\nkind = "vm"\nhost = "-oProxyCommand=evil"\n',
     "config.toml: 'services.web.host' must be \"local\" or an ssh target (host, user@host, user@host:port), "
     "not '-oProxyCommand=evil'"),
    ('[services.web]\nkind = "vm"\nhealth_url = "ftp://x"\n',
     "config.toml: 'services.web.health_url' must be an http:// or https:// URL, not 'ftp://x'"),
    ('[services.web]\nkind = "vm"\nexpected_status = 42\n',
     "config.toml: 'services.web.expected_status' must be an HTTP status code (100-599), not 42"),
    ('[services.web]\nkind = "systemd"\ncontainer = "web"\n',
     "config.toml: 'services.web.container' must be set only for kind = \"container\" (this service is systemd), "
     "not 'web'"),
    ('[services.web]\nkind = "vm"\nafter = ["dbs"]\n[services.db]\nkind = "vm"\n',
     "config.toml: 'services.web.after' names 'dbs', which is not in the inventory (did you mean db?)"),
    ('[services.a]\nkind = "vm"\nafter = ["b"]\n[services.b]\nkind = "vm"\nafter = ["c"]\n[services.c]\n'
     'kind = "vm"\nafter = ["a"]\n', "config.toml: services depend on each other in a circle: a → b → c → a"),
    ('[services.a]\nkind = "vm"\nafter = ["a"]\n', "config.toml: 'services.a.after' names the service itself"),
    ('[services."web server"]\nkind = "vm"\n', "config.toml: [services.web server]: invalid service name "
                                               "'web server' (use letters, digits, '_', '-' and '.', at most 100 "
                                               "characters)"),
    ('[services.home.assistant]\nkind = "vm"\n', "config.toml: unknown key 'services.home.assistant' (a name "
                                                 'with a dot is quoted: [services."home.assistant"])'),
    ('[services.Web]\nkind = "vm"\n[services.web]\nkind = "vm"\n',
     "config.toml: [services.Web] and [services.web] name the same service"),
    ('[services.web]\nkind = "vm"\nmaintenance = ["0 3 * * sun"]\n',
     "config.toml: 'services.web.maintenance': '0 3 * * sun' is not a maintenance window: write five cron fields, "
     "a duration and optionally a time zone, like '0 3 * * sun 2h' or '30 1 1 * * 4h Europe/Berlin'"),
    ('[services.web]\nkind = "vm"\nmaintenance = ["0 25 * * * 2h"]\n',
     "config.toml: 'services.web.maintenance': '0 25 * * * 2h': '0 25 * * *' is not a cron expression (Bad hour)"),
    ('[services.web]\nkind = "vm"\nremediate = "no"\n', "config.toml: 'services.web.remediate' must be true or false, "
                                                        "not 'no'"),
    ('services = ["web"]\n', "config.toml: 'services' must be a table of [services.NAME] tables"),
])
def test_a_broken_inventory_is_one_line_naming_the_key(tmp_path, text, message):
    assert error_of(tmp_path, text) == message


def test_services_in_both_places_are_refused(tmp_path):
    (tmp_path / "services.toml").write_text('[services.a]\nkind = "vm"\n')
    message = error_of(tmp_path, 'services_file = "services.toml"\n[services.b]\nkind = "vm"\n')
    assert message == (f"config.toml: services are declared both in [services] tables here and in services_file "
                       f"{tmp_path / 'services.toml'}; keep them in one place")


def test_a_missing_services_file_and_a_foreign_key_in_it_are_refused(tmp_path):
    assert error_of(tmp_path, 'services_file = "nope.toml"\n') == f"services_file: {tmp_path / 'nope.toml'} not found"
    (tmp_path / "services.toml").write_text('[jellyfin]\nkind = "container"\n')
    assert error_of(tmp_path, 'services_file = "services.toml"\n') == (
        f"{tmp_path / 'services.toml'}: unknown key 'jellyfin' (a services file holds [services.NAME] tables)")



def test_a_services_file_that_is_not_utf8_or_nested_too_deep_is_one_line(tmp_path):
    """The services file is read like the config file: bytes and nesting give one line, not a traceback."""
    services = tmp_path / "services.toml"
    services.write_bytes(b'[services.jellyfin]\nkind = "container"\nnotes = "caf\xe9"\n')
    assert error_of(tmp_path, 'services_file = "services.toml"\n') == (
        f"{services}: not UTF-8 text (byte 0xe9 at offset 51); save the file as UTF-8")
    services.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert error_of(tmp_path, 'services_file = "services.toml"\n') == (
        f"{services}: invalid TOML: tables or arrays nested too deeply")

def test_a_bad_global_maintenance_window_is_refused(tmp_path):
    assert error_of(tmp_path, 'maintenance_windows = ["0 3 * * sun 9d"]\n') == (
        "file config.toml: 'maintenance_windows': '0 3 * * sun 9d': a window lasts at most 7 days (pause the "
        "service for longer ones)")


def test_the_command_line_stops_with_the_usage_exit_code(tmp_path):
    (tmp_path / "config.toml").write_text('[services.web]\nkind = "docker"\n')
    result = subprocess.run([sys.executable, "-m", "claudeops", "--config", str(tmp_path / "config.toml"), "sessions",
                             "list"], capture_output=True, text=True, env={"CLAUDEOPS_STATE_DIR": str(tmp_path)},
                            cwd=tmp_path, check=False)
    assert result.returncode == EXIT_USAGE
    assert result.stderr == (f"claudeops: error: {tmp_path / 'config.toml'}: 'services.web.kind' must be one of "
                             "container, systemd, vm, external, not 'docker'\n")
