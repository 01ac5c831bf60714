"""The command line: plugins listing, config show/init, db commands, doctor, bad config."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from claudeops.app import App
from claudeops.cli.group import EXIT_USAGE, build_cli, main
from claudeops.runner.prompts import shipped_prompts_dir

CORE_ONLY = ("claudeops.environment", "claudeops.escalation")


def invoke(*args: str, app: App | None = None, error: str | None = None, env: dict[str, str] | None = None):
    app = app if app is not None or error else App.load(None, env or {}, entry_points=False, builtins=CORE_ONLY)
    return CliRunner().invoke(build_cli(app, error), list(args), env=env, catch_exceptions=False)


def test_help_explains_the_tool_and_lists_commands():
    result = invoke("--help")
    assert result.exit_code == 0
    assert "operational memory" in result.output
    for command in ("run", "plugins", "db", "config", "doctor"):
        assert f"  {command}" in result.output


@pytest.mark.parametrize("command", [["run"], ["plugins"], ["db", "migrate"], ["db", "status"], ["db", "backup"],
                                     ["config", "show"], ["config", "init"], ["doctor"]])
def test_every_core_command_has_help(command):
    result = invoke(*command, "--help")
    assert result.exit_code == 0
    assert len(result.output.splitlines()) >= 3


def test_plugins_lists_built_ins_with_their_hooks():
    result = invoke("plugins")
    assert "claudeops.escalation 0.1.0  [built-in]" in result.output
    assert "hooks: before_session, register_marker_types" in result.output


def test_plugins_json_lists_name_source_version_and_hooks():
    listing = json.loads(invoke("plugins", "--json").output)
    entry = {plugin["name"]: plugin for plugin in listing}["claudeops.environment"]
    assert entry["source"] == "built-in"
    assert "before_session" in entry["hooks"]


def test_config_show_gives_value_and_source_with_secrets_masked(tmp_path):
    env = {"CLAUDEOPS_DATABASE_URL": "postgresql://ops:hunter2@db/claudeops", "CLAUDEOPS_TIER2_MODEL": "opus"}
    app = App.load(None, env, entry_points=False, builtins=CORE_ONLY)
    output = invoke("config", "show", app=app).output
    assert 'database_url = "postgresql://..."    # env CLAUDEOPS_DATABASE_URL' in output  # "db" is no DNS name
    assert 'tier2.model = "opus"    # env CLAUDEOPS_TIER2_MODEL' in output
    assert 'tier1.model = "haiku"    # default' in output
    assert "hunter2" not in output


def test_config_init_writes_a_file_that_loads_back_to_the_defaults(tmp_path):
    target = tmp_path / "config.toml"
    assert invoke("config", "init", str(target)).exit_code == 0
    loaded = App.load(str(target), {}, entry_points=False, builtins=CORE_ONLY)
    assert loaded.config.sections == App.load(None, {}, entry_points=False, builtins=CORE_ONLY).config.sections
    assert "# Highest tier an escalation may reach" in target.read_text()


def test_config_init_onto_an_existing_file_is_a_usage_error_that_keeps_the_file(tmp_path):
    target = tmp_path / "config.toml"
    target.write_text("# my own settings\n")
    result = invoke("config", "init", str(target))
    assert (result.exit_code, result.output) == (EXIT_USAGE, f"Error: {target} exists; pass --force to overwrite it\n")
    assert target.read_text() == "# my own settings\n"


def test_db_migrate_then_status(tmp_path):
    env = {"CLAUDEOPS_STATE_DIR": str(tmp_path / "s")}
    app = App.load(None, env, entry_points=False, builtins=CORE_ONLY)
    assert "applied core/0001_create_sessions" in invoke("db", "migrate", app=app).output
    assert "0 migration(s) applied" in invoke("db", "migrate", app=app).output
    assert "all migrations applied" in invoke("db", "status", app=app).output


def test_db_backup_writes_a_copy(tmp_path):
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(tmp_path / "s")}, entry_points=False, builtins=CORE_ONLY)
    result = invoke("db", "backup", str(tmp_path / "copy.db"), app=app)
    assert result.exit_code == 0 and (tmp_path / "copy.db").stat().st_size > 0


@pytest.mark.parametrize(("where", "message"), [
    ("missing/folder/copy.db", "folder {tmp}/missing/folder does not exist"),
    ("s/claudeops.db", "it is the live database"),
    ("s/claudeops.db-wal", "it is the live database's -wal file"),  # audit: SQLite's companions are live too
    ("s/claudeops.db-shm", "it is the live database's -shm file"),
    ("s/claudeops.db-journal", "it is the live database's -journal file"),
    ("s/../s/claudeops.db-wal", "it is the live database's -wal file"),
])
def test_db_backup_refuses_a_missing_folder_and_the_live_database_itself(tmp_path, where, message):
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(tmp_path / "s")}, entry_points=False, builtins=CORE_ONLY)
    app.open_store()
    before = (tmp_path / "s" / "claudeops.db").read_bytes()
    companion = tmp_path / "s" / "claudeops.db-wal"
    companion_before = companion.read_bytes() if companion.exists() else None
    result = invoke("db", "backup", "--force", str(tmp_path / where), app=app)
    assert result.exit_code == 2
    assert result.output == f"Error: cannot back up to {tmp_path / where}: {message.format(tmp=tmp_path)}\n"
    assert not (tmp_path / "missing").exists()
    assert (tmp_path / "s" / "claudeops.db").read_bytes() == before
    assert (companion.read_bytes() if companion.exists() else None) == companion_before


def test_db_backup_refuses_to_overwrite_a_file_unless_forced(tmp_path):
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(tmp_path / "s")}, entry_points=False, builtins=CORE_ONLY)
    target = tmp_path / "copy.db"
    target.write_text("last week's backup")
    refused = invoke("db", "backup", str(target), app=app)
    assert (refused.exit_code, refused.output) == (2, f"Error: {target} exists; pass --force to overwrite it\n")
    assert target.read_text() == "last week's backup"
    target.unlink()
    assert invoke("db", "backup", str(target), app=app).exit_code == 0
    assert invoke("db", "backup", "--force", str(target), app=app).exit_code == 0


def test_doctor_reports_each_check_and_fails_without_credentials(tmp_path):
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(tmp_path / "s")}, entry_points=False, builtins=CORE_ONLY)
    app.open_store()
    result = invoke("doctor", app=app)
    lines = result.output.splitlines()
    assert [line.split(":")[0] for line in lines] == ["ok   config", "ok   state dir", "ok   disk space",
                                                      "ok   database", "ok   plugins", "ok   prompts", "warn inventory",
                                                      "ok   claude cli", "FAIL credentials"]
    assert result.exit_code == 1


def test_doctor_passes_with_everything_in_place(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(tmp_path / "s")}, entry_points=False, builtins=CORE_ONLY)
    app.open_store()
    result = invoke("doctor", app=app)
    assert result.exit_code == 0, result.output


def test_doctor_reports_unwritable_state_dir(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(blocker / "state")}, entry_points=False, builtins=CORE_ONLY)
    result = invoke("doctor", app=app)
    assert "FAIL state dir" in result.output and result.exit_code == 1


def doctor_line(name: str, settings: dict[str, str], tmp_path: Path) -> tuple[int, str]:
    """``claudeops doctor``'s exit code and its line for the check ``name``, with these settings."""
    environ = {"CLAUDEOPS_STATE_DIR": str(tmp_path / "s"), **settings}
    app = App.load(None, environ, entry_points=False, builtins=CORE_ONLY)
    app.open_store()
    result = invoke("doctor", app=app)
    [line] = [line for line in result.output.splitlines() if line[5:].startswith(f"{name}:")]
    return result.exit_code, line


