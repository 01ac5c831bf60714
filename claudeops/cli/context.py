"""What every command shares: the loaded app, the log flags, opening the store, one-line failures.

Commands of the core and of plugins alike use these (plugins through the ``claudeops`` API), so
a command reads, logs and fails the same way whoever wrote it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from claudeops.app import App
from claudeops.config import LOG_FORMATS, LOG_LEVELS, ConfigError
from claudeops.exit_codes import EXIT_FAILED, EXIT_NEWER_DATABASE, EXIT_USAGE
from claudeops.logs import configure_logging, report_problem
from claudeops.store import NewerDatabase, StoreError

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

F = TypeVar("F", bound=Callable[..., Any])


class UsageProblem(click.ClickException):
    """A one-line ``Error: …`` for a request the command refuses as given, with the usage exit status.

    click's own ``UsageError`` (exit 2 too) prints the usage and a help hint before the error,
    right for a flag it cannot parse; a value that parses but cannot be used (an unknown
    category, a port out of range, a file that would be overwritten) is one line, like any other
    failure, and exits :data:`~claudeops.exit_codes.EXIT_USAGE` as docs/runner.md's table says.
    """

    exit_code = EXIT_USAGE


class CommandGroup(click.Group):
    """The root ``claudeops`` group: a command's refusal is written like every other problem line.

    click prints a :class:`click.ClickException` itself, past the log handler, so with
    ``--log-format json`` that one line would be plain text and no secret in it would be
    redacted. Here it goes through :func:`~claudeops.logs.report_problem` (``Error: …``, a JSON
    record with JSON logs) with the exception's own status. A flag click cannot parse
    (:class:`click.UsageError`) keeps click's usage text and help hint.
    """

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError:
            raise
        except click.ClickException as exc:
            report_problem(exc.format_message(), "Error: ")
            ctx.exit(exc.exit_code)


class AppState:
    """What every command reaches through ``click.get_current_context().obj``."""

    def __init__(self, app: App | None, load_error: str | None) -> None:
        self._app = app
        self.load_error = load_error

    @property
    def app(self) -> App:
        if self._app is None:
            raise click.ClickException(self.load_error or "configuration failed to load")
        return self._app


def pass_app(function: Any) -> Any:
    """Decorator: give a command the loaded :class:`App` as its first argument."""
    @click.pass_context
    def wrapper(ctx: click.Context, *args: Any, **kwargs: Any) -> Any:
        state = ctx.find_object(AppState)
        if state is None:  # a command invoked on its own, not through the claudeops group that loads the app
            raise click.UsageError(f"{ctx.command_path} needs the claudeops app: run it as a claudeops command",
                                   ctx)
        return ctx.invoke(function, state.app, *args, **kwargs)
    wrapper.__name__ = function.__name__
    wrapper.__doc__ = function.__doc__
    return wrapper


def log_options(command: F) -> F:
    """``--log-level`` and ``--log-format``, declared once for the group and for ``run``.

    ``run`` repeats them because cron lines are written as ``claudeops run ... --log-format json``;
    its value is applied after the group's (:func:`apply_log_options`), so it wins.
    """
    command = click.option("--log-format", type=click.Choice(LOG_FORMATS),
                           help="Log lines as text or JSON (default: log_format from config, text).")(command)
    return click.option("--log-level", type=click.Choice(LOG_LEVELS),
                        help="Log verbosity on stderr (default: log_level from config, warning).")(command)


def apply_log_options(app: App, log_level: str | None, log_format: str | None) -> None:
    """Let the flags given (``None``: not given) override the config, and send logs where it says."""
    app.config.override("log_level", log_level)
    app.config.override("log_format", log_format)
    configure_logging(app.config.core.log_level, app.config.core.log_format, app.logged_packages())


def open_store_or_fail(app: App, *, migrate: bool = True) -> None:
    """Open the database for a command; a problem becomes a one-line error (a bad state_dir: exit 2, a
    database a newer claudeops wrote: exit 65)."""
    try:
        app.open_store(migrate=migrate)
    except NewerDatabase as exc:
        fail(str(exc), EXIT_NEWER_DATABASE)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None
    except ConfigError as exc:
        fail(str(exc), EXIT_USAGE)


def refuse_to_overwrite(target: Path, force: bool) -> None:
    """Stop a command that writes TARGET when it exists and ``--force`` was not given.

    An earlier backup or a hand-edited config file is often the one copy worth keeping, so
    every command that writes a file the operator names asks before replacing it.
    """
    if target.exists() and not force:
        raise UsageProblem(f"{target} exists; pass --force to overwrite it")


def fail(message: str, code: int = EXIT_FAILED) -> NoReturn:
    """A one-line error on stderr (a JSON record with JSON logs) and exit status ``code``, never a traceback.

    For exits click's own errors do not cover: outside a command, or with a status other than 1.
    """
    report_problem(message, "claudeops: error: ")
    sys.exit(code)


Item = TypeVar("Item")


def echo_listing(items: Sequence[Item], *, as_json: bool, to_json: Callable[[Item], Any], header: Sequence[str],
                 to_row: Callable[[Item], Sequence[str]], nothing: str) -> None:
    """What every list command prints: a JSON array (``--json``), or a table with a header row,
    or one line saying nothing matched (``No sessions match.``), so all of them read alike."""
    if as_json:
        click.echo(json.dumps([to_json(item) for item in items], indent=2))
    elif not items:
        click.echo(nothing)
    else:
        click.echo("\n".join(aligned_rows([header, *(to_row(item) for item in items)])))


def aligned_rows(rows: Iterable[Sequence[str]]) -> list[str]:
    """Rows as text lines, every column but the last padded to its widest cell (the last is free text)."""
    rows = list(rows)
    widths = [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)]
    return ["  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[-1]]).rstrip()
            for row in rows]
