"""What every command shares: the loaded app, the log flags, opening the store, one-line failures.

Commands of the core and of plugins alike use these (plugins through the ``claudeops`` API), so
a command reads, logs and fails the same way whoever wrote it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from claudeops.app import App
from claudeops.config import LOG_FORMATS, LOG_LEVELS, ConfigError
from claudeops.encoding import text_problem
from claudeops.exit_codes import EXIT_FAILED, EXIT_NEWER_DATABASE, EXIT_USAGE
from claudeops.logs import configure_logging, report_problem
from claudeops.store import MAX_ROW_ID, NewerDatabase, StoreError

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

F = TypeVar("F", bound=Callable[..., Any])

LIMIT = click.IntRange(1, MAX_ROW_ID, clamp=True)
"""The type of every ``--limit``: "at most N rows", so a number larger than any table can hold (more than
:data:`MAX_ROW_ID`, which the database driver could not even bind) means every row, not an OverflowError."""


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

    When the configuration did not load (:attr:`config_problem`) no plugin is loaded and their
    commands are missing: a command it does not know (``memories --help`` among them) reports that
    problem instead of "No such command", and ``--help`` says in one line why commands are missing.
    """

    config_problem: str | None = None
    """Why the configuration did not load, or ``None`` when it did."""

    plugin_commands: Callable[[click.Group], None] | None = None
    """Adds the plugins' commands (``register_commands``), called once, when a name is not one of the
    core's or the whole list is needed (``--help``). ``run`` and the core's other commands then never
    import the plugins' command-line modules: their start-up is what every cron run pays."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and self._add_plugin_commands():
            command = super().get_command(ctx, cmd_name)
        return command

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._add_plugin_commands()
        return super().list_commands(ctx)

    def _add_plugin_commands(self) -> bool:
        """Add the plugins' commands if that is still pending; whether it was."""
        register, self.plugin_commands = self.plugin_commands, None
        if register is None:
            return False
        self._core_names = frozenset(self.commands)
        register(self)
        return True

    _core_names: frozenset[str] = frozenset()

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        """A plugin's command never replaces a core one: which ran would depend on whether the plugins'
        commands were loaded yet (``run`` never loads them), so the core's stays and the clash is said."""
        name = name or cmd.name
        if name in self._core_names:
            click.echo(f"claudeops: warning: a plugin's command {name!r} has the name of a core command; "
                       "the core's is kept", err=True)
            return
        super().add_command(cmd, name)

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None,
                                                                            list[str]]:
        if self.config_problem is not None and args and self.get_command(ctx, args[0]) is None:
            fail(self.config_problem, EXIT_USAGE)
        return super().resolve_command(ctx, args)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_epilog(ctx, formatter)
        if self.config_problem is not None:  # written as is: wrapped, it would be more than the one line
            formatter.write(f"\nNote: plugin commands are missing because the configuration did not load: "
                            f"{self.config_problem}\n")

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


def _first_text_problem(value: Any) -> str | None:
    """The one UTF-8 message for a parsed value (text, a path, or a tuple of them), or ``None``."""
    if isinstance(value, str | Path):
        return text_problem(str(value))
    if isinstance(value, tuple | list):
        return next((problem for item in value if (problem := _first_text_problem(item)) is not None), None)
    return None


def _parameter_label(parameter: click.Parameter) -> str:
    if isinstance(parameter, click.Option):
        return max(parameter.opts, key=len)
    return parameter.human_readable_name


def refuse_text_that_is_not_utf8(command: click.Command) -> None:
    """Make ``command`` and every command under it refuse an argument or option that is not UTF-8 text.

    Python hands such bytes over as lone surrogates, which would be stored, printed or used as a
    name further on; here, before a command runs, each is refused with the one message
    (:func:`claudeops.text_problem`) naming the parameter: ``Error: --request is not UTF-8 text
    (byte 0xff at offset 1)``, exit 2. Applied to the core tree, then again once the plugins' commands are
    added (a command already wrapped is left as it is), so core and plugin commands alike.
    """
    callback = command.callback
    if callback is not None and not getattr(callback, "checks_utf8", False):
        parameters = list(command.params)

        def checked(*args: Any, **kwargs: Any) -> Any:
            for parameter in parameters:
                if (problem := _first_text_problem(kwargs.get(parameter.name or ""))) is not None:
                    raise UsageProblem(f"{_parameter_label(parameter)} is {problem}")
            return callback(*args, **kwargs)

        checked.checks_utf8 = True  # type: ignore[attr-defined]
        command.callback = checked
    if isinstance(command, click.Group):
        for subcommand in command.commands.values():
            refuse_text_that_is_not_utf8(subcommand)


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


def open_store_or_fail(app: App, *, migrate: bool = True, connection_per_thread: bool = False) -> None:
    """Open the database for a command; a problem becomes a one-line error (a bad state_dir or database
    URL: exit 2, a database a newer claudeops wrote: exit 65, one that cannot be opened: exit 1)."""
    try:
        app.open_store(migrate=migrate, connection_per_thread=connection_per_thread)
    except NewerDatabase as exc:
        fail(str(exc), EXIT_NEWER_DATABASE)
    except ConfigError as exc:  # a database URL no driver knows among them
        fail(str(exc), EXIT_USAGE)
    except StoreError as exc:
        raise click.ClickException(str(exc)) from None


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


STREAM_CHUNK = 1000
"""Items a streamed listing formats at a time: its memory use, whatever the number of items."""


def echo_stream(items: Iterable[Item], *, as_json: bool, to_json: Callable[[Item], Any], header: Sequence[str],
                to_rows: Callable[[list[Item]], Sequence[Sequence[str]]], nothing: str) -> int:
    """:func:`echo_listing` for listings of any length, printed as they are read; returns how many were printed.

    The JSON is the same text :func:`echo_listing` prints, written item by item. The table is
    aligned a chunk of :data:`STREAM_CHUNK` rows at a time (columns only ever widen), ``to_rows``
    turning each chunk into its rows at once (so it can look up what the chunk needs in one query).
    """
    printed = 0
    widths: list[int] = []
    for chunk in _chunks(items, STREAM_CHUNK):
        if as_json:  # the chunk's array without its brackets: the arrays joined make the one array
            text = json.dumps([to_json(item) for item in chunk], indent=2)[2:-2]
            click.echo(("[\n" if not printed else ",\n") + text, nl=False)
        else:
            rows = [*([header] if not printed else []), *to_rows(chunk)]
            widths = [max([*widths[column:column + 1], *(len(row[column]) for row in rows)])
                      for column in range(len(header) - 1)]
            click.echo("\n".join(_aligned(rows, widths)))
        printed += len(chunk)
    if as_json:
        click.echo("\n]" if printed else "[]")
    elif not printed:
        click.echo(nothing)
    return printed


def _chunks(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    chunk: list[Item] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _aligned(rows: Sequence[Sequence[str]], widths: Sequence[int]) -> list[str]:
    return ["  ".join([*(cell.ljust(width) for cell, width in zip(row, widths, strict=False)), row[-1]]).rstrip()
            for row in rows]


def aligned_rows(rows: Iterable[Sequence[str]]) -> list[str]:
    """Rows as text lines, every column but the last padded to its widest cell (the last is free text)."""
    rows = list(rows)
    return _aligned(rows, [max(len(row[column]) for row in rows) for column in range(len(rows[0]) - 1)])