def test_doctor_shows_an_unknown_variable_as_a_warning_that_does_not_fail(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    environ = {"CLAUDEOPS_STATE_DIR": str(tmp_path / "s"), "CLAUDEOPS_TIER2_MAX_TURN": "9"}
    app = App.load(None, environ, entry_points=False, builtins=CORE_ONLY)
    app.open_store()
    result = invoke("doctor", app=app)
    assert result.output.splitlines()[1] == ("warn config: environment: CLAUDEOPS_TIER2_MAX_TURN is not a setting "
                                             "of [tier2], ignored (did you mean CLAUDEOPS_TIER2_MAX_TURNS?)")
    assert result.exit_code == 0, result.output


def test_doctor_fails_on_a_tier_prompt_that_run_would_refuse(tmp_path):
    assert doctor_line("prompts", {"CLAUDEOPS_TIER2_PROMPT": "nope.md"}, tmp_path) == (
        1, f"FAIL prompts: tier2.prompt: nope.md not found in {shipped_prompts_dir()}")


def test_doctor_fails_on_a_prompts_dir_that_is_not_a_directory(tmp_path):
    missing = tmp_path / "promtps"
    assert doctor_line("prompts", {"CLAUDEOPS_PROMPTS_DIR": str(missing)}, tmp_path) == (
        1, f"FAIL prompts: prompts_dir: {missing} does not exist (set by env CLAUDEOPS_PROMPTS_DIR; "
           "unset it to use the shipped prompts)")


def test_doctor_says_where_each_tiers_prompt_comes_from(tmp_path):
    own = tmp_path / "prompts"
    own.mkdir()
    (own / "tier1-observe.md").write_text("Check the NAS only.")
    settings = {"CLAUDEOPS_PROMPTS_DIR": str(own), "CLAUDEOPS_MAX_TIER": "2"}
    assert doctor_line("prompts", settings, tmp_path)[1] == (
        f"ok   prompts: tier 1 from {own}; tier 2 from {shipped_prompts_dir()}")


def test_doctor_counts_the_inventory_and_warns_of_a_playbook_without_a_tier(tmp_path):
    ops = tmp_path / "ops"
    (ops / "playbooks").mkdir(parents=True)
    (ops / "playbooks" / "reboot.md").write_text("# Reboot the NAS\n\nSteps.\n")
    (tmp_path / "config.toml").write_text(f'ops_dir = "{ops}"\n[services.nas]\nkind = "vm"\n')
    app = App.load(str(tmp_path / "config.toml"), {"CLAUDEOPS_STATE_DIR": str(tmp_path / "s")}, entry_points=False,
                   builtins=CORE_ONLY)
    app.open_store()
    lines = invoke("doctor", app=app).output.splitlines()
    assert f"ok   inventory: 1 service from {tmp_path / 'config.toml'}" in lines
    assert f"ok   ops dir: {ops}: 0 checks, 1 playbook" in lines
    reboot = ops / "playbooks" / "reboot.md"
    assert f"warn ops dir: {reboot}: states no tier (add a line 'Tier: 2' or 'Tier: 3')" in lines


def test_doctor_reports_a_broken_config_instead_of_crashing():
    result = invoke("doctor", error="config.toml: unknown key 'tier1.modle'")
    assert result.output.splitlines()[0] == "FAIL config: config.toml: unknown key 'tier1.modle'"
    assert result.exit_code == 1


def run_claudeops(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "claudeops", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120)


def test_broken_config_is_a_one_line_error_with_usage_exit_code(tmp_path):
    (tmp_path / "config.toml").write_text("[tier1]\nmax_turns = 'lots'\n")
    result = run_claudeops("plugins", cwd=tmp_path)
    assert result.returncode == EXIT_USAGE
    assert result.stderr == "claudeops: error: config.toml: 'tier1.max_turns' must be an integer, not 'lots'\n"


def test_plugin_failing_during_a_command_is_a_one_line_error(monkeypatch, capsys):
    import click

    from claudeops import NotableEvent, hookimpl

    class Notifier:
        @hookimpl
        def record_event(self, event):
            raise ConnectionError("smtp server refused")

    class Command:
        @hookimpl
        def register_commands(self, cli):
            @cli.command("notify")
            @click.pass_context
            def notify(ctx):
                ctx.obj.app.hook.record_event(event=NotableEvent("info", "hello", "2026-01-01T00:00:00Z"))

    real_load = App.load

    def load_with_plugins(config_path):
        return real_load(config_path, {}, entry_points=False, builtins=CORE_ONLY,
                         extra_plugins=[Notifier(), Command()])

    monkeypatch.setattr("claudeops.cli.group.App.load", load_with_plugins)
    with pytest.raises(SystemExit) as exit_info:
        main(["notify"])
    assert exit_info.value.code == 1
    message = capsys.readouterr().err
    assert message.startswith("claudeops: error: plugin ") and "failed in hook record_event: ConnectionError" in message
    assert message.count("\n") == 1


@pytest.mark.parametrize("first", [[], ["--help"]])
def test_a_plugin_command_named_like_a_core_command_never_replaces_it(monkeypatch, capsys, first):
    """Plugin commands are added lazily; whether or not ``--help`` loaded them first, ``plugins``
    stays the core's, and the clash is said in one line."""
    import click

    from claudeops import hookimpl

    class Shadow:
        @hookimpl
        def register_commands(self, cli):
            @cli.command("plugins")
            def plugins():
                click.echo("shadowed")

    real_load = App.load

    def load_with_plugins(config_path):
        return real_load(config_path, {}, entry_points=False, builtins=CORE_ONLY, extra_plugins=[Shadow()])

    monkeypatch.setattr("claudeops.cli.group.App.load", load_with_plugins)
    if first:
        with pytest.raises(SystemExit):
            main(first)
        assert "a plugin's command 'plugins' has the name of a core command" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["plugins"])
    assert exit_info.value.code == 0
    assert "shadowed" not in capsys.readouterr().out


