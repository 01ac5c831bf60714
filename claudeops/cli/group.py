"""The ``claudeops`` command line: core commands here, plugin commands through a hook.

The group is built in :func:`build_cli` after the configuration and plugins are loaded, so a
disabled plugin's commands disappear with it and tests build a fresh CLI per case instead of
reloading a module.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
import peewee

from claudeops.app import App
from claudeops.cli.context import (
    CONTEXT_SETTINGS,
    AppState,
    CommandGroup,
    UsageProblem,
    apply_log_options,
    fail,
    log_options,
    open_store_or_fail,
    pass_app,
    refuse_text_that_is_not_utf8,
    refuse_to_overwrite,
)
from claudeops.cli.doctor import doctor_command
from claudeops.cli.init import init_command
from claudeops.cli.run import run_command
from claudeops.cli.sessions import sessions_group
from claudeops.collector import claim_process, collector_paused
from claudeops.config import ConfigError
from claudeops.exit_codes import EXIT_FAILED, EXIT_NEWER_DATABASE, EXIT_USAGE
from claudeops.logs import configure_logging
from claudeops.plugins import PluginError, describe_plugins
from claudeops.redaction import mask_secret
from claudeops.runner.allow_list import configured_allow_list
from claudeops.store import NewerDatabase, StoreError, backup_sqlite, describe_database_error, mask_url
from claudeops.version import __version__
from claudeops.wording import counted


def build_cli(app: App | None, load_error: str | None = None) -> click.Group:
    """The command group with core commands and every loaded plugin's commands."""

    @click.group(cls=CommandGroup, context_settings=CONTEXT_SETTINGS)
    @click.version_option(__version__, prog_name="claudeops")
    @click.option("--config", "config_path", metavar="PATH",
                  help="Config file (default: $CLAUDEOPS_CONFIG, else ./config.toml, else built-in defaults).")
    @click.option("--state-dir", metavar="DIR", help="Override state_dir (database, transcripts, lock).")
    @click.option("--database-url", metavar="URL", help="Override database_url (sqlite:///… or postgresql://…).")
    @log_options
    @click.pass_context
    def cli(ctx: click.Context, config_path: str | None, state_dir: str | None, database_url: str | None,
            log_level: str | None, log_format: str | None) -> None:
        """claudeops runs scheduled Claude agent sessions that watch and repair your services,
        and keeps what the agent learns as operational memory for the next session.

        \b
        Typical use:
          claudeops init                    a config, a service inventory and runbooks to start from
          claudeops run --tier 1            one observation session (from cron)
          claudeops run --replay FILE       replay a recorded session offline
          claudeops sessions list           what ran and how each session ended
          claudeops memories list           what the agent knows
          claudeops web                     the dashboard on http://127.0.0.1:8080
          claudeops doctor                  check the installation
        """
        state = AppState(app, load_error)
        ctx.obj = state
        if app is not None:
            app.config.override("state_dir", state_dir)
            app.config.override("database_url", database_url)
            apply_log_options(app, log_level, log_format)
        else:
            configure_logging(log_level or "warning", log_format or "text")

    if isinstance(cli, CommandGroup):
        cli.config_problem = load_error
    cli.add_command(plugins_command)
    cli.add_command(db_group)
    cli.add_command(config_group)
    cli.add_command(doctor_command)
    cli.add_command(init_command)
    cli.add_command(run_command)
    cli.add_command(sessions_group)
    refuse_text_that_is_not_utf8(cli)
    if app is not None and isinstance(cli, CommandGroup):
        cli.plugin_commands = lambda group: _add_plugin_commands(app, group)
    return cli


def _add_plugin_commands(app: App, cli: click.Group) -> None:
    app.hook.register_commands(cli=cli)
    refuse_text_that_is_not_utf8(cli)


@click.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array instead of a table.")
@pass_app
def plugins_command(app: App, as_json: bool) -> None:
    """List plugins, where they come from and the hooks they implement; exit 1 if one failed to load.

    A plugin that failed to load is listed with its error (its status is "failed" in the JSON)
    rather than left out, so neither a reader nor a script mistakes it for not installed.
    """
    infos = [*describe_plugins(app.pm), *app.load_report.failed]
    if as_json:
        click.echo(json.dumps([info.__dict__ | {"hooks": list(info.hooks)} for info in infos], indent=2))
    else:
        for info in infos:
            version = f" {info.version}" if info.version else ""
            click.echo(f"{info.name}{version}  [{info.source}]")
            click.echo(f"    FAILED: {info.error}" if info.error else f"    hooks: {', '.join(info.hooks) or '(none)'}")
        for name in app.load_report.disabled:
            click.echo(f"{name}  [disabled]")
    if app.load_report.failed:
        click.get_current_context().exit(EXIT_FAILED)


@click.group("db")
def db_group() -> None:
    """Database schema and backups (SQLite by default, PostgreSQL by URL)."""


@db_group.command("migrate")
@pass_app
def db_migrate(app: App) -> None:
    """Apply pending migrations of the core and every loaded plugin (safe to repeat)."""
    open_store_or_fail(app, migrate=False)
    try:
        applied = app.migrate()
    except NewerDatabase as exc:
        fail(str(exc), EXIT_NEWER_DATABASE)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    for step in applied:
        click.echo(f"applied {step.owner}/{step.name}")
    click.echo(f"{len(applied)} migration(s) applied; database {mask_url(app.config.database_url)} is up to date")


