"""``claudeops run``: the command cron starts. Thin: flags → config overrides → the runner."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from claudeops.app import App
from claudeops.cli.context import apply_log_options, fail, log_options, pass_app
from claudeops.collector import collector_paused
from claudeops.config import ConfigError, tier_section
from claudeops.exit_codes import EXIT_LOCKED, EXIT_MEANINGS, EXIT_USAGE
from claudeops.logs import json_logging, report_problem, session_fields
from claudeops.runner.lock import LockHeld, LockUnavailable

if TYPE_CHECKING:
    from claudeops.runner.session_run import RunObserver

RUN_HELP_BEFORE_EXIT_CODES = """Run one agent session of tier N, and the next tiers if it escalates.

\b
Tier 1 observes, tier 2 investigates and may restart, tier 3 may redeploy; the
model, tools and limits of each come from [tierN] in config.toml (flags below
override them for the starting tier). A session that writes "[ESCALATE] reason"
is followed by a session of the next tier (up to max_tier) that gets its reason,
final report and events.

\b
From cron nothing is printed when all goes well; a failed or interrupted session
prints one line on stderr. On a terminal a live progress line is shown, unless
--log-format json asks for nothing but JSON lines on stderr. --log-level and
--log-format may be given before or after `run`.

\b
--replay FILE feeds a recorded stream-json session (what `claude -p
--output-format stream-json --verbose` prints, or a session transcript from
<state_dir>/transcripts/) through the whole pipeline instead of the model: no
credentials or network needed. Give --replay once per tier to replay an
escalation (the first file is tier N, the next one tier N+1, ...); without a
recording for the next tier the escalation is recorded as suppressed.

"""

RUN_HELP_EXAMPLES = """
\b
Examples:
  claudeops run --tier 1                       # the cron job
  claudeops run --tier 1 --dry-run             # nothing mutating runs, no escalation
  claudeops run --replay examples/sessions/healthy-tier1.jsonl
  claudeops run --replay examples/sessions/escalate-tier1.jsonl \\
                --replay examples/sessions/escalated-tier2.jsonl --json
  claudeops run --tier 1 --log-format json     # every stderr line a JSON object
"""


def exit_code_help() -> str:
    """The exit codes paragraph of ``run --help``, from :data:`EXIT_MEANINGS` so help and docs cannot drift."""
    return "\b\nExit codes:\n" + "".join(f"  {code} {meaning}\n" for code, meaning in EXIT_MEANINGS.items())


RUN_HELP = RUN_HELP_BEFORE_EXIT_CODES + exit_code_help() + RUN_HELP_EXAMPLES


@click.command("run", help=RUN_HELP)
@click.option("--tier", type=click.IntRange(1, 3), default=1, show_default=True,
              help="Tier of the first session (1 observe, 2 investigate, 3 remediate).")
@click.option("--replay", "replays", multiple=True, metavar="FILE",
              type=click.Path(path_type=Path),  # read_recording reports a missing file in one line
              help="Replay a recorded stream-json session instead of calling the model; repeat per tier.")
@click.option("--no-escalate", is_flag=True, help="Never start the next tier, even when the session asks.")
@click.option("--dry-run", is_flag=True,
              help="Refuse mutating tool calls and suppress escalation (default: dry_run from config).")
@click.option("--model", metavar="NAME", help="Model for the starting tier (overrides tierN.model).")
@click.option("--max-turns", type=click.IntRange(min=1), metavar="N", help="Overrides tierN.max_turns.")
@click.option("--max-budget-usd", type=click.FloatRange(min=0), metavar="USD",
              help="Overrides tierN.max_budget_usd (0: no budget limit).")
@click.option("--timeout", type=click.FloatRange(min=0), metavar="SECONDS",
              help="Wall-clock limit of the starting session (overrides tierN.timeout_seconds; 0: none).")
@click.option("--trigger", metavar="LABEL",
              help="Why this run started, stored on the session (default: scheduled; replay with --replay; "
                   "manual on a terminal).")
@click.option("--prompt", metavar="TEXT", help="Use TEXT instead of the tier prompt file (marker sections "
                                               "are still appended).")
@click.option("--request", "operator_request", metavar="TEXT",
              help="An operator's request, quoted in the prompt as theirs (the dashboard's Run now sends it).")
@click.option("--alert", "alerts", multiple=True, metavar="TEXT",
              help="The brief of an alert that started this run, quoted in the prompt; repeat per alert.")
@click.option("--trigger-source", metavar="LABEL",
              help="Who or what the trigger was (dashboard, api, alertmanager…), stored on the session.")
@click.option("--announce", is_flag=True,
              help="Print 'session N' on stdout as soon as each session's row exists (for programs that start "
                   "runs).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary of every session on stdout.")
@log_options
@pass_app
def run_command(app: App, tier: int, replays: tuple[Path, ...], no_escalate: bool, dry_run: bool,
                model: str | None, max_turns: int | None, max_budget_usd: float | None, timeout: float | None,
                trigger: str | None, prompt: str | None, operator_request: str | None, alerts: tuple[str, ...],
                trigger_source: str | None, announce: bool, as_json: bool, log_level: str | None,
                log_format: str | None) -> None:
    # Imported here, not at the top: they pull in claude_agent_sdk (about half a second), which every other
    # command (``config show``, ``memories list``, ``--help``) would otherwise pay for at start-up.
    with collector_paused():
        from claudeops.cli.progress import problem_message
        from claudeops.runner.chain import RunRequest, execute
        from claudeops.runner.replay import ReplayError, ReplaySource, read_checked_recording

    apply_log_options(app, log_level, log_format)  # after the group's: a flag after ``run`` wins
    section = tier_section(tier)
    for key, value in (("model", model), ("max_turns", max_turns), ("max_budget_usd", max_budget_usd),
                       ("timeout_seconds", timeout)):
        app.config.override(f"{section}.{key}", value)
    interactive = sys.stderr.isatty()
    live = interactive and not json_logging()  # JSON logs keep stderr to JSON lines, on a terminal too
    try:
        recordings = [read_checked_recording(path) for path in replays]  # first: a bad file is a usage error
    except ReplayError as exc:
        fail(str(exc), EXIT_USAGE)
    request = RunRequest(
        tier=tier, trigger=trigger or _default_trigger(bool(replays), interactive), escalate=not no_escalate,
        dry_run=True if dry_run else None, prompt=prompt,
        transport_factory=ReplaySource(recordings) if recordings else None,
        observer=_observer(live, announce), trigger_source=trigger_source, operator_request=operator_request,
        alerts=alerts)
    try:
        result = execute(app, request)
    except LockHeld as exc:
        fail(str(exc), EXIT_LOCKED)
    except LockUnavailable as exc:
        fail(str(exc))
    except ConfigError as exc:
        fail(str(exc), EXIT_USAGE)
    if as_json:
        click.echo(json.dumps(result.as_dict(), indent=2))
    if not live:  # the live display's summary line already told the person at the terminal
        for report in result.sessions:
            if (message := problem_message(report)) is not None:
                report_problem(message, fields=session_fields(report.session_id, report.tier, report.status))
    if result.refused is not None:  # no session line says it: the refused tier never started
        report_problem(result.refused)
    click.get_current_context().exit(result.exit_code)


def _observer(live: bool, announce: bool) -> RunObserver | None:
    from claudeops.cli.progress import Announcer, LiveProgress

    progress = LiveProgress() if live else None
    return Announcer(progress) if announce else progress


def _default_trigger(replaying: bool, interactive: bool) -> str:
    if replaying:
        return "replay"
    return "manual" if interactive else "scheduled"

