"""The runner: the first session, then the escalated ones, under one lock, with signals handled.

``claudeops run`` calls :func:`execute`; tests and the ``run_scripted_session`` fixture call
:func:`run_chain` (store already open, no lock); async callers use :func:`run_session_chain`.

Escalation: a session that wrote ``[ESCALATE] reason`` is followed by a session of the next
tier, with a handoff (reason, final text, the events it recorded) in its system prompt, unless
escalation is off (``--no-escalate``), the run is a dry run, the next tier is above
``max_tier``, the run was interrupted, or (replaying) no recording is left for it. A
suppressed escalation is recorded as an event saying why.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sqlite3
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import peewee

from claudeops.app import App
from claudeops.clock import Clock, utc_now
from claudeops.config import TIER_DEFAULTS, ConfigError, validate_core
from claudeops.exit_codes import (
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_NEWER_DATABASE,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_USAGE,
)
from claudeops.exit_codes import EXIT_LOCKED as EXIT_LOCKED  # re-exported: callers of execute() compare with it
from claudeops.logs import session_fields
from claudeops.notable import START_REFUSED, NotableEvent
from claudeops.runner.allow_list import configured_allow_list
from claudeops.runner.credentials import require_credentials
from claudeops.runner.hookcalls import PluginCalls
from claudeops.runner.lock import LockHeld, LockUnavailable, RunLock, run_domain
from claudeops.runner.orphans import reap_stale_cli
from claudeops.runner.prompts import run_reasons, tier_prompt_path
from claudeops.runner.replay import Recording, ReplaySource
from claudeops.runner.session_run import (
    RunObserver,
    RunSettings,
    SessionPlan,
    SessionReport,
    SessionRun,
    TransportFactory,
)
from claudeops.session import Handoff, Run, RunOutcome, Session
from claudeops.session_rows import interrupt_abandoned_sessions
from claudeops.store import NewerDatabase, StoreError, describe_database_error, write_patiently
from claudeops.wording import one_line

log = logging.getLogger(__name__)

TOP_TIER = max(TIER_DEFAULTS)


@dataclass
class RunRequest:
    """What to run. ``transport_factory=None`` runs the real Claude Code CLI."""

    tier: int = 1
    trigger: str = "scheduled"
    escalate: bool = True
    dry_run: bool | None = None  # None: the config's dry_run
    prompt: str | None = None  # replaces the tier prompt file's text; marker sections still follow
    transport_factory: TransportFactory | None = None
    clock: Clock = utc_now
    observer: RunObserver | None = None
    trigger_source: str | None = None
    """Who or what the trigger was (``dashboard``, ``api``, ``alertmanager``…), stored on the first session."""
    operator_request: str | None = None
    """An operator's instruction (Run now), quoted in every session's prompt as their request."""
    alerts: tuple[str, ...] = ()
    """Briefs of the alerts that started the run, quoted in every session's prompt."""

    @classmethod
    def replaying(cls, recordings: Sequence[str | Path | Recording | Sequence[dict[str, Any]]],
                  **fields: Any) -> RunRequest:
        """A request that replays ``recordings``, one per session of the chain, in order."""
        fields.setdefault("trigger", "replay")
        return cls(transport_factory=ReplaySource(recordings), **fields)


@dataclass
class ChainResult:
    """Every session of the run, first to last, and the exit code they add up to."""

    sessions: list[SessionReport] = field(default_factory=list)
    interrupted: bool = False
    refused: str | None = None
    """Why a tier was not started (``check_session_start``): ``tier 2 not started: <reason>``."""

    @property
    def exit_code(self) -> int:
        if self.interrupted or any(report.status == "interrupted" for report in self.sessions):
            return EXIT_INTERRUPTED
        if any(report.status == "failed" for report in self.sessions):
            return EXIT_FAILED
        if self.refused is not None:
            return EXIT_REFUSED
        return EXIT_OK

    @property
    def reason(self) -> str | None:
        """Why the run did not succeed, in one line (``None`` when it did): the first problem."""
        for report in self.sessions:
            if report.status in ("failed", "interrupted"):
                return f"session #{report.session_id} {report.status}: {report.reason}"
        if self.interrupted:
            return "interrupted"
        return self.refused

    def outcome(self) -> RunOutcome:
        return RunOutcome(self.exit_code, self.reason, tuple(report.session_id for report in self.sessions),
                          self.refused)

    def as_dict(self) -> dict[str, Any]:
        return {"exit_code": self.exit_code, "refused": self.refused,
                "sessions": [report.as_dict() for report in self.sessions]}


