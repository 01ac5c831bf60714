"""What every command shares: the loaded app, the log flags, opening the store, one-line failures.

Commands of the core and of plugins alike use these (plugins through the ``claudeops`` API), so
a command reads, logs and fails the same way whoever wrote it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
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
        raise click.ClickException(f"{target} exists; pass --force to overwrite it")


def fail(message: str, code: int = EXIT_FAILED) -> NoReturn:
    """A one-line error on stderr (a JSON record with JSON logs) and exit status ``code``, never a traceback.

    For exits click's own errors do not cover: outside a command, or with a status other than 1.
    """
    report_problem(message, "claudeops: error: ")
    sys.exit(code)
