"""``claudeops memories export | import``: memories as reviewable files, and back.

``export PATH --format dir|jsonl`` writes every memory and its history (:mod:`claudeops_memory.export`);
``import PATH [--dry-run]`` reads such a folder or file into this database
(:mod:`claudeops_memory.importing`). A bad file is one line naming it, and the import changes
nothing (exit 2); a target that is not an export is refused the same way. Conflicts are not
errors: they wait in the review queue (``claudeops memories review``).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click

from claudeops import REVIEW_ITEM, App, NotableEvent, UsageProblem, counted, now_timestamp, open_store_or_fail, pass_app
from claudeops_memory.cli_history import settings_of
from claudeops_memory.export import FORMATS, ExportProblem, export_memories
from claudeops_memory.importing import OUTCOMES, BadFiles, ImportOutcome, Planned, import_memories
from claudeops_memory.operator_text import warn_if_redacted


@click.command("export")
@click.argument("path", metavar="PATH", type=click.Path(path_type=Path))
@click.option("--format", "export_format", type=click.Choice(FORMATS), default="dir", show_default=True,
              help="dir: a folder of one canonical JSON file per memory (and its history), with schemas; "
                   "jsonl: one line per memory.")
@pass_app
def export_command(app: App, path: Path, export_format: str) -> None:
    """Write every memory and its history to PATH, as files to review, back up or move.

    \b
    dir writes the .memories layout (manifest.json, index.json, memories/mem_<uid>.json,
    history/mem_<uid>.json, schemas/); exporting into the same folder again writes only the
    files that changed and removes those of deleted memories, so the folder diffs cleanly in
    git. "claudeops memories import PATH" reads it back, here or in another database.
    """
    open_store_or_fail(app)
    try:
        result = export_memories(path, export_format, now_timestamp())
    except ExportProblem as exc:
        raise UsageProblem(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write {path}: {exc.strerror or exc}") from None
    if result.given_uids:
        click.echo(f"claudeops: note: gave {counted(result.given_uids, 'memory', 'memories')} stored without a uid "
                   "(written outside claudeops) a uid", err=True)
    written = (f"{counted(result.written, 'file')} written" if result.written else "no file changed")
    removed = f", {counted(result.removed, 'file')} of deleted memories removed" if result.removed else ""
    click.echo(f"exported {counted(result.memories, 'memory', 'memories')} to {path} ({written}{removed})")


@click.command("import")
@click.argument("path", metavar="PATH", type=click.Path(path_type=Path))
@click.option("--dry-run", is_flag=True, help="Print what would change, and change nothing.")
@pass_app
def import_command(app: App, path: Path, dry_run: bool) -> None:
    """Read memories from PATH (a folder or jsonl file "memories export" wrote) into this database.

    \b
    Memories are matched by uid: new ones are added with their history, a memory changed
    only in the files is updated, one changed only here is kept, and one changed on both
    sides since the last export or import goes to the review queue ("memories review")
    unchanged. Importing the same files again changes nothing. A file that is not valid
    is named on a line of its own and nothing is imported.
    """
    settings = settings_of(app)
    if not path.exists():
        raise UsageProblem(f"{path} does not exist")
    open_store_or_fail(app)
    try:
        outcome = import_memories(path, max_observation_chars=settings.max_observation_chars, now=now_timestamp(),
                                  dry_run=dry_run)
    except BadFiles as bad:
        for problem in bad.problems:
            click.echo(problem, err=True)
        raise UsageProblem(f"{counted(len(bad.problems), 'file')} cannot be imported; nothing was imported") from None
    _report_redactions(app, outcome)
    _report_conflicts(app, outcome, path)
    if dry_run:
        for planned in outcome.plan:
            if (line := _dry_run_line(planned)) is not None:
                click.echo(line)
    click.echo(_summary(outcome, path))


def _report_redactions(app: App, outcome: ImportOutcome) -> None:
    """One line per file held back as an instruction or that held a secret, and (when something was
    stored) one warning event for the secrets."""
    for source, reason in outcome.held_back:
        click.echo(f"claudeops: warning: {source}: held back, inactive until an operator activates it ({reason})",
                   err=True)
    for source, kinds in outcome.redacted:
        click.echo(f"claudeops: warning: {source}: a secret ({', '.join(kinds)}) was removed before "
                   f"{'it would be' if outcome.dry_run else 'it was'} stored", err=True)
    kinds = tuple(sorted({kind for _, found in outcome.redacted for kind in found}))
    if not outcome.dry_run:
        warn_if_redacted(lambda event: app.hook.record_event(event=event), kinds,
                         f"memories imported from {counted(len(outcome.redacted), 'file')}")


def _report_conflicts(app: App, outcome: ImportOutcome, path: Path) -> None:
    """New sync conflicts joined the review queue: a ``review_item`` event, as every new review item is."""
    if outcome.dry_run or not outcome.counts["conflict"]:
        return
    conflicts = counted(outcome.counts["conflict"], "memory", "memories")
    app.hook.record_event(event=NotableEvent(
        "warning", f"import from {path}: {conflicts} changed both here and in the files since they last agreed "
                   "wait in the review queue as sync conflicts (ours kept until an operator decides)",
        now_timestamp(), kind=REVIEW_ITEM))


VERBS = {"add": "would add", "update": "would update", "conflict": "would hold for review",
         "keep ours": "would keep ours of", "kept deleted": "would leave deleted"}


def _dry_run_line(planned: Planned) -> str | None:
    memory = planned.incoming.memory.memory
    what = f"[{memory['category']}:{memory['service'] or 'general'}] {memory['observation']}"
    if planned.action == "unchanged":
        added = len(planned.merge.changes) if planned.merge is not None else 0
        if not added:
            return None
        return (f"would add {counted(added, 'history entry', 'history entries')} to #{planned.memory_id} "
                f"({planned.incoming.source}): {what}")
    if planned.action == "conflict" and planned.waiting:
        return f"already in the review queue: #{planned.memory_id} ({planned.incoming.source}): {what}"
    target = f"#{planned.memory_id} " if planned.memory_id is not None else ""
    return f"{VERBS[planned.action]} {target}({planned.incoming.source}, {planned.why}): {what}"


def _summary(outcome: ImportOutcome, path: Path) -> str:
    counts: Counter[str] = outcome.counts
    words = _DRY_RUN_WORDS if outcome.dry_run else _ACTION_WORDS
    parts = [f"{counts[action]} {words[action]}" for action in OUTCOMES if counts[action]]
    if outcome.history_added:
        parts.append(f"{counted(outcome.history_added, 'history entry', 'history entries')} "
                     f"{'to add' if outcome.dry_run else 'added'}")
    done = ", ".join(parts) or "nothing"
    total = counted(len(outcome.plan), "memory", "memories")
    if outcome.dry_run:
        return f"dry run: {total} in {path}: {done}; nothing was changed"
    waiting = " (see: claudeops memories review)" if counts["conflict"] or counts["waiting"] else ""
    return f"imported {total} from {path}: {done}{waiting}"


_ACTION_WORDS = {"add": "added", "update": "updated", "conflict": "in conflict, held for review",
                 "waiting": "already waiting in the review queue", "unchanged": "unchanged",
                 "keep ours": "kept as they are here (changed here)",
                 "kept deleted": "left deleted (deleted here)"}
_DRY_RUN_WORDS = {"add": "to add", "update": "to update", "conflict": "in conflict, to hold for review",
                  "waiting": "already waiting in the review queue", "unchanged": "unchanged",
                  "keep ours": "to keep as they are here (changed here)",
                  "kept deleted": "to leave deleted (deleted here)"}

TRANSFER_COMMANDS = (export_command, import_command)
