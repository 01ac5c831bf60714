"""``claudeops init``: a config, an inventory and the starter runbooks that load as written."""

from __future__ import annotations

from claudeops.app import App


def load(directory):
    return App.load(str(directory / "config.toml"), {"CLAUDEOPS_STATE_DIR": str(directory / "state")},
                    entry_points=False)


def test_init_from_flags_writes_files_claudeops_loads(invoke_cli, tmp_path):
    target = tmp_path / "etc"
    result = invoke_cli("init", str(target), "--service", "jellyfin:container", "--service", "dns:systemd",
                        "--service", "nas:vm@admin@nas.lan", "--yes")
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"wrote {target / 'config.toml'}, {target / 'services.toml'} (3 services)")
    config = load(target).config
    assert [(service.name, service.kind, service.host) for service in config.inventory] == [
        ("jellyfin", "container", "local"), ("dns", "systemd", "local"), ("nas", "vm", "admin@nas.lan")]
    assert config.path_setting("ops_dir") == target / "ops"
    assert (target / "ops" / "playbooks" / "restart-container.md").is_file()
    assert not (target / "ops" / "services.toml").exists()


def test_init_asks_for_the_services_one_at_a_time(invoke_cli, tmp_path):
    answers = "postgres\ncontainer\nlocal\n\nnextcloud\ncontainer\nlocal\nhttps://cloud.example.net/status.php\n" \
              "postgres\n\n"
    result = invoke_cli("init", str(tmp_path), "--no-ops", input=answers)
    assert result.exit_code == 0, result.output
    inventory = load(tmp_path).config.inventory
    assert inventory.names == ["postgres", "nextcloud"]
    assert inventory.get("nextcloud").after == ("postgres",)
    assert not (tmp_path / "ops").exists()


def test_init_refuses_to_overwrite_without_force(invoke_cli, tmp_path):
    (tmp_path / "config.toml").write_text("# mine\n")
    result = invoke_cli("init", str(tmp_path), "--yes")
    assert result.exit_code == 2 and "config.toml exists; pass --force to overwrite it" in result.output
    assert (tmp_path / "config.toml").read_text() == "# mine\n"
    assert invoke_cli("init", str(tmp_path), "--yes", "--force").exit_code == 0


def test_a_bad_service_flag_is_a_usage_error(invoke_cli, tmp_path):
    result = invoke_cli("init", str(tmp_path), "--service", "web:docker")
    assert result.exit_code == 2 and "kind must be one of container, systemd, vm, external" in result.output


def test_a_refused_inventory_writes_nothing_and_the_next_try_needs_no_force(invoke_cli, tmp_path):
    target = tmp_path / "s3"
    result = invoke_cli("init", str(target), "--service", "a:container@-oProxyCommand=x", "--yes")
    assert result.exit_code == 2
    assert (f"nothing written: {target / 'services.toml'}: 'services.a.host' must be \"local\" or an ssh target"
            in result.output)
    assert len(result.output.strip().splitlines()) == 1
    assert not target.exists()
    result = invoke_cli("init", str(target), "--service", "a:container@nas.lan", "--yes")
    assert result.exit_code == 0 and "(1 service)" in result.output, result.output


def test_init_writes_a_dotted_service_name_as_a_quoted_key(invoke_cli, tmp_path):
    result = invoke_cli("init", str(tmp_path), "--service", "home.assistant:container", "--no-ops", "--yes")
    assert result.exit_code == 0, result.output
    assert '[services."home.assistant"]' in (tmp_path / "services.toml").read_text()
    assert load(tmp_path).config.inventory.names == ["home.assistant"]
