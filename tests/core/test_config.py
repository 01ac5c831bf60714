"""Configuration: precedence, types, unknown keys and where each value came from."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from claudeops.app import App
from claudeops.config import ConfigError

CORE_ONLY = ("claudeops.environment", "claudeops.escalation")


def load(environ: dict[str, str] | None = None, config_path: str | None = None) -> App:
    return App.load(config_path, environ or {}, entry_points=False, builtins=CORE_ONLY)


def write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "claudeops.toml"
    path.write_text(text)
    return path


def test_built_in_defaults_apply_without_a_config_file():
    app = load()
    assert app.config.tier(1).model == "haiku"
    assert app.config.tier(2).model == "sonnet"
    assert app.config.tier(3).model == "opus"
    assert app.config.sources["tier1.model"] == "default"
    assert app.config.raw.path is None


def test_file_overrides_default(tmp_path):
    path = write_config(tmp_path, '[tier1]\nmodel = "sonnet"\nmax_turns = 12\n')
    app = load(config_path=str(path))
    assert (app.config.tier(1).model, app.config.tier(1).max_turns) == ("sonnet", 12)
    assert app.config.sources["tier1.model"] == f"file {path}"


def test_environment_overrides_file(tmp_path):
    path = write_config(tmp_path, '[tier1]\nmodel = "sonnet"\n')
    app = load({"CLAUDEOPS_TIER1_MODEL": "opus", "CLAUDEOPS_CONFIG": str(path)})
    assert app.config.tier(1).model == "opus"
    assert app.config.sources["tier1.model"] == "env CLAUDEOPS_TIER1_MODEL"


def test_flag_overrides_environment(tmp_path):
    app = load({"CLAUDEOPS_TIER1_MAX_TURNS": "7"})
    app.config.override("tier1.max_turns", "9")
    assert app.config.tier(1).max_turns == 9
    assert app.config.sources["tier1.max_turns"] == "flag"


def test_config_flag_wins_over_claudeops_config_variable(tmp_path):
    chosen = write_config(tmp_path, "max_tier = 2\n")
    other = tmp_path / "other.toml"
    other.write_text("max_tier = 1\n")
    app = load({"CLAUDEOPS_CONFIG": str(other)}, config_path=str(chosen))
    assert app.config.core.max_tier == 2


def test_config_toml_in_the_working_directory_is_used(tmp_path):
    Path("config.toml").write_text("dry_run = true\n")
    assert load().config.core.dry_run is True


def test_unknown_key_is_a_one_line_error_naming_key_and_file(tmp_path):
    path = write_config(tmp_path, "[tier1]\nmodle = 'x'\n")
    with pytest.raises(ConfigError) as error:
        load(config_path=str(path))
    assert str(error.value) == f"{path}: unknown key 'tier1.modle'"


def test_wrong_type_is_a_one_line_error_naming_key_and_file(tmp_path):
    path = write_config(tmp_path, "[tier2]\nmax_turns = 'many'\n")
    with pytest.raises(ConfigError, match=r"claudeops.toml: 'tier2.max_turns' must be an integer, not 'many'$"):
        load(config_path=str(path))


def test_boolean_is_not_accepted_as_integer(tmp_path):
    path = write_config(tmp_path, "max_tier = true\n")
    with pytest.raises(ConfigError, match="'max_tier' must be an integer"):
        load(config_path=str(path))


def test_unknown_section_is_an_error(tmp_path):
    path = write_config(tmp_path, "[nonsense]\na = 1\n")
    with pytest.raises(ConfigError, match=r"unknown section \[nonsense\]"):
        load(config_path=str(path))


def test_invalid_toml_is_a_one_line_error(tmp_path):
    path = write_config(tmp_path, "max_tier = = 3\n")
    with pytest.raises(ConfigError, match="invalid TOML") as error:
        load(config_path=str(path))
    assert "\n" not in str(error.value)


def test_missing_config_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load(config_path=str(tmp_path / "absent.toml"))


def test_bad_environment_value_names_the_variable():
    with pytest.raises(ConfigError, match="CLAUDEOPS_DRY_RUN must be true or false, not 'maybe'"):
        load({"CLAUDEOPS_DRY_RUN": "maybe"})


def test_list_settings_come_from_comma_separated_environment():
    app = load({"CLAUDEOPS_TIER1_ALLOWED_TOOLS": "Bash, Read"})
    assert app.config.tier(1).allowed_tools == ["Bash", "Read"]


def test_state_dir_defaults_to_xdg_state_home(tmp_path):
    app = load({})
    assert app.config.state_dir == tmp_path / "xdg-state" / "claudeops"
    assert app.config.database_url == f"sqlite:///{tmp_path / 'xdg-state' / 'claudeops' / 'claudeops.db'}"


def test_claudeops_state_dir_sets_state_dir_and_database_file(tmp_path):
    app = load({"CLAUDEOPS_STATE_DIR": str(tmp_path / "s")})
    assert app.config.database_url == f"sqlite:///{tmp_path / 's' / 'claudeops.db'}"


def test_claudeops_database_url_selects_another_database(tmp_path):
    app = load({"CLAUDEOPS_DATABASE_URL": "postgresql://ops:secret@db/claudeops"})
    assert app.config.database_url == "postgresql://ops:secret@db/claudeops"


def test_shipped_config_toml_documents_every_setting_at_its_default():
    from claudeops.config_template import render_config_template

    app = App.load(None, {}, entry_points=False)
    shipped = Path(__file__).resolve().parents[2] / "config.toml"
    assert shipped.read_text() == render_config_template(app.config), "regenerate with `claudeops config init`"
    loaded = App.load(str(shipped), {}, entry_points=False)
    assert loaded.config.sections == app.config.sections


@pytest.mark.parametrize(("text", "message"), [
    ("max_tier = 4\n", "'max_tier' must be 1, 2 or 3, not 4"),
    ('log_level = "verbose"\n', "'log_level' must be debug or info or warning or error, not 'verbose'"),
    ('[tier2]\npermission_mode = "yolo"\n', "'tier2.permission_mode' must be default, acceptEdits"),
    ("[tier3]\nmax_turns = 0\n", "'tier3.max_turns' must be a positive integer, not 0"),
    ("[tier1]\ntimeout_seconds = -5\n", "'tier1.timeout_seconds' must be 0 (no limit) or more, not -5.0"),
    ('[tier1]\nmodel = ""\n', "'tier1.model' must be a model alias or name without blanks, not ''"),
    ('[tier2]\nmodel = "  "\n', "'tier2.model' must be a model alias or name without blanks, not '  '"),
    ('[tier3]\nprompt = ""\n', "'tier3.prompt' must be a prompt file name or path, not ''"),
    ('setting_sources = ["projects"]\n', "'setting_sources' must be a list of user, project, local, not ['projects']"),
])
def test_out_of_range_value_is_a_one_line_error_naming_key_and_file(tmp_path, text, message):
    path = write_config(tmp_path, text)
    with pytest.raises(ConfigError, match=re.escape(f"file {path}: {message}")):
        load(config_path=str(path))


def test_out_of_range_environment_value_names_the_variable():
    with pytest.raises(ConfigError, match=re.escape("env CLAUDEOPS_MAX_TIER: 'max_tier' must be 1, 2 or 3, not 0")):
        load({"CLAUDEOPS_MAX_TIER": "0"})


def test_sections_of_built_ins_that_are_not_loaded_are_left_alone(tmp_path):
    path = write_config(tmp_path, "[memory]\nbudget_tokens = 100\n[web]\nport = 9000\n")
    app = load(config_path=str(path))  # only the core built-ins: no memory or web plugin
    assert "memory" not in app.config.sections and "web" not in app.config.sections


def test_unknown_variable_of_a_section_is_a_logged_warning_with_a_hint(caplog):
    app = load({"CLAUDEOPS_TIER1_MODLE": "opus", "CLAUDEOPS_PLUGINS_BOGUS": "1", "CLAUDEOPS_CONFIG_NOTE": "x",
                "CLAUDEOPS_TEST_POSTGRES_URL": "postgresql://db/test", "CLAUDEOPS_MEMORY_BUDGET": "1"})
    assert app.config.warnings == [
        "environment: CLAUDEOPS_PLUGINS_BOGUS is not a setting of [plugins], ignored",
        "environment: CLAUDEOPS_TIER1_MODLE is not a setting of [tier1], ignored (did you mean CLAUDEOPS_TIER1_MODEL?)",
    ]
    assert app.config.warnings == [record.message for record in caplog.records if record.levelname == "WARNING"]
    assert app.config.tier(1).model == "haiku"


def test_variables_of_every_setting_and_alias_raise_no_warning():
    environ = {"CLAUDEOPS_DISABLE_PLUGINS": "x", "CLAUDEOPS_PLUGINS_STRICT": "1", "CLAUDEOPS_TIER3_MAX_BUDGET_USD": "1"}
    assert load(environ).config.warnings == []
