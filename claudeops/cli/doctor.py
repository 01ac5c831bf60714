"""``claudeops doctor``: check the installation, one line per check, non-zero if any fails.

Meant for the moment after installing or before adding the cron line: each check says what
is wrong and what to do, so nothing has to be discovered from a failed 3 a.m. run.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import click

from claudeops.app import App
from claudeops.cli.context import AppState
from claudeops.config import Config
from claudeops.exit_codes import EXIT_FAILED
from claudeops.runner.credentials import credential_source
from claudeops.runner.prompts import PromptError, tier_prompt_path
from claudeops.store import StoreError, mask_url


@dataclass(frozen=True)
class Check:
    """One line of the report; a ``warning`` is shown but, being ``ok``, does not fail doctor.

    Warnings are for settings that do nothing (a misspelt variable or plugin name): harmless to
    a run, so not a failure, but the reason a setting seems to be ignored.
    """

    name: str
    ok: bool
    detail: str
    warning: bool = False


def find_claude_cli() -> Path | None:
    """The Claude Code CLI the SDK will run: the one bundled in the wheel, else one on PATH."""
    import shutil

    from claudeops.runner.sdk import bundled_cli_path

    bundled = bundled_cli_path()
    if bundled.is_file() and os.access(bundled, os.X_OK):
        return bundled
    found = shutil.which("claude")
    return Path(found) if found else None


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


def run_checks(state: AppState) -> Iterator[Check]:
    """Every check in order; later checks are skipped when what they need failed."""
    if state.load_error:
        yield Check("config", False, state.load_error)
    else:
        app = state.app
        yield Check("config", True, f"loaded from {app.config.raw.label}")
        yield from (Check("config", True, warning, warning=True) for warning in app.config.warnings)
        store = list(_state_and_store_checks(app))
        yield from store
        yield from _plugin_checks(app)
        yield check_prompts(app.config)
        if all(check.ok for check in store):
            yield from _contributed_checks(app)
    cli_path = find_claude_cli()
    yield Check("claude cli", cli_path is not None,
                str(cli_path) if cli_path else "Claude Code CLI not found; reinstall claude-agent-sdk")
    yield check_credentials(os.environ)


def _plugin_checks(app: App) -> Iterator[Check]:
    """A FAIL line per plugin that failed to load, else the loaded ones; then the disable warnings."""
    report = app.load_report
    if report.errors:
        yield from (Check("plugins", False, error) for error in report.errors)
    else:
        yield Check("plugins", True, f"loaded: {', '.join(name for name, _ in app.pm.list_name_plugin())}")
    yield from (Check("plugins", True, warning, warning=True) for warning in report.warnings)


def _contributed_checks(app: App) -> Iterator[Check]:
    """Each plugin's ``doctor_checks`` (spend so far, notification targets, the ping); one that raises is a FAIL."""
    for impl in reversed(app.pm.hook.doctor_checks.get_hookimpls()):
        try:
            checks = impl.function(*[{"config": app.config}[name] for name in impl.argnames])
            yield from cast("list[Check]", checks or [])
        except Exception as exc:
            yield Check(impl.plugin_name, False, f"doctor check failed: {type(exc).__name__}: {exc}")


def _state_and_store_checks(app: App) -> Iterator[Check]:
    state_dir = app.state_dir
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=state_dir):
            pass
        yield Check("state dir", True, f"{state_dir} is writable")
    except OSError as exc:
        yield Check("state dir", False, f"{state_dir} is not writable: {exc.strerror}")
        return
    url = mask_url(app.config.database_url)
    try:
        app.open_store(migrate=False)
    except StoreError as exc:
        yield Check("database", False, str(exc))
        return
    pending = [f"{row.owner}/{row.name}" for row in app.migration_status() if row.applied_at is None]
    if pending:
        yield Check("database", False, f"{url}: {len(pending)} pending migration(s); run `claudeops db migrate`")
    else:
        yield Check("database", True, f"{url} is reachable and migrated")


@click.command("doctor")
@click.pass_context
def doctor_command(ctx: click.Context) -> None:
    """Check config, state dir, database, plugins, tier prompts, the Claude Code CLI and credentials."""
    failed = 0
    for check in run_checks(ctx.obj):
        label, colour = ("warn", "yellow") if check.warning else ("ok  ", "green") if check.ok else ("FAIL", "red")
        click.echo(f"{click.style(label, fg=colour)} {check.name}: {check.detail}")
        failed += not check.ok
    if failed:
        ctx.exit(EXIT_FAILED)
