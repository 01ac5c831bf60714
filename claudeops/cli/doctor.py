"""``claudeops doctor``: check the installation, one line per check, non-zero if any fails.

Meant for the moment after installing or before adding the cron line: each check says what
is wrong and what to do, so nothing has to be discovered from a failed 3 a.m. run. Doctor only
looks: on a fresh state directory it creates neither the directory nor the database (the first
command that needs them does, migrating as it goes), unless ``--fix`` asks it to.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import click

from claudeops.app import App
from claudeops.cli.context import AppState
from claudeops.config import Config
from claudeops.exit_codes import EXIT_FAILED, EXIT_NEWER_DATABASE
from claudeops.ops_dir import read_ops_dir
from claudeops.runner.credentials import credential_source
from claudeops.runner.prompts import PromptError, tier_prompt_path
from claudeops.store import NewerDatabase, StoreError, db, mask_url, open_store, refuse_newer, sqlite_file
from claudeops.version import __version__
from claudeops.wording import counted, one_line

LOW_FREE_SPACE_BYTES = 100 * 1024 * 1024
"""Below this much free space in the state directory doctor fails: a session writes its transcript
and rows there, and a disk that fills up during a run loses what the session was recording."""


@dataclass(frozen=True)
class Check:
    """One line of the report; a ``warning`` is shown but, being ``ok``, does not fail doctor.

    Warnings are for settings that do nothing (a misspelt variable or plugin name): harmless to
    a run, so not a failure, but the reason a setting seems to be ignored. ``exit_code`` is the
    status a failed check gives doctor when it has one of its own (a database from a newer
    version exits as it does for every command).
    """

    name: str
    ok: bool
    detail: str
    warning: bool = False
    exit_code: int = EXIT_FAILED


def find_claude_cli(config: Config | None = None) -> Path | None:
    """The Claude Code CLI a run will start: ``cli_path`` when set, else the one bundled in the wheel,
    else ``claude`` on PATH (the SDK's own order)."""
    from claudeops.runner.cli_location import bundled_cli_path, configured_cli_path

    configured = configured_cli_path(config) if config is not None else None
    candidates = [configured] if configured else [str(bundled_cli_path()), shutil.which("claude")]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


def check_claude_cli(config: Config | None) -> Check:
    """The CLI a run will start, or the same one-line reason a session would record without it."""
    found = find_claude_cli(config)
    if found is not None:
        if config is not None and config.core.cli_path:
            return Check("claude cli", True, f"{found} (cli_path, from {config.sources.get('cli_path', 'default')})")
        return Check("claude cli", True, str(found))
    if config is None:
        return Check("claude cli", False, "Claude Code CLI not found; reinstall claude-agent-sdk")
    from claudeops.runner.failures import cli_not_found

    return Check("claude cli", False, cli_not_found(config))


def check_credentials(environ: Mapping[str, str]) -> Check:
    source = credential_source(environ)
    if source is not None:
        return Check("credentials", True, f"{source} is set")
    return Check("credentials", False, "no ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN) in the environment; "
                                       "real sessions will fail (replay still works)")


def check_prompts(config: Config) -> Check:
    """Resolve the prompt file of every tier a cron run may reach (1..max_tier), as ``run`` does.

    ``claudeops run`` refuses to start with a prompt file missing or a mistyped ``prompts_dir``;
    doctor uses the same lookup so that it is found now, not by the first scheduled run.
    """
    folders: dict[Path, list[str]] = {}
    try:
        for tier in range(1, config.core.max_tier + 1):
            folders.setdefault(tier_prompt_path(config, tier).parent, []).append(str(tier))
    except PromptError as exc:
        return Check("prompts", False, str(exc))
    where = [f"{'tier' if len(tiers) == 1 else 'tiers'} {', '.join(tiers)} from {folder}"
             for folder, tiers in folders.items()]
    return Check("prompts", True, "; ".join(where))


def check_inventory(config: Config) -> Iterator[Check]:
    """How many services the inventory declares, and the ops folder's runbooks (a playbook with no tier warns)."""
    inventory = config.inventory
    yield (Check("inventory", True, f"{counted(len(inventory), 'service')} from {inventory.source}") if inventory else
           Check("inventory", True, "no [services.NAME] inventory: the agent knows the fleet only from "
                                    "environment settings (claudeops init writes one)", warning=True))
    ops = read_ops_dir(config)
    if ops is not None:
        found = [counted(len(ops.checks), "check"), counted(len(ops.playbooks), "playbook")]
        yield Check("ops dir", True, f"{ops.path}: {', '.join(found)}" + (", CLAUDEOPS.md" if ops.overview else ""))
        yield from (Check("ops dir", True, problem, warning=True) for problem in ops.problems)


def run_checks(state: AppState, *, fix: bool = False) -> Iterator[Check]:
    """Every check in order; later checks are skipped when what they need failed. ``fix`` creates the
    state directory and the database and applies pending migrations."""
    if state.load_error:
        yield Check("config", False, state.load_error)
    else:
        app = state.app
        yield Check("config", True, f"loaded from {app.config.raw.label}")
        yield from (Check("config", True, warning, warning=True) for warning in app.config.warnings)
        store = list(_state_and_store_checks(app, fix))
        yield from store
        yield from _plugin_checks(app)
        yield check_prompts(app.config)
        yield from check_inventory(app.config)
        yield from contributed_checks(app, store)
    yield check_claude_cli(None if state.load_error else state.app.config)
    yield check_credentials(os.environ)


def _plugin_checks(app: App) -> Iterator[Check]:
    """A FAIL line per plugin that failed to load, else the loaded ones; then the disable warnings."""
    report = app.load_report
    if report.errors:
        yield from (Check("plugins", False, error) for error in report.errors)
    else:
        yield Check("plugins", True, f"loaded: {', '.join(name for name, _ in app.pm.list_name_plugin())}")
    yield from (Check("plugins", True, warning, warning=True) for warning in report.warnings)


def contributed_checks(app: App, store: list[Check]) -> Iterator[Check]:
    """Each plugin's ``doctor_checks`` lines, once the database is open and migrated (spend so far,
    notification targets, the judge's credentials); a plugin whose check raises, or answers
    something that is not a list of :class:`Check`, is a FAIL line naming it."""
    if not (all(check.ok for check in store) and db.obj is not None
            and all(row.applied_at for row in app.migration_status())):
        yield Check("plugins", True, "their own checks run once the database exists and is migrated "
                                     "(`claudeops doctor --fix` does both now)")
        return
    for impl in reversed(app.pm.hook.doctor_checks.get_hookimpls()):  # pluggy's call order
        try:
            answer = impl.function(*[{"config": app.config}[name] for name in impl.argnames])
        except Exception as exc:
            yield Check(impl.plugin_name, False, f"doctor check failed: {type(exc).__name__}: {one_line(str(exc))}")
            continue
        if not (isinstance(answer, list | tuple) and all(isinstance(check, Check) for check in answer)):
            yield Check(impl.plugin_name, False, f"its doctor_checks answered {answer!r}; expected a list of "
                                                 "DoctorCheck(name, ok, detail, warning=False)")
            continue
        yield from answer


def _state_and_store_checks(app: App, fix: bool) -> Iterator[Check]:
    state_dir = app.state_dir
    if not state_dir.exists() and not fix:
        yield _future_state_dir(state_dir)
    else:
        try:
            state_dir.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=state_dir):
                pass
            yield Check("state dir", True, f"{state_dir} is writable")
        except OSError as exc:
            yield Check("state dir", False, f"{state_dir} is not writable: {exc.strerror}")
            return
    yield check_free_space(state_dir)
    yield from _database_checks(app, fix)


