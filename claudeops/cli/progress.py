"""What ``claudeops run`` shows: a live line on a terminal, silence from cron, JSON on request.

Cron mails whatever a job prints, so a healthy scheduled run prints nothing at all and a
problem prints exactly one line per session on stderr. A person at a terminal gets a live line
per session (tier, model, turns, tool calls, markers) drawn with rich on stderr, then a summary
line, and stdout stays free for ``--json``.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from claudeops.runner.session_run import RunObserver, SessionReport
from claudeops.runner.stream import StreamState
from claudeops.session import Session
from claudeops.wording import counted

if TYPE_CHECKING:  # rich is imported by the live line alone: cron's runs (no terminal) never draw one
    from rich.console import Console
    from rich.live import Live
    from rich.text import Text

STATUS_STYLE = {"completed": "green", "escalated": "yellow", "failed": "red", "interrupted": "red"}


def summary_line(report: SessionReport) -> str:
    """One line per finished session, for people and for cron mail alike."""
    parts = [f"session #{report.session_id}", f"tier {report.tier}", report.model or "?", report.status]
    if report.num_turns is not None:
        parts.append(counted(report.num_turns, "turn"))
    parts.append(counted(report.tool_calls, "tool call"))
    parts.append(counted(report.markers_recorded, "marker"))
    if report.cost_usd is not None:
        parts.append(f"${report.cost_usd:.4f}")
    if report.duration_ms is not None:
        parts.append(f"{report.duration_ms / 1000:.1f} s")
    line = " · ".join(parts)
    if report.reason:
        line += f": {report.reason}"
    if report.escalation_requested and report.escalation_note:
        line += f" (escalation suppressed: {report.escalation_note})"
    return line


def problem_message(report: SessionReport) -> str | None:
    """What cron mails for a session that failed or was interrupted, or ``None``.

    Plugin failures are not repeated here: each was already logged as its own line.
    """
    if report.status in ("failed", "interrupted"):
        return f"session #{report.session_id} (tier {report.tier}) {report.status}: {report.reason}"
    return None


class LiveProgress:
    """A :class:`~claudeops.session_run.RunObserver` drawing a live status line with rich."""

    def __init__(self, console: Console | None = None) -> None:
        from rich.console import Console

        self.console = console or Console(stderr=True)
        self._live: Live | None = None
        self._started = time.monotonic()
        self._session: Session | None = None
        self._state = StreamState()

    def session_started(self, session: Session) -> None:
        from rich.live import Live

        self._session, self._state, self._started = session, StreamState(), time.monotonic()
        self._live = Live(self._render(), console=self.console, transient=True, refresh_per_second=8)
        self._live.start()

    def session_progress(self, session: Session, state: StreamState) -> None:
        self._state = state
        if self._live is not None:
            self._live.update(self._render())

    def session_ended(self, report: SessionReport) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
        from rich.text import Text

        style = STATUS_STYLE.get(report.status, "")
        self.console.print(Text(summary_line(report), style=style))

    def _render(self) -> Text:
        from rich.text import Text

        session, state = self._session, self._state
        if session is None:
            return Text("")
        model = state.model or session.model
        elapsed = time.monotonic() - self._started
        text = Text.assemble(
            ("● ", "cyan"), f"session #{session.id} · tier {session.tier} · {model} · ",
            f"{counted(state.turns, 'turn')} · {counted(state.tool_calls, 'tool call')} · "
            f"{counted(session.markers_recorded, 'marker')} · ",
            f"{elapsed:.0f} s")
        if session.dry_run:
            text.append(" · dry run", style="yellow")
        return text


class Announcer:
    """A :class:`~claudeops.session_run.RunObserver` printing ``session N`` on stdout as soon as each
    session's row exists (then passing everything on to ``inner``, the live line if any).

    For a program that starts a run and must show it at once (the dashboard's Run now): the
    session id exists only once the runner holds the lock and inserted the row.
    """

    def __init__(self, inner: RunObserver | None) -> None:
        self.inner = inner

    def session_started(self, session: Session) -> None:
        print(f"session {session.id}", flush=True)
        if self.inner is not None:
            self.inner.session_started(session)

    def session_progress(self, session: Session, state: StreamState) -> None:
        if self.inner is not None:
            self.inner.session_progress(session, state)

    def session_ended(self, report: SessionReport) -> None:
        if self.inner is not None:
            self.inner.session_ended(report)