def test_setting_a_plugin_rejects_in_configure_is_a_config_error_naming_the_variable(monkeypatch, capsys):
    from dataclasses import dataclass

    from claudeops import hookimpl
    from claudeops.config import setting

    @dataclass
    class RetrySettings:
        retries: int = setting(3, "How often to retry")

    class Retrying:
        @hookimpl
        def register_settings(self, register):
            register("retry", RetrySettings)

        @hookimpl
        def configure(self, config):
            config.require(config.section("retry").retries >= 0, "retry.retries", "0 or more")

    real_load = App.load
    monkeypatch.setenv("CLAUDEOPS_RETRY_RETRIES", "-1")
    monkeypatch.setattr("claudeops.cli.group.App.load", lambda config_path: real_load(
        config_path, entry_points=False, builtins=CORE_ONLY, extra_plugins=[Retrying()]))
    with pytest.raises(SystemExit) as exit_info:
        main(["plugins"])
    assert exit_info.value.code == EXIT_USAGE
    assert capsys.readouterr().err == (
        "claudeops: error: env CLAUDEOPS_RETRY_RETRIES: 'retry.retries' must be 0 or more, not -1\n")


def test_with_json_logs_what_is_logged_while_loading_is_json_too(tmp_path, monkeypatch, capsys):
    """A log shipper asking for JSON gets JSON for the warnings of config and plugin loading as well."""
    monkeypatch.setenv("CLAUDEOPS_STATE_DIR", str(tmp_path / "s"))
    monkeypatch.setenv("CLAUDEOPS_TIER1_MODLE", "opus")
    real_load = App.load
    monkeypatch.setattr("claudeops.cli.group.App.load", lambda config_path: real_load(
        config_path, entry_points=False, builtins=CORE_ONLY))
    with pytest.raises(SystemExit) as exit_info:
        main(["--log-format", "json", "config", "show"])
    assert exit_info.value.code == 0
    records = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [(record["level"], record["message"]) for record in records] == [
        ("warning", "environment: CLAUDEOPS_TIER1_MODLE is not a setting of [tier1], ignored "
                    "(did you mean CLAUDEOPS_TIER1_MODEL?)")]



