"""One session, start to finish: row, hooks, SDK options, the stream, the outcome.

:class:`SessionRun` drives a single session through the Claude Agent SDK (the real CLI, or a
replay transport standing in for it) and every hook; :mod:`claudeops.runner` strings sessions
together when one escalates, and holds the entry points ``run`` / ``run_chain``.

What must hold even when things go wrong:

* the row is committed as ``running`` before anything can fail, and always ends in a final
  status with a one-line reason, so a 3 a.m. failure is visible in the morning;
* markers are committed as they arrive, so a timeout, a signal or a crash keeps them;
* a timeout or a signal stops the CLI at once (SIGTERM to the child) instead of waiting out
  the SDK's 5 s shutdown grace, then the session is recorded;
* the tool gate fails closed: a plugin that crashes while judging a tool call denies the call.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

import anyio
from claude_agent_sdk import Message, Transport, query

from claudeops.app import App
from claudeops.clock import now_timestamp
from claudeops.logs import session_fields
from claudeops.notable import SESSION_FAILED, SESSION_INTERRUPTED, NotableEvent
from claudeops.plugins import PluginError
from claudeops.runner.allow_list import configured_allow_list
from claudeops.runner.failures import exception_failure, result_failure
from claudeops.runner.hookcalls import PluginCalls
from claudeops.runner.lock import run_domain
from claudeops.runner.options import build_options, log_cli_stderr
from claudeops.runner.orphans import forget_cli, record_cli
from claudeops.runner.prompts import load_tier_prompt
from claudeops.runner.replay import GatedTransport
from claudeops.runner.sdk import CLITransport
from claudeops.runner.stream import StreamDispatcher, StreamState
from claudeops.runner.transcript import TeeTransport, TranscriptWriter
from claudeops.session import Handoff, JudgedCommand, Outcome, Session
from claudeops.session_rows import insert_session_row, update_session_row
from claudeops.store import db, write_patiently
from claudeops.toolgate import AllowList, tool_refusal
from claudeops.wording import counted

log = logging.getLogger(__name__)

TransportFactory = Callable[[int], Transport]
"""Builds the transport for a session of the given tier (replay, scripts); ``None`` means the CLI."""

STDERR_TAIL_LINES = 20


class RunObserver(Protocol):
    """Someone watching a run live (the TTY progress display)."""

    def session_started(self, session: Session) -> None: ...

    def session_progress(self, session: Session, state: StreamState) -> None: ...

    def session_ended(self, report: SessionReport) -> None: ...


@dataclass(frozen=True)
class SessionPlan:
    """Which session to run next: the first of a run, or an escalated child."""

    tier: int
    trigger: str
    parent_id: int | None = None
    handoff: Handoff | None = None
    trigger_source: str | None = None


@dataclass(frozen=True)
class SessionReport(Outcome):
    """The outcome plus what identifies the session; what ``run --json`` prints per session."""

    session_id: int = 0
    tier: int = 1
    model: str = ""
    trigger: str = ""
    parent_session_id: int | None = None
    transcript_path: str | None = None
    markers_recorded: int = 0
    tool_calls: int = 0
    tools_denied: int = 0
    escalation_requested: str | None = None
    escalation_note: str | None = None
    plugin_failures: tuple[str, ...] = ()
    events: tuple[NotableEvent, ...] = field(default=(), repr=False)

    def as_dict(self) -> dict[str, Any]:
        fields = ("session_id", "tier", "model", "trigger", "parent_session_id", "status", "reason", "cost_usd",
                  "num_turns", "duration_ms", "duration_api_ms", "sdk_session_id", "transcript_path",
                  "markers_recorded",
                  "tool_calls", "tools_denied", "escalation_requested", "escalation_note", "plugin_failures",
                  "result_text")
        data = {name: getattr(self, name) for name in fields}
        data["plugin_failures"] = list(self.plugin_failures)
        return data


EscalationVerdict = Callable[[Session], Awaitable["str | None"]]
"""Given a session that asked to escalate: ``None`` if the next tier will start, else why not."""


@dataclass
class RunSettings:
    """The parts of a run request a single session needs."""

    dry_run: bool
    prompt: str | None
    transport_factory: TransportFactory | None
    clock: Callable[[], Any]
    observer: RunObserver | None
    why: str = ""
    """Why the run was started (an operator's request, alerts), from :func:`claudeops.runner.prompts.run_reasons`."""


class SessionRun:
    """One session: created, run, recorded. :meth:`stop` may be called at any time."""

    def __init__(self, app: App, settings: RunSettings, plan: SessionPlan) -> None:
        self.app = app
        self.settings = settings
        self.plan = plan
        self.calls = PluginCalls(app.pm, strict=app.config.plugins.strict)
        self.stopped: tuple[str, str] | None = None
        self.denied = 0
        # The session's read-only mode and whether any plugin checks tool calls: set once in _run, read by the
        # tool gate on every call.
        self._read_only: str | None = None
        self._allow: AllowList = configured_allow_list(app.config)
        self._checks_tools = False
        self._scope = anyio.CancelScope()
        self._transport: TeeTransport | None = None
        self._dispatcher: StreamDispatcher
        self._stderr: deque[str] = deque(maxlen=STDERR_TAIL_LINES)
        self.session: Session | None = None
        self.transcript = Path()
        self._started = time.monotonic()

    def stop(self, status: str, reason: str) -> None:
        """End the session now as ``status`` (interrupted, or failed on timeout)."""
        if self.stopped is not None:
            return
        self.stopped = (status, reason)
        log.info("stopping session: %s", reason)
        if self._transport is not None:
            self._transport.stop_now()
        self._scope.cancel()

    async def execute(self, verdict: EscalationVerdict) -> SessionReport:
        """Run the session to its end and report how it went."""
        session = self._start()
        if self.plan.handoff is not None:
            _record_event(session, "warning", f"escalation started: tier {self.plan.handoff.from_tier} "
                          f"session #{self.plan.handoff.from_session_id} handed over to tier "
                          f"{session.tier}: {self.plan.handoff.reason}")
        state, status, reason = await self._run(session)
        return await self._finish(session, state, status, reason, verdict)

    def _start(self) -> Session:
        """Insert the ``running`` row and build the :class:`Session` hooks will see."""
        tier_settings = self.app.config.tier(self.plan.tier)
        clock = self.settings.clock
        runner = run_domain(self.app.state_dir)
        replayed = self.settings.transport_factory is not None

        def insert() -> int:
            with db.atomic():  # one commit: the row and where its transcript is, before anything can fail
                session_id = insert_session_row(self.plan.tier, tier_settings.model, self.plan.trigger,
                                                self.plan.parent_id, now_timestamp(clock), runner,
                                                self.plan.trigger_source, replayed)
                update_session_row(session_id, transcript_path=str(self._transcript_of(session_id)))
            return session_id

        session_id = write_patiently(insert, "starting a session")
        self.transcript = self._transcript_of(session_id)
        self.session = Session(id=session_id, tier=self.plan.tier, model=tier_settings.model,
                               trigger=self.plan.trigger, config=self.app.config, hook=self.app.hook,
                               parent_id=self.plan.parent_id, dry_run=self.settings.dry_run,
                               replayed=replayed, handoff=self.plan.handoff, clock=clock)
        parent = f", escalated from session #{self.plan.parent_id}" if self.plan.parent_id is not None else ""
        log.info("session #%d started: tier %d, model %s, trigger %s%s", session_id, self.plan.tier,
                 tier_settings.model, self.plan.trigger, parent, extra=session_fields(session_id, self.plan.tier,
                                                                                     "running"))
        if self.settings.observer is not None:
            self.settings.observer.session_started(self.session)
        return self.session

    async def _run(self, session: Session) -> tuple[StreamState, str, str | None]:
        """Hooks, options and the stream; returns the stream's state, status and reason."""
        dispatcher = self._dispatcher = StreamDispatcher(session, self.app.markers, self.calls)
        try:
            await self.calls.each("before_session", session=session, checkpoint=_checkpoint(session))
            prompt = load_tier_prompt(self.app.config, session.tier, self.app.markers, self.settings.prompt,
                                      self.settings.why)
            self._read_only = session.read_only
            self._checks_tools = self.calls.has("check_tool_use")
            gated = self._read_only is not None or self._checks_tools
            replayed = self.settings.transport_factory(session.tier) if self.settings.transport_factory else None
            # `is not None` first: mypy cannot narrow an Optional to a protocol (python/mypy#12802)
            if gated and replayed is not None and isinstance(replayed, GatedTransport):
                replayed.tool_gate = self._refusal  # a replay stands in for the CLI: it asks itself
                hook = None
            else:
                hook = self._pre_tool_use if gated else None  # the CLI asks through the SDK
            options = build_options(session, pre_tool_use=hook, stderr=self._log_stderr)
            writer = TranscriptWriter(self.transcript, session.redactions.literals)
            self._transport = TeeTransport(replayed or self._cli(prompt, options), writer)
            error = await self._stream(session, prompt, options, dispatcher)
        except Exception as exc:  # a plugin in strict mode, a prompt or transport problem
            error = exc
        return dispatcher.state, *self._verdict(session, dispatcher.state, error)

    async def _stream(self, session: Session, prompt: str, options: Any,
                      dispatcher: StreamDispatcher) -> Exception | None:
        timeout = session.settings.timeout_seconds
        timer = asyncio.get_running_loop().call_later(
            timeout, self.stop, "failed", f"timeout after {timeout:g} s") if timeout > 0 else None
        handle, observer = dispatcher.handle, self.settings.observer  # looked up once, not per message
        try:
            with self._scope:
                # query() is an async generator (it has aclose), annotated only as an AsyncIterator
                messages = cast("AsyncGenerator[Message, None]", query(prompt=prompt, options=options,
                                                                       transport=self._transport))
                async with aclosing(messages) as stream:
                    async for message in stream:
                        await handle(message)
                        if observer is not None:
                            observer.session_progress(session, dispatcher.state)
        except Exception as exc:
            return exc
        finally:
            if timer is not None:
                timer.cancel()
            if self._transport is not None:  # the SDK closes it too; this covers every way out
                self._transport.writer.close()
        return None

    def _verdict(self, session: Session, state: StreamState, error: Exception | None) -> tuple[str, str | None]:
        if self.stopped is not None:
            return self.stopped
        if state.result is not None and state.result.is_error:
            return "failed", result_failure(state.result, state.api_error, session.settings.max_turns)
        if error is not None:
            if not isinstance(error, PluginError):
                log.debug("session ended by an exception", exc_info=error)
            return "failed", exception_failure(error, list(self._stderr), self.app.config)
        if state.result is None:
            return "failed", "the stream ended without a result (Claude Code stopped early)"
        return "completed", None

    async def _pre_tool_use(self, hook_input: Any, tool_use_id: str | None, context: Any) -> dict[str, Any]:
        """The tool gate as the CLI asks it, an SDK ``PreToolUse`` hook: :meth:`_refusal` as a hook answer."""
        reason = await self._refusal(str(hook_input.get("tool_name", "")), hook_input.get("tool_input") or {},
                                     tool_use_id or str(hook_input.get("tool_use_id", "")))
        if reason is None:
            return {}
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": reason}}

    async def _refusal(self, tool_name: str, tool_input: dict[str, Any], tool_use_id: str = "") -> str | None:
        """The tool gate: read-only modes first (dry run, tier 1), then every plugin's ``check_tool_use``.

        Returns what the model reads instead of the tool's output, or ``None`` to let the call
        run. Fails closed: a crash while judging a call refuses the call. The CLI asks it
        through :meth:`_pre_tool_use`; a replay transport asks it directly. Plugins judge with
        what the session recorded so far (a cooldown marker written just before this call), so
        they are asked only once the stream has handled the message that holds the call.
        """
        session = self.session
        assert session is not None
        try:
            mode = self._read_only
            refusal = tool_refusal(tool_name, tool_input, mode, self._allow) if mode else None
            reason = refusal.message if refusal is not None else None
            if refusal is not None:
                _record_event(session, "info", refusal.summary)
            elif self._checks_tools:
                await self._dispatcher.until_seen(tool_use_id)
                reason, failure = await self.calls.first("check_tool_use", session=session, tool_name=tool_name,
                                                         tool_input=tool_input)
                if failure is not None:
                    reason = f"refused: the safety check failed ({failure}); do not retry this call"
        except PluginError as exc:  # strict mode: deny, then end the session with the plugin's error
            self.stop("failed", str(exc))
            reason = f"refused: {exc}"
        except Exception as exc:
            log.error("tool gate failed for %s: %s: %s", tool_name, type(exc).__name__, exc)
            reason = "refused: the tool gate failed; do not retry this call"
        if tool_name == "Bash":
            session.judged_commands.append(JudgedCommand(str(tool_input.get("command", "")), reason is not None))
        if reason is None:
            return None
        self.denied += 1
        return str(reason)

    def _cli(self, prompt: str, options: Any) -> CLITransport:
        """The real CLI, leaving a trail (``cli.pid``) for the next run while it runs."""
        state_dir = self.app.state_dir
        return CLITransport(prompt=prompt, options=options, on_start=lambda pid: record_cli(state_dir, pid),
                            on_exit=lambda: forget_cli(state_dir))

    def _log_stderr(self, line: str) -> None:
        """The default stderr log, plus the tail a failure's one-line reason quotes."""
        self._stderr.append(line)
        log_cli_stderr(line)

    async def _finish(self, session: Session, state: StreamState, status: str, reason: str | None,
                      verdict: EscalationVerdict) -> SessionReport:
        """Decide escalation, record the row, tell ``after_session``, report."""
        note = None
        if session.escalation is not None and status in ("completed", "failed", "interrupted"):
            if state.result is not None:  # what this session spent counts before the next tier is judged
                cost = state.result.total_cost_usd
                write_patiently(lambda: _set_cost(session.id, cost), f"recording the cost of session #{session.id}")
            note = await verdict(session)
            if note is not None:
                _record_event(session, "info", f"escalation to tier {session.tier + 1} suppressed ({note}): "
                              f"{session.escalation.reason}")
            elif status == "completed":
                status = "escalated"
        result = state.result
        wall_ms = int((time.monotonic() - self._started) * 1000)
        # what is kept of the session (its row, run --json, the handoff, after_session) holds no secret
        reason = session.redact(reason, "failure reason") if reason else reason
        outcome = Outcome(status, reason, session.redact(state.final_text, "final report") or None,
                          session.total_cost(result.total_cost_usd if result else None),
                          result.num_turns if result else None,
                          result.duration_ms if result else wall_ms, state.sdk_session_id,
                          result.duration_api_ms if result else None)
        self._record_row(session, outcome, state)
        if status == "failed":
            _record_event(session, "critical", f"session failed: {reason}", SESSION_FAILED)
        elif status == "interrupted":
            _record_event(session, "warning", f"session interrupted: {reason}", SESSION_INTERRUPTED)
        with suppress(PluginError):  # strict mode: logged and counted in calls.failures; the row is final
            await self.calls.each("after_session", session=session, outcome=outcome)
        self._report_redactions(session)
        report = SessionReport(
            **vars(outcome), session_id=session.id, tier=session.tier, model=state.model or session.model,
            trigger=session.trigger, parent_session_id=session.parent_id,
            transcript_path=str(self.transcript), markers_recorded=session.markers_recorded,
            tool_calls=state.tool_calls, tools_denied=self.denied,
            escalation_requested=session.escalation.reason if session.escalation else None,
            escalation_note=note,
            plugin_failures=tuple(session.redact(failure, "plugin failures") for failure in self.calls.failures),
            events=tuple(session.recorded_events))
        _log_end(report)
        if self.settings.observer is not None:
            self.settings.observer.session_ended(report)
        return report

    def _report_redactions(self, session: Session) -> None:
        """The session's one warning for the secrets its transcript and record lost (markers warned of theirs)."""
        if self._transport is not None:
            session.redactions.note("transcript", self._transport.writer.redacted_kinds)
        try:
            session.report_unreported_redactions()
        except Exception as exc:
            log.error("%s", exc if isinstance(exc, PluginError) else f"record_event failed: {exc}")

    def _transcript_of(self, session_id: int) -> Path:
        return self.app.state_dir / "transcripts" / f"{session_id}.jsonl"

    def _record_row(self, session: Session, outcome: Outcome, state: StreamState) -> None:
        def update() -> None:
            with db.atomic():
                update_session_row(
                    session.id, status=outcome.status, ended_at=session.now(), cost_usd=outcome.cost_usd,
                    num_turns=outcome.num_turns, duration_ms=outcome.duration_ms,
                    duration_api_ms=outcome.duration_api_ms, result=outcome.result_text,
                    sdk_session_id=outcome.sdk_session_id, error=outcome.reason,
                    model=state.model or session.model)

        write_patiently(update, f"recording how session #{session.id} ended")


def _set_cost(session_id: int, cost: float | None) -> None:
    with db.atomic():
        update_session_row(session_id, cost_usd=cost)


def _log_end(report: SessionReport) -> None:
    """The INFO record of a session's end: what ``--log-level info`` shows of a run, one line per session."""
    status = f"{report.status} ({report.reason})" if report.reason else report.status
    counts = [counted(report.tool_calls, "tool call"), f"{counted(report.tools_denied, 'tool')} denied",
              f"{counted(report.markers_recorded, 'marker')} recorded"]
    if report.num_turns is not None:  # no result message, no turn count (a timeout, a crash)
        counts.insert(0, counted(report.num_turns, "turn"))
    if report.duration_ms is not None:
        counts.append(f"{report.duration_ms / 1000:.1f} s")
    log.info("session #%d ended: %s; %s", report.session_id, status, ", ".join(counts),
             extra=session_fields(report.session_id, report.tier, report.status))


def _checkpoint(session: Session) -> Callable[[], Callable[[], None]]:
    """For ``before_session``: what a plugin's failed attempt added to the session, to take back before
    it is called again (after a locked database); its writes were rolled back with its transaction."""
    def mark() -> Callable[[], None]:
        sections, events = len(session.prompt_sections), len(session.recorded_events)

        def restore() -> None:
            del session.prompt_sections[sections:]
            del session.recorded_events[events:]
        return restore
    return mark


def _record_event(session: Session, level: str, message: str, kind: str | None = None) -> None:
    """Tell ``record_event`` implementations; their failure is logged, never the end of a session."""
    try:
        session.record_event(level, message, kind=kind)
    except Exception as exc:
        log.error("%s", exc if isinstance(exc, PluginError) else f"record_event failed: {exc}")
