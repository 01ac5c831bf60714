"""Built-in plugin: the agent's persistent operational memory (SPEC-0015).

The agent records ``[MEMORY:category(:service)] observation`` markers in any tier; they are
stored (reinforcing, contradicting or adding to what is known), decay when not confirmed, and
the most trusted ones are appended to every session's system prompt. Operators manage them
with ``claudeops memories`` and the dashboard. Each concept lives in its own module; this one
only wires them to the hooks, exactly as a third-party plugin would.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache
from typing import Any

import click

from claudeops import Config, DoctorCheck, Session, SessionDetail, counted, hookimpl
from claudeops_memory.context import memory_section
from claudeops_memory.judging import answers_in_groups
from claudeops_memory.ledger import record_injection
from claudeops_memory.marker import MEMORY_MARKER
from claudeops_memory.migrations import MIGRATIONS, OWNER
from claudeops_memory.session_start import start_memory
from claudeops_memory.settings import SECTION, MemorySettings, validate
from claudeops_memory.shared_answers import convert_each_once
from claudeops_memory.verdict import JudgeVerdict
from claudeops_memory.web import register_web  # noqa: F401  the /memories dashboard page

MEMORY_ORDER = 40
"""Position of the memory section in the system prompt (after environment, handoff, cooldowns)."""

claudeops_required = True
"""A session whose memory block could not be built fails, instead of running without what it knows."""


@hookimpl
def register_settings(register: Callable[[str, type], None]) -> None:
    register(SECTION, MemorySettings)


@hookimpl
def configure(config: Config) -> None:
    validate(config)


@hookimpl
def register_migrations(register: Callable[..., None]) -> None:
    register(OWNER, MIGRATIONS)


@hookimpl
def register_marker_types(register: Callable[..., None]) -> None:
    register(MEMORY_MARKER)


@hookimpl
def before_session(session: Session) -> None:
    """Decay stale memories first, so the injected block reflects it, then inject the block and keep
    what was injected (and what the budget cut) in the session's injection ledger."""
    settings: MemorySettings = session.config.section(SECTION)
    start = start_memory(settings, session.now())
    record_injection(session.id, start.context, settings.budget_tokens, session.now())
    if start.decay.deactivated:
        deactivated = counted(start.decay.deactivated, "memory", "memories")
        session.record_event("info", f"staleness decay deactivated {deactivated} "
                                     f"(not reinforced for over {settings.grace_days} days)")
    session.add_prompt_section("memory", memory_section(start.context.text), MEMORY_ORDER)


@hookimpl(trylast=True)
def judge_memory_relations(new: str, existing: list[str], service: str | None, category: str,
                           session: Session | None) -> list[JudgeVerdict | None] | None:
    """The Claude judge, when ``memory.judge = "claude"``: one Messages API request for the whole
    group; ``None`` (the offline judge answers, with a warning) when it cannot be asked or fails."""
    if session is None or session.config.section(SECTION).judge != "claude":
        return None
    from claudeops_memory.claude_judge import ask_claude  # the anthropic package only when it is used

    return ask_claude(session, new, existing, service, category)


@hookimpl
def after_session(session: Session) -> None:
    """Close the Claude judge's client, which serves every marker of one session."""
    if session.config.section(SECTION).judge == "claude":
        from claudeops_memory.claude_judge import close_session_client

        close_session_client(session)


def judge_offline_group(new: str, existing: list[str], service: str | None) -> list[JudgeVerdict]:
    """The offline judge about a whole group at once (far-apart pairs settled cheaply, ``judge.group``)."""
    from claudeops_memory.judge import judge_group  # rapidfuzz is only imported when a marker arrives

    return convert_each_once(_offline_verdict, judge_group(new, existing, service))  # many pairs share a judgement


@lru_cache(maxsize=4096)
def _offline_verdict(judgement: Any) -> JudgeVerdict:
    """A judgement of the offline judge as a verdict (shared: many pairs get the same judgement)."""
    return JudgeVerdict(judgement.relation, judgement.certainty, judgement.reason, "offline")


@hookimpl(trylast=True)
@answers_in_groups(judge_offline_group)
def judge_memory_relation(existing: str, new: str, service: str | None) -> JudgeVerdict:
    """The offline judge; any other plugin's answer comes first.  It is given the service because
    naming it ("redis snapshots ...") says nothing about which fact a memory states."""
    [verdict] = judge_offline_group(new, [existing], service)
    return verdict


@hookimpl
def doctor_checks(config: Config) -> list[DoctorCheck]:
    """Which relation judge decides, and whether the Claude judge can be asked with these credentials."""
    settings: MemorySettings = config.section(SECTION)
    if settings.judge != "claude":
        return [DoctorCheck("memory judge", True, "offline (built in, no network)")]
    from claudeops_memory.claude_judge import judge_model_of, unavailable_reason

    model = judge_model_of(config)
    reason = unavailable_reason(os.environ)
    if reason is not None:
        return [DoctorCheck("memory judge", True, f"claude ({model}) is unavailable: {reason}; the offline judge "
                                                  "decides instead", warning=True)]
    return [DoctorCheck("memory judge", True, f"claude ({model}) through the Messages API with ANTHROPIC_API_KEY, "
                                              f"{settings.judge_timeout_seconds:g} s timeout, offline judge as "
                                              "fallback")]


@hookimpl
def describe_session(session_id: int) -> SessionDetail:
    """``claudeops sessions show``: what the session was told and which memories it changed."""
    from claudeops_memory.session_report import describe

    return describe(session_id)


@hookimpl
def register_commands(cli: click.Group) -> None:
    # Imported here, not at the top, as every module below is: a session (``claudeops run``) uses none of them
    from claudeops_memory.cli import memories_group
    from claudeops_memory.cli_history import HISTORY_COMMANDS
    from claudeops_memory.cli_review import review_group
    from claudeops_memory.cli_transfer import TRANSFER_COMMANDS

    for command in (*HISTORY_COMMANDS, *TRANSFER_COMMANDS, review_group):
        memories_group.add_command(command)
    cli.add_command(memories_group)


@hookimpl
def digest_lines(since: str, until: str) -> list[str]:
    from claudeops_memory import figures

    return figures.digest_lines(since, until)


@hookimpl
def collect_metrics(config: Config) -> list[Any]:
    from claudeops_memory import figures

    return figures.memory_metrics(config.section(SECTION))