def test_with_json_logs_a_commands_refusal_is_a_json_record_with_its_status(tmp_path, monkeypatch, capsys):
    """click prints its exceptions past the log handler; the root group routes them through it."""
    monkeypatch.setenv("CLAUDEOPS_STATE_DIR", str(tmp_path / "s"))
    real_load = App.load
    monkeypatch.setattr("claudeops.cli.group.App.load", lambda config_path: real_load(
        config_path, entry_points=False, builtins=CORE_ONLY))
    for log_format, expected in (("json", None), ("text", "Error: there is no session #4242\n")):
        with pytest.raises(SystemExit) as exit_info:
            main(["--log-format", log_format, "sessions", "show", "4242"])
        assert exit_info.value.code == EXIT_USAGE
        err = capsys.readouterr().err
        if expected is None:
            record = json.loads(err)
            assert (record["level"], record["message"]) == ("error", "there is no session #4242")
        else:
            assert err == expected


def test_a_database_error_the_driver_spreads_over_lines_is_one_line(tmp_path):
    """psycopg2 adds "Is the server running on that host…" on a line of its own; cron gets one line per problem."""
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(tmp_path / "s"),
                          "CLAUDEOPS_DATABASE_URL": "postgresql://ops:secret@127.0.0.1:9/claudeops"},
                   entry_points=False, builtins=CORE_ONLY)
    result = invoke("sessions", "list", app=app)
    assert result.exit_code == 1
    [line] = result.output.splitlines()
    assert line.startswith("Error: cannot open database postgresql://ops:***@127.0.0.1:9/claudeops: ")
    assert "Is the server running" in line and "secret" not in line


