"""Built-in plugin: the agent's persistent operational memory (SPEC-0015).

The agent records ``[MEMORY:category(:service)] observation`` markers in any tier; they are
stored (reinforcing, contradicting or adding to what is known), decay when not confirmed, and
the most trusted ones are appended to every session's system prompt. Operators manage them
with ``claudeops memories`` and the dashboard. Each concept lives in its own module; this one
only wires them to the hooks, exactly as a third-party plugin would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from claudeops import Config, Session, counted, hookimpl
from claudeops_memory import figures
from claudeops_memory.cli import memories_group
from claudeops_memory.marker import MEMORY_MARKER
from claudeops_memory.migrations import MIGRATIONS, OWNER
from claudeops_memory.session_start import start_memory
from claudeops_memory.settings import SECTION, MemorySettings, validate
from claudeops_memory.web import register_web  # noqa: F401  the /memories dashboard page

MEMORY_ORDER = 40
"""Position of the memory section in the system prompt (after environment, handoff, cooldowns)."""


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
    """Decay stale memories first, so the injected block reflects it, then inject the block."""
    settings: MemorySettings = session.config.section(SECTION)
    start = start_memory(settings, session.now())
    if start.decay.deactivated:
        deactivated = counted(start.decay.deactivated, "memory", "memories")
        session.record_event("info", f"staleness decay deactivated {deactivated} "
                                     f"(not reinforced for over {settings.grace_days} days)")
    session.add_prompt_section("memory", start.context.text, MEMORY_ORDER)


@hookimpl(trylast=True)
def judge_memory_relation(existing: str, new: str, service: str | None) -> str:
    """The offline default judge; any other plugin's answer comes first.  It is given the service
    because naming it ("redis snapshots ...") says nothing about which fact a memory states."""
    from claudeops_memory.judge import judge_relation  # rapidfuzz is only imported when a marker arrives

    return judge_relation(existing, new, service)


@hookimpl
def register_commands(cli: click.Group) -> None:
    cli.add_command(memories_group)


@hookimpl
def digest_lines(since: str, until: str) -> list[str]:
    return figures.digest_lines(since, until)


@hookimpl
def collect_metrics() -> list[Any]:
    return figures.memory_metrics()