def _future_state_dir(state_dir: Path) -> Check:
    """A state directory that does not exist yet: fine if the first run can create it."""
    parent = _existing_ancestor(state_dir)
    if os.access(parent, os.W_OK | os.X_OK):
        return Check("state dir", True, f"{state_dir} does not exist yet; the first run creates it "
                                        f"({parent} is writable)")
    return Check("state dir", False, f"{state_dir} does not exist and cannot be created: {parent} is not writable")


def _existing_ancestor(path: Path) -> Path:
    path = path.absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_free_space(state_dir: Path) -> Check:
    """Free space where sessions write their rows and transcripts (fails below :data:`LOW_FREE_SPACE_BYTES`)."""
    where = _existing_ancestor(state_dir)
    free = shutil.disk_usage(where).free
    detail = f"{_mebibytes(free)} free in {where}"
    if free < LOW_FREE_SPACE_BYTES:
        return Check("disk space", False, f"only {detail}, less than {_mebibytes(LOW_FREE_SPACE_BYTES)}: a session "
                                          "writes its rows and transcript there; free some space")
    return Check("disk space", True, detail)


def _mebibytes(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MiB" if size < 1024 ** 3 else f"{size / 1024 ** 3:.1f} GiB"


def _database_checks(app: App, fix: bool) -> Iterator[Check]:
    """The database: reachable, not from a newer version, migrations pending (a note) or applied."""
    url = app.config.database_url
    shown = mask_url(url)
    file = sqlite_file(url)
    if file is not None and not file.exists() and not fix:
        yield Check("database", True, f"{shown} does not exist yet; the first command that needs it creates and "
                                      "migrates it (or `claudeops doctor --fix` now)")
        return
    try:
        open_store(url, lock_patience=app.config.core.lock_patience_seconds)
        drift = app.schema_drift()
        refuse_newer(drift, url, __version__)
        applied = app.migrate() if fix else []
    except NewerDatabase as exc:
        yield Check("database", False, str(exc), exit_code=EXIT_NEWER_DATABASE)
        return
    except StoreError as exc:
        yield Check("database", False, str(exc))
        return
    pending = [row for row in app.migration_status() if row.applied_at is None]
    if applied:
        yield Check("database", True, f"{shown}: applied {counted(len(applied), 'migration')}")
    elif pending:
        yield Check("database", True, f"{shown} is reachable; {counted(len(pending), 'migration')} pending, applied "
                                      "by the next command that opens it (or `claudeops doctor --fix` now)")
    else:
        yield Check("database", True, f"{shown} is reachable and migrated")
    for owner, steps in drift.not_loaded.items():
        yield Check("database", True, f"{counted(steps, 'migration')} of {owner!r}, a plugin not loaded "
                                      "(disabled or not installed), left alone")


@click.command("doctor")
@click.option("--fix", is_flag=True, help="Create the state directory and the database, and apply pending "
                                          "migrations (doctor changes nothing without it).")
@click.pass_context
def doctor_command(ctx: click.Context, fix: bool) -> None:
    """Check config, state dir, free space, database, plugins, tier prompts, the Claude Code CLI and
    credentials. Exits 1 if a check fails (65 for a database written by a newer claudeops)."""
    failures = []
    for check in run_checks(ctx.obj, fix=fix):
        label, colour = ("warn", "yellow") if check.warning else ("ok  ", "green") if check.ok else ("FAIL", "red")
        click.echo(f"{click.style(label, fg=colour)} {check.name}: {check.detail}")
        if not check.ok:
            failures.append(check.exit_code)
    if failures:
        ctx.exit(EXIT_NEWER_DATABASE if EXIT_NEWER_DATABASE in failures else EXIT_FAILED)