def test_a_pass_app_command_invoked_outside_the_group_says_so_instead_of_crashing():
    import click

    from claudeops import pass_app

    @click.command()
    @pass_app
    def standalone(app):
        click.echo("never reached")

    result = CliRunner().invoke(standalone, [])
    assert result.exit_code == EXIT_USAGE
    assert "Error: standalone needs the claudeops app: run it as a claudeops command" in result.output


@pytest.mark.parametrize(("content", "message"), [
    (b'state_dir = "\xff\xfe"\n', "config.toml: not UTF-8 text (byte 0xff at offset 13); save the file as UTF-8"),
    (b"a = " + b"[" * 100_000 + b"]" * 100_000 + b"\n",
     "config.toml: invalid TOML: tables or arrays nested too deeply"),
])
@pytest.mark.parametrize("command", [["plugins"], ["doctor"]])
def test_a_config_file_that_is_not_utf8_or_nested_too_deeply_is_one_line_exit_2(tmp_path, content, message,
                                                                                   command):
    (tmp_path / "config.toml").write_bytes(content)
    result = run_claudeops(*command, cwd=tmp_path)
    if command == ["doctor"]:  # doctor reports it among its checks, and fails
        assert result.stdout.splitlines()[0] == f"FAIL config: {message}" and result.returncode == 1
    else:
        assert (result.returncode, result.stderr) == (EXIT_USAGE, f"claudeops: error: {message}\n")
    assert "Traceback" not in result.stdout + result.stderr


def test_doctor_shows_the_lines_plugins_contribute_and_fails_on_theirs(tmp_path, monkeypatch):
    from claudeops import DoctorCheck, hookimpl

    class Contributes:
        @hookimpl
        def doctor_checks(self, config):
            return [DoctorCheck("budget", True, f"max tier {config.core.max_tier}"),
                    DoctorCheck("notify", False, "no target answered")]

    class Crashes:
        @hookimpl
        def doctor_checks(self):
            raise RuntimeError("table missing")

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(tmp_path / "s")}, entry_points=False, builtins=CORE_ONLY,
                   extra_plugins=[Contributes(), Crashes()])
    app.open_store()
    result = invoke("doctor", app=app)
    lines = result.output.splitlines()
    assert "ok   budget: max tier 3" in lines and "FAIL notify: no target answered" in lines
    assert any(line.startswith("FAIL ") and "doctor check failed: RuntimeError: table missing" in line
               for line in lines)
    assert result.exit_code == 1
