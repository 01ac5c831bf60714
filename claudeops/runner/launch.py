"""Starting and stopping ``claudeops run`` from another process: the dashboard's Run now, its alert
queue and its Stop button.

A run started this way is the same command cron starts, as a child process in a session of its
own (a dashboard restart does not kill a remediation halfway), under the same run lock: the
child takes it itself, so two runs never overlap whoever started them. The child prints
``session N`` (``--announce``) once its row exists, so the caller learns the id at once and can
send the operator to the live view. Its stderr goes to ``<state_dir>/run-logs/session-N.log``.

Stop sends SIGTERM to the process that holds the lock, exactly what a ``kill`` or systemd would
send: the runner records the session ``interrupted`` and stops the Claude Code CLI with it.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pluggy

from claudeops.config import Config
from claudeops.exit_codes import EXIT_LOCKED, EXIT_REFUSED
from claudeops.redaction import redact
from claudeops.runner.lock import lock_holder, run_domain
from claudeops.session import Run
from claudeops.session_rows import SessionRow, get_session_dict

ANNOUNCE_SECONDS = 60.0
"""How long a starting run may take to insert its row (imports, migrations, a locked database)."""
LOG_DIR = "run-logs"


class RunBusy(Exception):
    """Another run holds the lock; ``session_id`` is its running session when one is recorded."""

    def __init__(self, message: str, session_id: int | None) -> None:
        super().__init__(message)
        self.session_id = session_id


class LaunchError(Exception):
    """The run could not start (bad configuration, missing credentials…): the child's own last line."""


class StartRefused(LaunchError):
    """The run was not permitted to start a session (``EXIT_REFUSED``: a plugin refused it, a spend cap):
    the child's one line, which it also recorded as a ``start_refused`` event. Trying again changes
    nothing until the refusal lifts; :func:`start_refusal` says when it has, without starting a run."""


def start_refusal(config: Config, hook: pluggy.HookRelay, tier: int, trigger: str = "alert") -> str | None:
    """Why a real session of ``tier`` would be refused now (``check_session_start``), or ``None``.

    Asks the same hook a run asks before its first session, in this process, records nothing and
    starts nothing: a caller that was refused (:class:`StartRefused`) polls this, not a new run,
    so a spend cap's refusal is recorded once rather than at every retry. Fails closed as the run
    does: a plugin that crashes while judging refuses.
    """
    run = Run(str(uuid.uuid4()), tier, trigger, False, config, hook)
    try:
        reason: str | None = hook.check_session_start(run=run, tier=tier, parent_id=None)
    except Exception as exc:  # a cap that cannot be checked must not be skipped
        return f"the start check failed ({type(exc).__name__}: {exc})"
    return reason


@dataclass(frozen=True)
class StartedRun:
    """A run that has its first session: its id, and the child's pid."""

    session_id: int
    pid: int


@dataclass(frozen=True)
class RunOrder:
    """What to start: the ``claudeops run`` options the dashboard or the alert queue chose."""

    tier: int = 1
    trigger: str = "manual"
    trigger_source: str | None = None
    operator_request: str | None = None
    alerts: tuple[str, ...] = ()

    def arguments(self) -> list[str]:
        """The options, the operator's and the alerts' text redacted already: a command line is
        visible to every local user (``ps``), so a pasted token must not reach it."""
        words = ["--tier", str(self.tier), "--trigger", self.trigger, "--announce"]
        if self.trigger_source:
            words += ["--trigger-source", self.trigger_source]
        if self.operator_request and self.operator_request.strip():
            words += ["--request", redact(self.operator_request.strip())]
        for alert in self.alerts:
            words += ["--alert", redact(alert)]
        return words


def default_run_command() -> list[str]:
    """``claudeops run`` of this very installation (the interpreter running now)."""
    return [sys.executable, "-m", "claudeops", "run"]


def running_session_id(state_dir: Path) -> int | None:
    """The newest ``running`` session of this state directory's runner, if any (the store must be open)."""
    row = (SessionRow.select(SessionRow.id).where((SessionRow.status == "running")
                                                  & (SessionRow.runner == run_domain(state_dir)))
           .order_by(SessionRow.id.desc()).first())
    return None if row is None else int(row.id)


def busy_error(state_dir: Path, holder_text: str) -> RunBusy:
    session_id = running_session_id(state_dir)
    what = f"session #{session_id}" if session_id is not None else "a run that is starting"
    return RunBusy(f"another claudeops run ({holder_text}) is running {what}; wait for it to end", session_id)


