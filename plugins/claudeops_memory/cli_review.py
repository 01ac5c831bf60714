"""``claudeops memories review``: the review queue from the command line.

Without a sub-command it lists what waits for a human look (the same items as the dashboard's
Review view); ``accept``, ``revert``, ``merge`` and ``keep-both`` decide one. Each action is
recorded in the history with ``review`` as the actor.
"""

from __future__ import annotations

import json

import click

from claudeops import App, open_store_or_fail, pass_app
from claudeops_memory import review, sync_conflicts
from claudeops_memory.cli_history import describe_revert, one_line_errors, settings_of
from claudeops_memory.review import ReviewItem

COMMANDS = {"accept": "accept {change}", "revert": "revert {change}", "merge": "merge {first} {second}",
            "keep both": "keep-both {first} {second}"}
"""The command line of each action, for the hints under an item."""


RESOLVE = {"take theirs": "theirs", "keep ours": "ours", "keep both": "both"}
"""``review resolve CONFLICT WHICH``: the word for each resolution of a sync conflict."""


def _summary(item: ReviewItem) -> str:
    if item.conflict is not None:
        return f"{item.key}  sync conflict  with {item.conflict.source}, found {item.conflict.found_at}"
    if item.change is None:
        return f"{item.key}  duplicates  similarity {item.similarity}"
    how = item.change.decision_label or "-"
    return f"{item.key}  {item.kind}  by {item.change.actor_label}, {how}, {item.change.changed_at}"


def _lines(item: ReviewItem) -> list[str]:
    lines = [_summary(item)]
    roles = ("ours:   ", "theirs: ") if item.conflict is not None else ("", "")
    for role, memory in zip(roles, (item.first, item.second), strict=True):
        if memory is not None:
            lines.append(f"  {role}#{memory.id} [{memory.category}:{memory.service_label}] {memory.confidence:.2f} "
                         f"{'active' if memory.active else 'inactive'}: {memory.observation}")
    if item.conflict is not None:
        actions = [f"resolve {item.conflict.id} {RESOLVE[action]}" for action in item.actions]
    else:
        names = {"change": item.change.id if item.change else "", "first": item.first.id,
                 "second": item.second.id if item.second else ""}
        actions = [COMMANDS[action].format(**names) for action in item.actions
                   if item.second is not None or "{second}" not in COMMANDS[action]]
    lines.append("  claudeops memories review " + " | ".join(actions))
    return lines


def _item_json(item: ReviewItem) -> dict[str, object]:
    return {"key": item.key, "kind": item.kind, "actions": list(item.actions), "similarity": item.similarity,
            "conflict_id": None if item.conflict is None else item.conflict.id,
            "change": None if item.change is None else item.change.as_row(),
            "first": item.first.as_row(), "second": None if item.second is None else item.second.as_row()}


@click.group("review", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print the items as a JSON array.")
@click.pass_context
def review_group(ctx: click.Context, as_json: bool) -> None:
    """What deserves a human look: contradictions and replacements not yet reviewed, decisions a judge
    was unsure of, and likely duplicates. Lists them unless an action is given.

    \b
    accept CHANGE          the decision stands
    revert CHANGE          undo it (as "memories revert")
    merge KEEP OTHER       one fact: KEEP keeps its id and the higher confidence, OTHER is deactivated
    keep-both ID ID        two facts: leave both, and do not offer the pair again
    resolve CONFLICT WHICH a sync conflict: take theirs, keep ours, or keep both (theirs as a new memory)
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(list_items, as_json=as_json)


@pass_app
def list_items(app: App, as_json: bool) -> None:
    settings = settings_of(app)
    open_store_or_fail(app)
    items = review.review_items(settings)
    if as_json:
        click.echo(json.dumps([_item_json(item) for item in items], indent=2))
    elif items:
        click.echo("\n\n".join("\n".join(_lines(item)) for item in items))
    else:
        click.echo("Nothing to review.")


@review_group.command("accept")
@click.argument("change_id", metavar="CHANGE", type=int)
@pass_app
def accept_command(app: App, change_id: int) -> None:
    """The machine's decision (change CHANGE) stands."""
    open_store_or_fail(app)
    with one_line_errors():
        entry = review.accept(change_id)
    click.echo(f"accepted change #{change_id} (memory #{entry.memory_id})")


@review_group.command("revert")
@click.argument("change_id", metavar="CHANGE", type=int)
@pass_app
def revert_command(app: App, change_id: int) -> None:
    """Undo the machine's decision (change CHANGE)."""
    settings = settings_of(app)
    open_store_or_fail(app)
    with one_line_errors():
        reverted = review.revert(change_id, settings)
    click.echo(describe_revert(reverted))


@review_group.command("merge")
@click.argument("keep_id", metavar="KEEP", type=int)
@click.argument("other_id", metavar="OTHER", type=int)
@click.option("--text-from", "text_from", type=int, metavar="ID",
              help="Whose observation the kept memory carries (KEEP or OTHER; default KEEP).")
@pass_app
def merge_command(app: App, keep_id: int, other_id: int, text_from: int | None) -> None:
    """One fact in two memories: KEEP keeps its id, the higher confidence and one text; OTHER is deactivated."""
    settings = settings_of(app)
    open_store_or_fail(app)
    with one_line_errors():
        kept = review.merge(keep_id, other_id, settings, text_from=text_from)
    click.echo(f"merged memory #{other_id} into #{kept.id} (confidence {kept.confidence:.2f}): {kept.observation}")


@review_group.command("keep-both")
@click.argument("first_id", metavar="ID", type=int)
@click.argument("second_id", metavar="ID", type=int)
@pass_app
def keep_both_command(app: App, first_id: int, second_id: int) -> None:
    """Two facts: both memories stay as they are, and the pair is not offered again."""
    open_store_or_fail(app)
    with one_line_errors():
        review.keep_both(first_id, second_id)
    click.echo(f"kept both memories #{first_id} and #{second_id}")


@review_group.command("resolve")
@click.argument("conflict_id", metavar="CONFLICT", type=int)
@click.argument("which", metavar="WHICH", type=click.Choice(tuple(RESOLVE.values())))
@pass_app
def resolve_command(app: App, conflict_id: int, which: str) -> None:
    """Decide a sync conflict: theirs (the imported version replaces ours), ours (ours stays), or both
    (ours stays, theirs is added as a memory of its own)."""
    open_store_or_fail(app)
    resolution = next(action for action, word in RESOLVE.items() if word == which)
    with one_line_errors():
        memory = sync_conflicts.resolve(conflict_id, resolution)
    done = {"take theirs": f"memory #{memory.id} is now their version",
            "keep ours": f"memory #{memory.id} stays as it is here",
            "keep both": f"their version was added as memory #{memory.id}"}
    click.echo(f"resolved sync conflict #{conflict_id} ({resolution}): {done[resolution]}")
