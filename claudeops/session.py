"""What hooks receive about the session in progress, and how it ended.

``Session`` carries the row, the configuration, the clock and the hook caller, so plugins
never reach for globals and tests can substitute a fake clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from claudeops.clock import Clock, now_timestamp, utc_now
from claudeops.notable import NotableEvent

if TYPE_CHECKING:
    import pluggy

    from claudeops.config import Config, TierSettings


@dataclass(frozen=True)
class PromptSection:
    """A block of Markdown appended to the Claude Code system prompt."""

    name: str
    text: str
    order: int


@dataclass(frozen=True)
class EscalationRequest:
    """The session asked for the next tier (``[ESCALATE] reason``)."""

    reason: str


@dataclass(frozen=True)
class Handoff:
    """What a lower tier passes to the tier it escalated to."""

    from_session_id: int
    from_tier: int
    reason: str
    final_text: str
    events: tuple[str, ...] = ()


@dataclass(frozen=True)
class JudgedCommand:
    """A Bash command the runner's tool gate judged in this session, and whether it refused it.

    A marker that claims what a refused command would have done (a restart the cooldowns refused)
    describes something that did not happen; the plugin that handles it can tell from these.
    """

    command: str
    refused: bool


READ_ONLY_TIER = 1
"""Tier 1 observes: the runner's tool gate refuses its state-changing calls, whatever the allow rules say."""


def read_only_mode(dry_run: bool, tier: int) -> str | None:
    """Why a session may not change anything ("dry run", "tier 1 is read-only"), or ``None``.

    Here, not next to the gate in :mod:`claudeops.toolgate`: plugins ask it (a cooldown recorded at
    tier 1 did not happen), and importing the check would load the shell parser at every start.
    """
    if dry_run:
        return "dry run"
    if tier == READ_ONLY_TIER:
        return f"tier {tier} is read-only"
    return None


@dataclass
class Session:
    """A running session as plugins see it."""

    id: int
    tier: int
    model: str
    trigger: str
    config: Config
    hook: pluggy.HookRelay
    parent_id: int | None = None
    dry_run: bool = False
    handoff: Handoff | None = None
    clock: Clock = utc_now
    prompt_sections: list[PromptSection] = field(default_factory=list)
    escalation: EscalationRequest | None = None
    markers_recorded: int = 0
    plugin_state: dict[str, Any] = field(default_factory=dict)
    """Per-session scratch space for plugins, keyed by plugin name; gone when the session ends."""
    recorded_events: list[NotableEvent] = field(default_factory=list, repr=False)
    """What :meth:`record_event` reported, in order: the escalation handoff passes them on."""
    judged_commands: list[JudgedCommand] = field(default_factory=list, repr=False)
    """Every Bash command the tool gate judged so far, in order (none when nothing could refuse one)."""

    @property
    def settings(self) -> TierSettings:
        return self.config.tier(self.tier)

    @property
    def read_only(self) -> str | None:
        """Why this session may not change anything, or ``None`` (see :func:`read_only_mode`)."""
        return read_only_mode(self.dry_run, self.tier)

    def now(self) -> str:
        """The current time as stored text, from the session's clock."""
        return now_timestamp(self.clock)

    def add_prompt_section(self, name: str, text: str, order: int) -> None:
        """Append ``text`` to the system prompt; empty text adds nothing (no empty headers)."""
        if text.strip():
            self.prompt_sections.append(PromptSection(name, text.strip(), order))

    def ordered_sections(self) -> list[PromptSection]:
        return sorted(self.prompt_sections, key=lambda section: (section.order, section.name))

    def record_event(self, level: str, message: str, service: str | None = None) -> None:
        """Tell every ``record_event`` implementation about a notable happening of this session."""
        event = NotableEvent(level, message, self.now(), service, self.id)
        self.recorded_events.append(event)
        self.hook.record_event(event=event)


@dataclass(frozen=True)
class Outcome:
    """How a session ended. ``status`` is one of :data:`claudeops.sessions.STATUSES`."""

    status: str
    reason: str | None = None
    result_text: str | None = None
    cost_usd: float | None = None
    num_turns: int | None = None
    duration_ms: int | None = None
    sdk_session_id: str | None = None
    duration_api_ms: int | None = None
    """The model API's share of ``duration_ms``, as the result reports it (``None`` without a result)."""

    @property
    def ok(self) -> bool:
        return self.status in ("completed", "escalated")
