"""What hooks receive about the session in progress, and how it ended.

``Session`` carries the row, the configuration, the clock and the hook caller, so plugins
never reach for globals and tests can substitute a fake clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from claudeops.clock import Clock, now_timestamp, utc_now
from claudeops.exit_codes import EXIT_OK
from claudeops.notable import NotableEvent
from claudeops.redaction import secret_literals
from claudeops.redaction_ledger import RedactionLedger, redaction_warning

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
    replayed: bool = False
    """The session replays a recording (or a script) instead of asking the model: it spends nothing."""
    handoff: Handoff | None = None
    clock: Clock = utc_now
    prompt_sections: list[PromptSection] = field(default_factory=list)
    escalation: EscalationRequest | None = None
    markers_recorded: int = 0
    plugin_state: dict[str, Any] = field(default_factory=dict)
    """Per-session scratch space for plugins, keyed by plugin name; gone when the session ends."""
    recorded_events: list[NotableEvent] = field(default_factory=list, repr=False)
    """What :meth:`record_event` reported, in order: the escalation handoff passes them on."""
    plugin_cost_usd: float = 0.0
    """What plugins spent for this session outside the agent's own model calls (:meth:`add_cost`)."""
    redactions: RedactionLedger = field(default_factory=lambda: RedactionLedger(secret_literals()), repr=False)
    """The secrets this session redacted, by kind and where (never the values), and the credential
    values of the runner's environment it redacts verbatim."""
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

    def add_cost(self, usd: float) -> None:
        """Count money a plugin spent on this session's behalf (its own API call, e.g. the memory
        plugin's Claude judge) in the session's ``cost_usd``, which otherwise holds only what the
        Claude Code CLI reports for the agent's model calls."""
        if usd > 0:
            self.plugin_cost_usd += usd

    def total_cost(self, agent_cost_usd: float | None) -> float | None:
        """The session's cost: the agent's (``None`` without a result) plus what plugins spent."""
        if not self.plugin_cost_usd:
            return agent_cost_usd
        return (agent_cost_usd or 0.0) + self.plugin_cost_usd

    def record_event(self, level: str, message: str, service: str | None = None, kind: str | None = None) -> None:
        """Tell every ``record_event`` implementation about a notable happening of this session.

        The message is redacted first (:meth:`redact`), so no implementation ever sees a secret.
        ``kind`` is one of :data:`claudeops.notable.EVENT_KINDS` (or a plugin's own word) when code
        should be able to route on what happened, e.g. to notify the operator.
        """
        event = NotableEvent(level, self.redact(message, "events"), self.now(), service, self.id, kind)
        self.recorded_events.append(event)
        self.hook.record_event(event=event)

    def redact(self, text: str, where: str = "plugin text") -> str:
        """``text`` without secrets: :func:`claudeops.redact_secrets`, plus the runner's credential values.

        For a plugin about to keep or show text the session handed it (a tool's output seen in
        ``on_message``, say). What was found is not reported here but once, when the session ends,
        in one warning event naming the kinds and ``where`` they were found.
        """
        return self.redactions.redact(text, where)

    def report_redaction(self, what: str, kinds: tuple[str, ...]) -> None:
        """Record the warning that secrets of ``kinds`` were redacted from ``what`` (the kinds, never the values)."""
        self.redactions.mark_reported(kinds)
        self.record_event("warning", redaction_warning(what, kinds))

    def report_unreported_redactions(self) -> None:
        """The session's one warning for what it redacted outside markers, naming only kinds no warning named."""
        pending = self.redactions.unreported()
        if pending:
            kinds = tuple(sorted({kind for found in pending.values() for kind in found}))
            self.report_redaction(f"session #{self.id}'s {', '.join(sorted(pending))}", kinds)


@dataclass(frozen=True)
class SessionDetail:
    """A plugin's part of ``claudeops sessions show`` (the ``describe_session`` hook): ``title`` and
    its ``lines`` in the text, ``data`` under ``details[key]`` in ``--json``."""

    key: str
    title: str
    lines: tuple[str, ...]
    data: Any


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


@dataclass(frozen=True)
class Run:
    """One ``claudeops run`` (or a test's chain) as the run hooks see it: a first session and its escalations.

    ``id`` is a fresh UUID per run, for pairing a start with its end (healthchecks.io's ``rid``).
    ``replayed`` runs replay recordings: they spend nothing and are no sign of cron working.
    """

    id: str
    tier: int
    trigger: str
    replayed: bool
    config: Config
    hook: pluggy.HookRelay
    clock: Clock = utc_now

    def now(self) -> str:
        return now_timestamp(self.clock)


@dataclass(frozen=True)
class RunOutcome:
    """How a run ended: its exit code, and in one line why it did not succeed (``None`` when it did)."""

    exit_code: int
    reason: str | None
    session_ids: tuple[int, ...] = ()
    refused: str | None = None
    """Why a session of the run was not started (``check_session_start``), or ``None``."""

    @property
    def ok(self) -> bool:
        return self.exit_code == EXIT_OK
