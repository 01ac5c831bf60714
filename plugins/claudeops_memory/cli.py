"""``claudeops memories``: what the agent knows, from the command line.

The commands are a stable interface (scripts use ``list --json``), so their names, options and
output columns only ever grow. Bad input (an unknown category, a confidence outside [0, 1], an
unknown id) is a one-line error with a non-zero exit, checked before anything is written.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from claudeops import (
    MAX_ROW_ID,
    App,
    UsageProblem,
    aligned_rows,
    counted,
    echo_stream,
    now_timestamp,
    open_store_or_fail,
    pass_app,
)
from claudeops_memory import flags, repository
from claudeops_memory.cli_history import one_line_errors
from claudeops_memory.context import memory_section
from claudeops_memory.decay import decay_stale_memories, outlook_lines
from claudeops_memory.decay_policy import DecayPolicy
from claudeops_memory.json_listing import write_json_array
from claudeops_memory.listing import count, stream_memories, stream_pages
from claudeops_memory.models import CATEGORIES
from claudeops_memory.operator_text import warn_if_redacted, without_secrets
from claudeops_memory.pins import pin_memory, unpin_memory
from claudeops_memory.repository import MemoryRecord
from claudeops_memory.session_start import preview_memory_context
from claudeops_memory.settings import SECTION, MemorySettings

CATEGORY_HELP = "one of: " + ", ".join(CATEGORIES)


def _settings(app: App) -> MemorySettings:
    settings: MemorySettings = app.config.section(SECTION)
    return settings


def _check_category(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        return repository.validate_category(value)
    except ValueError as exc:
        raise UsageProblem(str(exc)) from None


def _check_confidence(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    """On the command line a confidence outside [0, 1] is a mistake to report, not to clamp."""
    if value is None:
        return None
    try:
        number = float(value)
    except ValueError:
        raise UsageProblem(f"confidence must be a number between 0 and 1, not {value!r}") from None
    if not 0.0 <= number <= 1.0:
        raise UsageProblem(f"confidence must be between 0 and 1, not {value}")
    return number


def _check_service(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    try:
        repository.normalise_service(value)
    except ValueError as exc:
        raise UsageProblem(str(exc)) from None
    return value


def _one_line(function: Any, *args: Any, **kwargs: Any) -> Any:
    """Call a repository function; its ``ValueError``/``KeyError`` becomes a one-line CLI error."""
    with one_line_errors():
        return function(*args, **kwargs)


def _warn_if_redacted(app: App, kinds: tuple[str, ...], what: str) -> None:
    """Tell the operator, and record the warning event, when their text held a secret."""
    if kinds:
        warn_if_redacted(lambda event: app.hook.record_event(event=event), kinds, what)
        click.echo(f"claudeops: warning: a secret ({', '.join(kinds)}) was removed from the observation before it "
                   f"was stored", err=True)


LIST_HEADER = ("ID", "CONF", "STATE", "SERVICE", "CATEGORY", "UPDATED", "OBSERVATION")


def memory_row(memory: MemoryRecord, flagged: set[int]) -> tuple[str, ...]:
    """One row: id, confidence, state (active, pinned: active and exempt from decay, inactive, or flagged:
    held back for review), service, category, last update, observation."""
    state = ("pinned" if memory.pinned_at else "active") if memory.active else (
        "flagged" if memory.id in flagged else "inactive")
    return (f"{memory.id}", f"{memory.confidence:.2f}", state, memory.service_label, memory.category,
            memory.updated_at, memory.observation)


@click.group("memories")
def memories_group() -> None:
    """The agent's operational memory: list, add, edit, remove, pin, preview and decay memories;
    their history, undo and the review queue.

    \b
    Memories come from [MEMORY:category(:service)] markers the agent writes in any tier, or
    from an operator (add). Active memories with confidence >= memory.min_confidence are
    injected into every session's system prompt, most trusted first, within
    memory.budget_tokens (env CLAUDEOPS_MEMORY_BUDGET).
    """


LIST_LIMIT = 100
"""Memories ``memories list`` prints unless told otherwise: a screenful of the most trusted."""
ROWS = click.IntRange(0, MAX_ROW_ID, clamp=True)
"""``--limit`` and ``--offset`` of ``memories list``: like the core's ``LIMIT``, a number past any table's
size means every row (no OverflowError from the driver), and ``--limit 0`` means every row too."""


@memories_group.command("list")
@click.option("--service", metavar="S", callback=_check_service,
              help='Only memories about service S; "general" selects memories about no service.')
@click.option("--category", metavar="C", callback=_check_category,
              help=f"Only memories of category C ({CATEGORY_HELP}).")
@click.option("--inactive", "only_inactive", is_flag=True, help="Only inactive memories (not with --all).")
@click.option("--all", "include_inactive", is_flag=True, help="Active and inactive memories (not with --inactive).")
@click.option("--limit", type=ROWS, default=LIST_LIMIT, show_default=True, metavar="N",
              help="Print at most N memories; 0 prints every one (streamed: memory use stays flat).")
@click.option("--offset", type=ROWS, default=0, metavar="N",
              help="Skip the N most trusted memories first (the next page: --offset 100).")
@click.option("--json", "as_json", is_flag=True,
              help="Print a JSON array of objects with the memories table's columns (SPEC-0015's, then pinned_at "
                   "and unpinned_at).")
@pass_app
def list_command(app: App, service: str | None, category: str | None, only_inactive: bool, include_inactive: bool,
                 limit: int, offset: int, as_json: bool) -> None:
    """List memories, most trusted first, a page at a time.

    Only active memories unless --inactive or --all (one of them); --json prints the table's columns.
    The first 100 unless --limit says otherwise (--limit 0: all of them); a note on stderr says when
    more match.
    """
    if only_inactive and include_inactive:
        raise UsageProblem("--inactive and --all exclude each other: choose one")
    open_store_or_fail(app)
    wanted = repository.memory_filter(service=service, category=category, include_inactive=include_inactive,
                                      only_inactive=only_inactive)
    if as_json:  # the rows encoded as they come, no record per row: 1M memories in seconds
        printed = write_json_array(stream_pages(wanted, limit or None, offset), sys.stdout)
    else:
        printed = echo_stream(stream_memories(wanted, limit or None, offset), as_json=False,
                              to_json=MemoryRecord.as_row, header=LIST_HEADER, to_rows=_with_flags,
                              nothing="No memories match.")
    if limit and printed == limit and (total := count(wanted)) > offset + printed:
        click.echo(f"{offset + 1}-{offset + printed} of {total:,} memories; the next page: --offset {offset + printed} "
                   "(--limit 0 for all)", err=True)


def _with_flags(memories: list[MemoryRecord]) -> list[tuple[str, ...]]:
    flagged = set(flags.flag_reasons(memory.id for memory in memories if not memory.active))
    return [memory_row(memory, flagged) for memory in memories]


@memories_group.command("add")
@click.option("--category", required=True, metavar="C", callback=_check_category, help=f"Category ({CATEGORY_HELP}).")
@click.option("--service", metavar="S", callback=_check_service,
              help="The service it is about (leave out, or give \"general\", for the whole environment).")
@click.option("--confidence", metavar="X", callback=_check_confidence,
              help="Confidence between 0 and 1 (default: memory.default_confidence, 0.7).")
@click.argument("text", nargs=-1, required=True)
@pass_app
def add_command(app: App, category: str, service: str | None, confidence: float | None, text: tuple[str, ...]) -> None:
    """Add a memory as the operator.

    TEXT is the observation (words are joined with spaces); the memory has no session.
    """
    settings = _settings(app)
    observation, secrets = without_secrets(" ".join(text))
    open_store_or_fail(app)
    memory = _one_line(repository.create_memory, category=category, observation=observation, service=service,
                       confidence=settings.default_confidence if confidence is None else confidence,
                       min_confidence=settings.min_confidence, max_chars=settings.max_observation_chars)
    _warn_if_redacted(app, secrets, f"memory #{memory.id}, added by an operator")
    click.echo(f"added memory #{memory.id} [{memory.category}:{memory.service_label}] "
               f"(confidence {memory.confidence}, {'active' if memory.active else 'inactive'})")


@memories_group.command("edit")
@click.argument("memory_id", metavar="ID", type=int)
@click.option("--observation", metavar="T", help="New observation text.")
@click.option("--confidence", metavar="X", callback=_check_confidence, help="New confidence between 0 and 1.")
@click.option("--active", "activate", is_flag=True,
              help="Activate; by default a new confidence decides (>= memory.min_confidence reactivates).")
@click.option("--inactive", "deactivate", is_flag=True, help="Deactivate (not with --active).")
@pass_app
def edit_command(app: App, memory_id: int, observation: str | None, confidence: float | None,
                 activate: bool, deactivate: bool) -> None:
    """Change a memory's text, confidence or state.

    Refreshes its last update (which restarts staleness decay). A confidence at or above
    memory.min_confidence reactivates the memory, one below deactivates it, unless --active
    or --inactive says otherwise.
    """
    if activate and deactivate:
        raise UsageProblem("--active and --inactive exclude each other: choose one")
    active = True if activate else False if deactivate else None
    if observation is None and confidence is None and active is None:
        raise UsageProblem("nothing to change: give --observation, --confidence, --active or --inactive")
    settings = _settings(app)
    observation, secrets = without_secrets(observation)
    open_store_or_fail(app)
    memory = _one_line(repository.update_memory, memory_id, observation=observation, confidence=confidence,
                       active=active, min_confidence=settings.min_confidence,
                       max_chars=settings.max_observation_chars)
    _warn_if_redacted(app, secrets, f"the new text of memory #{memory.id}, edited by an operator")
    click.echo(f"updated memory #{memory.id} (confidence {memory.confidence}, "
               f"{'active' if memory.active else 'inactive'})")


@memories_group.command("rm")
@click.argument("memory_ids", metavar="ID...", type=int, nargs=-1, required=True)
@click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")
@pass_app
def rm_command(app: App, memory_ids: tuple[int, ...], yes: bool) -> None:
    """Delete memories (asks unless --yes); "restore" brings one back until it is purged."""
    open_store_or_fail(app)
    wanted = sorted(set(memory_ids))
    unknown = sorted(set(wanted) - repository.existing_ids(wanted))
    if unknown:
        raise UsageProblem(f"no memory with id {', '.join(map(str, unknown))}; nothing deleted")
    listed = ", ".join(f"#{memory_id}" for memory_id in wanted)
    if not yes:
        click.confirm(f"Delete {counted(len(wanted), 'memory', 'memories')} ({listed})?", abort=True)
    deleted = repository.delete_memories(wanted)
    click.echo(f"deleted {counted(deleted, 'memory', 'memories')} ({listed})")


@memories_group.command("context")
@click.option("--explain", is_flag=True,
              help="After the section, for each memory in it: when it decays next and when it would fall under "
                   "the floor (not part of what a session is given).")
@pass_app
def context_command(app: App, explain: bool) -> None:
    """Print the memory section a session starting now would get.

    Exactly what would be appended to the system prompt (the paragraph that frames memories as
    data, then the block): the staleness decay a session applies first is taken into account
    but not applied (run "decay" for that); nothing is written.
    """
    settings = _settings(app)
    open_store_or_fail(app)
    now = now_timestamp()
    plan = preview_memory_context(settings, now)
    if plan.text:
        click.echo(memory_section(plan.text))
    else:
        click.echo(f"no memory would be injected ({plan.total} qualify: active with confidence >= "
                   f"{settings.min_confidence}, budget {settings.budget_tokens} tokens)", err=True)
    if explain and plan.ranked_ids:
        _explain(plan.ranked_ids, DecayPolicy.of(settings), now)


def _explain(ranked_ids: tuple[int, ...], policy: DecayPolicy, now: str) -> None:
    """The decay outlook of each injected memory, under a rule that keeps it apart from the section."""
    memories = [memory for memory_id in ranked_ids if (memory := repository.get_memory(memory_id)) is not None]
    lines = outlook_lines(memories, policy, now)
    click.echo("\n" + "-" * 24 + " explanation: not part of the prompt " + "-" * 24)
    rows = [("RANK", "ID", "CONF", "DECAY")]
    rows += [(str(rank), f"#{memory.id}", f"{memory.confidence:.2f}", lines[memory.id])
             for rank, memory in enumerate(memories, 1)]
    click.echo("\n".join(aligned_rows(rows)))


@memories_group.command("decay")
@pass_app
def decay_command(app: App) -> None:
    """Apply staleness decay now (safe to repeat).

    Every session start does the same; a memory loses memory.decay_per_week per full week
    without reinforcement past memory.grace_days, once.
    """
    settings = _settings(app)
    open_store_or_fail(app)
    result = decay_stale_memories(now_timestamp(), DecayPolicy.of(settings))
    click.echo(f"decayed {counted(result.decayed, 'memory', 'memories')} ({result.deactivated} deactivated)")


@memories_group.command("pin")
@click.argument("memory_id", metavar="ID", type=int)
@pass_app
def pin_command(app: App, memory_id: int) -> None:
    """Pin a memory: an evergreen fact that does not decay (reinforcement and edits work as usual)."""
    open_store_or_fail(app)
    result = _one_line(pin_memory, memory_id)
    click.echo(f"pinned memory #{memory_id}: it does not decay" if result.changed
               else f"memory #{memory_id} was already pinned")


@memories_group.command("unpin")
@click.argument("memory_id", metavar="ID", type=int)
@pass_app
def unpin_command(app: App, memory_id: int) -> None:
    """Unpin a memory: it decays again, after a fresh grace period that starts now."""
    open_store_or_fail(app)
    result = _one_line(unpin_memory, memory_id)
    click.echo(f"unpinned memory #{memory_id}: its grace period starts now" if result.changed
               else f"memory #{memory_id} was not pinned")
