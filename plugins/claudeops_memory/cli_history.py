"""``claudeops memories history | changes | revert | restore | purge``: the history from the command line.

``history ID`` is one memory's timeline (and what it is being told to sessions); ``changes`` the
recent changes across memories; ``revert CHANGE`` undoes one change, ``restore ID`` brings a
deleted memory back, ``purge ID`` removes one for good. An id that matches nothing, or a change
that cannot be undone, is one line with the usage status (2) and changes nothing; ``--json``
prints the stored entries.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import click

from claudeops import App, UsageProblem, counted, open_store_or_fail, pass_app
from claudeops_memory import history, ledger, repository, undo
from claudeops_memory.history import HistoryEntry
from claudeops_memory.models import MemoryRecord
from claudeops_memory.settings import SECTION, MemorySettings


@contextmanager
def one_line_errors() -> Iterator[None]:
    """The memory code's ``ValueError`` (cannot) and ``KeyError`` (no such id) as one-line errors.

    Both are a request refused as given, so both exit with the usage status, as the exit-code
    table says of "an id or name that matches nothing".
    """
    try:
        yield
    except ValueError as exc:
        raise UsageProblem(str(exc)) from None
    except KeyError as exc:
        raise UsageProblem(str(exc.args[0])) from None


def settings_of(app: App) -> MemorySettings:
    settings: MemorySettings = app.config.section(SECTION)
    return settings


def _confidence(old: float | None, new: float | None) -> str:
    def shown(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"
    return shown(new) if old == new else f"{shown(old)} -> {shown(new)}"


def _note(entry: HistoryEntry) -> str:
    parts = []
    if entry.old_active is not None and entry.new_active is not None and entry.old_active != entry.new_active:
        parts.append("activated" if entry.new_active else "deactivated")
    if entry.related_memory_id is not None:
        parts.append(f"related #{entry.related_memory_id}")
    if entry.refers_to is not None:
        parts.append(f"refers to change #{entry.refers_to}")
    if entry.needs_review:
        parts.append("flagged for review")
    if entry.new_observation is not None and entry.old_observation is not None:
        parts.append(f"text {entry.old_observation!r} -> {entry.new_observation!r}")
    if entry.reason:
        parts.append(entry.reason)
    return "; ".join(parts)


def format_entries(entries: list[HistoryEntry], *, with_memory: bool = False) -> list[str]:
    """Aligned rows: change id, (memory,) time, kind, actor, confidence, how it was decided, then a note."""
    header = ("CHANGE", *(("MEMORY",) if with_memory else ()), "WHEN", "KIND", "ACTOR", "CONFIDENCE", "DECIDED BY")
    rows = [header] + [(f"{entry.id}", *((f"#{entry.memory_id}",) if with_memory else ()), entry.changed_at,
                        entry.kind, entry.actor_label, _confidence(entry.old_confidence, entry.new_confidence),
                        entry.decision_label or "-") for entry in entries]
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    notes = ["NOTE"] + [_note(entry) for entry in entries]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) + "  " + note
            for row, note in zip(rows, notes, strict=True)]


def _deleted_copy(entries: list[HistoryEntry]) -> MemoryRecord | None:
    """The row a deletion kept, for a memory that is gone."""
    removal = next((entry for entry in reversed(entries) if entry.snapshot), None)
    return None if removal is None or removal.snapshot is None else history.read_snapshot(removal.snapshot)[0]


def _now_reason(memory: MemoryRecord | None, settings: MemorySettings) -> str:
    if memory is None:
        return "deleted"
    return repository.injection_reason(memory, settings.budget_tokens, settings.min_confidence)


@click.command("history")
@click.argument("memory_id", metavar="ID", type=int)
@click.option("--json", "as_json", is_flag=True, help="Print the memory, its injection counts and every entry.")
@pass_app
def history_command(app: App, memory_id: int, as_json: bool) -> None:
    """One memory's timeline: every change, who made it and how it was decided.

    Also says in how many sessions it was injected, the last one, and why it is or is not in
    the prompt now. A deleted memory's history is shown until it is purged.
    """
    settings = settings_of(app)
    open_store_or_fail(app)
    memory = repository.get_memory(memory_id)
    entries = history.memory_history(memory_id)
    if memory is None and not entries:
        raise UsageProblem(f"no memory with id {memory_id}, stored or in the history")
    count = ledger.injection_counts([memory_id])[memory_id]
    now = _now_reason(memory, settings)
    if as_json:
        click.echo(json.dumps({"memory": None if memory is None else memory.as_row(), "deleted": memory is None,
                               "injected_sessions": count.sessions, "last_injected_session": count.last_session_id,
                               "now": now, "changes": [entry.as_row() for entry in entries]}, indent=2))
        return
    shown = memory or _deleted_copy(entries)
    if shown is not None:
        state = "deleted" if memory is None else "active" if shown.active else "inactive"
        click.echo(f"memory #{memory_id} [{shown.category}:{shown.service_label}] {state}, confidence "
                   f"{shown.confidence:.2f}: {shown.observation}")
    last = f", last session #{count.last_session_id}" if count.last_session_id else ""
    click.echo(f"injected into {counted(count.sessions, 'session')}{last}; now: {now}")
    if memory is None:
        click.echo(f"restore it with: claudeops memories restore {memory_id}")
    click.echo("")
    click.echo("\n".join(format_entries(entries)))


@click.command("changes")
@click.option("--kind", type=click.Choice(history.KINDS), help="Only changes of this kind.")
@click.option("--actor", type=click.Choice(history.ACTORS), help="Only changes made by this actor.")
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True, help="Show at most this many.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of entries.")
@pass_app
def changes_command(app: App, kind: str | None, actor: str | None, limit: int, as_json: bool) -> None:
    """Recent changes across all memories, newest first."""
    open_store_or_fail(app)
    entries = history.recent_changes(kind=kind, actor=actor, limit=limit)
    if as_json:
        click.echo(json.dumps([entry.as_row() for entry in entries], indent=2))
    elif entries:
        click.echo("\n".join(format_entries(entries, with_memory=True)))
    else:
        click.echo("No changes match.")


def describe_revert(reverted: undo.Reverted) -> str:
    entry = reverted.entry
    done = f"{entry.reason or 'reverted'}: memory #{entry.memory_id}"
    if reverted.memory is None:
        done += " removed (restorable)"
    else:
        done += (f" back to confidence {reverted.memory.confidence:.2f}, "
                 f"{'active' if reverted.memory.active else 'inactive'}")
    others = [memory_id for memory_id in reverted.removed if memory_id != entry.memory_id]
    if others:
        done += "; removed " + ", ".join(f"#{memory_id}" for memory_id in others) + " (restorable)"
    return done


@click.command("revert")
@click.argument("change_id", metavar="CHANGE", type=int)
@pass_app
def revert_command(app: App, change_id: int) -> None:
    """Undo one change (its id is in "history" and "changes"), restoring the state before it.

    Only a memory's latest change can be undone; undoing a replacement also removes the memory
    that replaced it. The undo is itself recorded.
    """
    settings = settings_of(app)
    open_store_or_fail(app)
    with one_line_errors():
        reverted = undo.revert_change(change_id, settings)
    click.echo(describe_revert(reverted))


@click.command("restore")
@click.argument("memory_id", metavar="ID", type=int)
@pass_app
def restore_command(app: App, memory_id: int) -> None:
    """Bring a deleted memory back exactly as it was (until it is purged)."""
    open_store_or_fail(app)
    with one_line_errors():
        memory = undo.restore_memory(memory_id)
    click.echo(f"restored memory #{memory.id} [{memory.category}:{memory.service_label}] "
               f"(confidence {memory.confidence}, {'active' if memory.active else 'inactive'})")


@click.command("purge")
@click.argument("memory_id", metavar="ID", type=int)
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@pass_app
def purge_command(app: App, memory_id: int, yes: bool) -> None:
    """Delete a memory and its whole history for good (for a memory that should never have existed).

    Unlike "rm", nothing can restore it afterwards.
    """
    open_store_or_fail(app)
    entries = len(history.memory_history(memory_id))
    if not entries and repository.get_memory(memory_id) is None:
        raise UsageProblem(f"no memory with id {memory_id}, stored or in the history")
    if not yes:
        click.confirm(f"Purge memory #{memory_id} and its {counted(entries, 'history entry', 'history entries')} "
                      "for good? Nothing can restore it afterwards", abort=True)
    with one_line_errors():
        erased = undo.purge_memory(memory_id)
    click.echo(f"purged memory #{memory_id} ({counted(erased, 'history entry', 'history entries')} erased)")


HISTORY_COMMANDS = (history_command, changes_command, revert_command, restore_command, purge_command)