def start_run(config: Config, order: RunOrder, command: Sequence[str] = (),
              environ: Mapping[str, str] | None = None, wait_seconds: float = ANNOUNCE_SECONDS) -> StartedRun:
    """Start ``claudeops run`` with ``order`` and return once its first session exists.

    Raises :class:`RunBusy` when another run holds the lock (before or after the child tried),
    :class:`LaunchError` when the child ended without starting a session. The store must be open
    (to name the running session of a busy lock).
    """
    state_dir = config.state_dir
    holder = lock_holder(state_dir)
    if holder is not None:
        raise busy_error(state_dir, holder.text)
    logs = state_dir / LOG_DIR
    logs.mkdir(parents=True, exist_ok=True)
    log_path = logs / f"starting-{os.getpid()}-{time.monotonic_ns()}.log"
    with log_path.open("wb") as log_file:
        child = subprocess.Popen([*(command or default_run_command()), *order.arguments()],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log_file,
                                 env=_child_environment(config, environ), start_new_session=True)
    assert child.stdout is not None
    line = _first_line(child.stdout, wait_seconds)
    if not line.startswith("session "):
        return _failed_start(child, log_path, state_dir, line)
    session_id = int(line.split()[1])
    log_path.rename(logs / f"session-{session_id}.log")
    threading.Thread(target=_reap, args=(child,), daemon=True, name=f"claudeops-run-{child.pid}").start()
    return StartedRun(session_id, child.pid)


def _child_environment(config: Config, environ: Mapping[str, str] | None) -> dict[str, str]:
    """This process's environment plus what makes the child use the same configuration and store."""
    env = dict(os.environ if environ is None else environ)
    if config.raw.path is not None:
        env["CLAUDEOPS_CONFIG"] = str(config.raw.path.absolute())
    env["CLAUDEOPS_STATE_DIR"] = str(config.state_dir.absolute())
    env["CLAUDEOPS_DATABASE_URL"] = config.database_url
    return env


def _first_line(stream: IO[bytes], seconds: float) -> str:
    """The child's first stdout line, or ``""`` at end of file or after ``seconds``."""
    with selectors.DefaultSelector() as selector:
        selector.register(stream, selectors.EVENT_READ)
        if not selector.select(timeout=seconds):
            return ""
    return stream.readline().decode(errors="replace").strip()


def _failed_start(child: subprocess.Popen[bytes], log_path: Path, state_dir: Path, line: str) -> StartedRun:
    try:
        code = child.wait(timeout=5)
    except subprocess.TimeoutExpired:
        child.kill()
        code = child.wait()
        raise LaunchError(f"the run did not start a session within {ANNOUNCE_SECONDS:g} s; see {log_path}") from None
    finally:
        assert child.stdout is not None
        child.stdout.close()
    said = _last_line(log_path) or line or f"exit status {code}"
    if code == EXIT_LOCKED:
        log_path.unlink(missing_ok=True)
        raise busy_error(state_dir, said.removeprefix("claudeops: error: "))
    if code == EXIT_REFUSED:  # the refusal is an event already; its log holds nothing more
        log_path.unlink(missing_ok=True)
        raise StartRefused(said.removeprefix("claudeops: error: ").removeprefix("claudeops: "))
    raise LaunchError(f"the run did not start: {said.removeprefix('claudeops: error: ')} (log: {log_path})")


def _last_line(path: Path) -> str:
    try:
        lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1].strip() if lines else ""


def _reap(child: subprocess.Popen[bytes]) -> None:
    """Read what else the child prints (escalated sessions' ids) so it never blocks, and collect its status."""
    assert child.stdout is not None
    with child.stdout:
        for _ in child.stdout:
            pass
    child.wait()


class StopRefused(Exception):
    """The session cannot be stopped from here; the message says why."""


def stop_session(config: Config, session_id: int) -> int:
    """Send SIGTERM to the run of ``session_id`` (the store must be open); returns the signalled pid.

    Only a running session of this host and state directory can be stopped from here: another
    runner's process is not ours to signal.
    """
    row = get_session_dict(session_id)
    if row is None:
        raise KeyError(f"there is no session #{session_id}")
    if row["status"] != "running":
        raise StopRefused(f"session #{session_id} is not running (it is {row['status']})")
    domain = run_domain(config.state_dir)
    if row["runner"] not in (None, domain):
        raise StopRefused(f"session #{session_id} runs on {row['runner']}, not here ({domain}); stop it there")
    holder = lock_holder(config.state_dir)
    if holder is None or holder.pid is None:
        raise StopRefused(f"no run holds the lock of {config.state_dir}: session #{session_id} is not running any "
                          "more (its row is settled by the next run)")
    os.kill(holder.pid, signal.SIGTERM)
    return holder.pid