class SessionChain:
    """Runs sessions until one does not escalate; :meth:`interrupt` stops the current one."""

    def __init__(self, app: App, request: RunRequest) -> None:
        self.app = app
        self.request = request
        self.result = ChainResult()
        self.current: SessionRun | None = None
        dry_run = app.config.core.dry_run if request.dry_run is None else request.dry_run
        self.settings = RunSettings(dry_run, request.prompt, request.transport_factory, request.clock,
                                    request.observer, run_reasons(request.operator_request, request.alerts))
        self.calls = PluginCalls(app.pm, strict=False)  # run hooks never change how the run ends
        self.info = Run(str(uuid.uuid4()), request.tier, request.trigger, request.transport_factory is not None,
                        app.config, app.hook, request.clock)

    async def run(self) -> ChainResult:
        """``before_run``, the sessions, ``after_run`` (also when the run fails or is interrupted)."""
        await self.calls.each("before_run", run=self.info)
        try:
            await self._sessions()
        except BaseException as exc:
            reason = one_line(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
            await self.calls.each("after_run", run=self.info, outcome=RunOutcome(EXIT_FAILED, reason))
            raise
        finally:
            self.current = None
        await self.calls.each("after_run", run=self.info, outcome=self.result.outcome())
        return self.result

    async def _sessions(self) -> None:
        if (refusal := await self.start_refusal(self.request.tier, None)) is not None:
            await self.calls.each("record_event", event=NotableEvent(
                "warning", refusal, self.info.now(), kind=START_REFUSED))
            return
        plan: SessionPlan | None = SessionPlan(self.request.tier, self.request.trigger,
                                               trigger_source=self.request.trigger_source)
        while plan is not None and not self.result.interrupted:
            self.current = SessionRun(self.app, self.settings, plan)
            report = await self.current.execute(self.escalation_blocker)
            self.result.sessions.append(report)
            plan = self._next(report)

    async def start_refusal(self, tier: int, parent_id: int | None) -> str | None:
        """Why a session of ``tier`` may not start (``check_session_start``), kept in the result; or ``None``.

        Fails closed: a plugin that crashes while judging refuses the start, since a cap that
        cannot be checked must not be skipped in silence.
        """
        reason, failure = await self.calls.first("check_session_start", run=self.info, tier=tier, parent_id=parent_id)
        if failure is not None:
            reason = f"the start check failed ({failure})"
        if reason is None:
            return None
        self.result.refused = one_line(f"tier {tier} not started: {reason}")
        log.info("%s", self.result.refused)
        return self.result.refused

    def interrupt(self, reason: str) -> None:
        """A signal arrived: stop the running session (recorded ``interrupted``) and start no other."""
        self.result.interrupted = True
        if self.current is not None:
            self.current.stop("interrupted", reason)

    async def escalation_blocker(self, session: Session) -> str | None:
        """Why ``session``'s escalation request will not start the next tier, or ``None``.

        Asks ``check_session_start`` last, and records a refusal as the session's
        ``start_refused`` event.
        """
        next_tier = session.tier + 1
        if not self.request.escalate:
            return "escalation is off (--no-escalate)"
        if session.dry_run:
            return "dry run"
        if self.result.interrupted:
            return "the run was interrupted"
        if next_tier > min(self.app.config.core.max_tier, TOP_TIER):
            return f"max_tier is {self.app.config.core.max_tier}"
        factory = self.request.transport_factory
        if isinstance(factory, ReplaySource) and factory.remaining <= 0:
            return f"no recording left to replay for tier {next_tier}"
        if (refusal := await self.start_refusal(next_tier, session.id)) is not None:
            try:
                session.record_event("warning", refusal, kind=START_REFUSED)
            except Exception as exc:  # logged like every other runner event; the refusal stands
                log.error("%s", exc)
            return refusal
        return None

    def _next(self, report: SessionReport) -> SessionPlan | None:
        if report.escalation_requested is None:
            return None
        next_tier = report.tier + 1
        why_not = report.escalation_note
        if why_not is not None:
            log.info("escalation of session #%d to tier %d suppressed (%s): %s", report.session_id, next_tier,
                     why_not, report.escalation_requested, extra=session_fields(report.session_id, report.tier))
            return None
        log.info("session #%d escalates: starting tier %d: %s", report.session_id, next_tier,
                 report.escalation_requested, extra=session_fields(report.session_id, report.tier))
        events = tuple(_describe(event) for event in report.events)
        handoff = Handoff(report.session_id, report.tier, report.escalation_requested, report.result_text or "",
                          events)
        return SessionPlan(next_tier, "escalation", report.session_id, handoff)


def _describe(event: Any) -> str:
    service = f" {event.service}:" if event.service else ""
    return f"[{event.level}]{service} {event.message}"


async def run_session_chain(app: App, request: RunRequest, *,
                            on_chain: Callable[[SessionChain], None] = lambda chain: None) -> ChainResult:
    """Run ``request`` (store open, no lock taken); ``on_chain`` receives the chain for signals."""
    chain = SessionChain(app, request)
    on_chain(chain)
    return await chain.run()


def run_chain(app: App, request: RunRequest) -> list[SessionReport]:
    """Synchronous :func:`run_session_chain` for tests and fixtures (store open, no lock)."""
    return asyncio.run(run_session_chain(app, request)).sessions


def check_prompts(app: App, request: RunRequest) -> None:
    """Fail before any row exists when a prompt file the run may need is missing (PromptError)."""
    if request.prompt is not None:
        return
    last = min(app.config.core.max_tier, TOP_TIER) if request.escalate else request.tier
    for tier in range(request.tier, max(last, request.tier) + 1):
        tier_prompt_path(app.config, tier)


def execute(app: App, request: RunRequest) -> ChainResult:
    """The whole ``claudeops run``: lock, store, abandoned rows, the chain with signals handled.

    Raises :class:`~claudeops.lock.LockHeld` when another run is active, ``ConfigError``
    (``PromptError``, ``MissingCredentials`` for a real run) and ``StoreError`` for problems found
    before any session starts; each of those but :class:`LockHeld` is reported to ``run_not_started``
    first (another live run holding the lock is no failure of the schedule).
    """
    started = False
    try:
        validate_core(app.config)  # again: command-line flags were applied after loading
        configured_allow_list(app.config)
        check_prompts(app, request)
        if request.transport_factory is None:
            require_credentials(os.environ, app.config.core.setting_sources)
        with RunLock(app.ensure_state_dir()):
            reap_stale_cli(app.state_dir)
            app.open_store()
            domain = run_domain(app.state_dir)
            abandoned = write_patiently(lambda: interrupt_abandoned_sessions(domain),
                                        "marking sessions a dead run left running as interrupted")
            if abandoned:
                log.warning("marked %d session(s) left running by a process that died as interrupted", abandoned)
            started = True  # from here on the chain's own before_run and after_run report how the run ends
            return asyncio.run(_with_signals(app, request))
    except LockHeld:
        raise
    except Exception as exc:
        if not started:
            _report_not_started(app, request, exc)
        raise


def _report_not_started(app: App, request: RunRequest, exc: Exception) -> None:
    """Tell ``run_not_started`` why the run ended before its first session, with the exit code ``run`` gives."""
    if isinstance(exc, NewerDatabase):
        code, reason = EXIT_NEWER_DATABASE, str(exc)
    elif isinstance(exc, ConfigError):
        code, reason = EXIT_USAGE, str(exc)
    elif isinstance(exc, LockUnavailable):  # a full disk, a read-only state dir
        code, reason = EXIT_FAILED, str(exc)
    elif isinstance(exc, (StoreError, peewee.PeeweeException, sqlite3.Error)):  # as the command line words it
        code, reason = EXIT_FAILED, f"database error: {describe_database_error(exc)}"
    else:
        code, reason = EXIT_FAILED, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    run = Run(str(uuid.uuid4()), request.tier, request.trigger, request.transport_factory is not None, app.config,
              app.hook, request.clock)
    calls = PluginCalls(app.pm, strict=False)
    asyncio.run(calls.each("run_not_started", run=run, outcome=RunOutcome(code, one_line(reason))))


async def _with_signals(app: App, request: RunRequest) -> ChainResult:
    """Run the chain; SIGTERM and SIGINT stop the current session and end the run as interrupted."""
    loop = asyncio.get_running_loop()
    installed = []
    chain_box: list[SessionChain] = []

    def on_signal(signame: str) -> None:
        if chain_box:
            chain_box[0].interrupt(f"interrupted by {signame}")

    for signum in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(signum, on_signal, signal.Signals(signum).name)
            installed.append(signum)
        except (ValueError, RuntimeError, NotImplementedError):
            log.debug("cannot handle %s outside the main thread", signum)
    try:
        return await run_session_chain(app, request, on_chain=chain_box.append)
    finally:
        for signum in installed:
            loop.remove_signal_handler(signum)


def run(app: App, request: RunRequest) -> int:
    """:func:`execute` and return its exit code (for callers that only need that)."""
    return execute(app, request).exit_code