@db_group.command("status")
@pass_app
def db_status(app: App) -> None:
    """Show every migration and whether it has been applied."""
    open_store_or_fail(app, migrate=False)
    rows = app.migration_status()
    for row in rows:
        click.echo(f"{row.applied_at or 'pending':20}  {row.owner}/{row.name}")
    drift = app.schema_drift()
    for step in drift.unknown:
        click.echo(f"{'unknown (newer)':20}  {step}")
    for owner, steps in drift.not_loaded.items():
        click.echo(f"{'not loaded':20}  {owner}: {counted(steps, 'migration')} of a plugin not loaded, left alone")
    pending = sum(1 for row in rows if row.applied_at is None)
    click.echo(f"{pending} pending" if pending else "all migrations applied")
    if drift.unknown:
        fail(f"{len(drift.unknown)} migration(s) unknown to this version: the database was written by a newer "
             "claudeops", EXIT_NEWER_DATABASE)


@db_group.command("backup")
@click.argument("target", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite TARGET if it exists.")
@pass_app
def db_backup(app: App, target: Path, force: bool) -> None:
    """Copy the SQLite database to TARGET while it is in use (online backup API)."""
    refuse_to_overwrite(target, force)
    open_store_or_fail(app, migrate=False)
    try:
        backup_sqlite(target)
    except StoreError as exc:
        raise UsageProblem(str(exc)) from None
    click.echo(f"backed up to {target}")


@click.group("config")
def config_group() -> None:
    """Inspect the effective configuration."""


@config_group.command("show")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of lines.")
@pass_app
def config_show(app: App, as_json: bool) -> None:
    """Print every setting, its effective value and where it came from (secrets masked)."""
    rows = [(key, _masked(value, secret), source) for key, value, source, secret in app.config.described()]
    if as_json:
        click.echo(json.dumps({key: {"value": value, "source": source} for key, value, source in rows}, indent=2))
        return
    click.echo(f"# config file: {app.config.raw.label}")
    for key, value, source in rows:
        click.echo(f"{key} = {json.dumps(value)}    # {source}")


@config_group.command("init")
@click.argument("target", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite TARGET if it exists.")
@pass_app
def config_init(app: App, target: Path | None, force: bool) -> None:
    """Write a commented config file with every setting at its default (stdout without TARGET)."""
    from claudeops.config_template import render_config_template

    text = render_config_template(app.config)
    if target is None:
        click.echo(text, nl=False)
        return
    refuse_to_overwrite(target, force)
    target.write_text(text)
    click.echo(f"wrote {target}")


def _masked(value: Any, secret: bool) -> Any:
    """A secret setting's value as :func:`claudeops.redaction.mask_secret` shows it (each entry of a list)."""
    if not secret or not value:
        return value
    if isinstance(value, list):
        return [mask_secret(str(entry)) for entry in value]
    return mask_secret(str(value))


def _option_from(argv: Sequence[str], option: str) -> str | None:
    """Find ``option``'s value before click parses (the last one given wins, as in click)."""
    found = None
    for index, arg in enumerate(argv):
        if arg == option and index + 1 < len(argv):
            found = argv[index + 1]
        elif arg.startswith(f"{option}="):
            found = arg.split("=", 1)[1]
    return found


def _early_logging(argv: Sequence[str]) -> None:
    """Logging for what happens while the config and plugins load, before click has parsed anything.

    A plugin that fails to load or an unknown ``CLAUDEOPS_*`` variable is logged then, and a log
    shipper asking for JSON must get JSON for those lines too; the flag or the environment
    variable decides here (the config file is not read yet), and the full setup follows.
    """
    level = _option_from(argv, "--log-level") or os.environ.get("CLAUDEOPS_LOG_LEVEL") or "warning"
    fmt = _option_from(argv, "--log-format") or os.environ.get("CLAUDEOPS_LOG_FORMAT") or "text"
    try:
        configure_logging(level, fmt)
    except ValueError:  # a bad value: click reports it in a moment; log plainly until then
        configure_logging()


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point; ``argv`` is given by callers that drive the CLI in-process (tests)."""
    if argv is None:
        claim_process()
    args = list(sys.argv[1:] if argv is None else argv)
    _early_logging(args)
    app, error = None, None
    try:
        with collector_paused():  # loading every plugin makes objects that live as long as the process
            app = App.load(_option_from(args, "--config"))
        configured_allow_list(app.config)
    except (ConfigError, PluginError) as exc:
        app, error = None, str(exc)
    if error and "doctor" not in args and not {"-h", "--help", "--version"} & set(args):
        fail(error, EXIT_USAGE)
    run_cli(app, error, args)


def run_cli(app: App | None, load_error: str | None, args: Sequence[str]) -> None:
    """The command line of a loaded app, every failure a one line message with its exit status.

    :func:`main` after loading; test drivers that load their own plugins call it directly.
    """
    try:
        build_cli(app, load_error).main(args=list(args), prog_name="claudeops")
    except PluginError as exc:
        fail(str(exc))
    except NewerDatabase as exc:
        fail(str(exc), EXIT_NEWER_DATABASE)
    except ConfigError as exc:  # a database URL no driver knows, found when a command opens it
        fail(str(exc), EXIT_USAGE)
    except (StoreError, peewee.PeeweeException, sqlite3.Error) as exc:  # from any command, ``run`` included
        fail(f"database error: {describe_database_error(exc)}")
