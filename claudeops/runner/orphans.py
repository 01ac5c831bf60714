"""A Claude Code CLI left behind by a run that died, found and killed by the next run.

The CLI is started through :mod:`claudeops.runner.cli_launcher`, which has the kernel kill it
the moment the runner dies. What that cannot reach is what the CLI itself started (a Bash tool's
command still running): those outlive it. The launcher makes the CLI the leader of a session of
its own, so everything it started shares that session id, and the runner writes
``<state_dir>/cli.pid`` (the CLI's pid and its start time) while a CLI runs and removes it when
the session ends. A file still there at the next start, taken under the run lock so no live
session owns it, means the last run died with a CLI: every process still in that session is
killed.

A pid can be reused once its process and its session are gone, so the file also records the
CLI's start time: a process now holding that pid with another start time is someone else's,
and its session is left alone. While any member of the CLI's session lives, Linux does not hand
its id to a new process, so the members found are the CLI's own.
"""

from __future__ import annotations

import logging
import os
import signal
from contextlib import suppress
from pathlib import Path

log = logging.getLogger(__name__)

CLI_PID_FILE = "cli.pid"

PROC = Path("/proc")


def record_cli(state_dir: Path, pid: int) -> None:
    """Note the CLI just started (pid and start time), so a run that dies leaves a trail to it."""
    started = _start_time(pid)
    if started is None:
        return
    try:
        (state_dir / CLI_PID_FILE).write_text(f"{pid} {started}\n")
    except OSError as exc:  # a full disk: the kernel's death signal still covers the CLI itself
        log.warning("cannot record the Claude Code CLI's pid in %s: %s", state_dir / CLI_PID_FILE, exc.strerror)


def forget_cli(state_dir: Path) -> None:
    """The CLI ended with its session: nothing to reap next time."""
    with suppress(FileNotFoundError):
        (state_dir / CLI_PID_FILE).unlink()


def reap_stale_cli(state_dir: Path) -> int:
    """Kill what a dead run's CLI left running (the CLI's whole session); returns how many processes.

    Called with the run lock held. Reads ``/proc``; where there is none (not Linux) there is
    nothing to reap, as the CLI is not started in a session of its own there.
    """
    path = state_dir / CLI_PID_FILE
    try:
        pid, started = (int(field) for field in path.read_text().split())
    except (FileNotFoundError, ValueError):
        return 0
    current = _start_time(pid)
    members = [] if current is not None and current != started else _session_members(pid)
    for member in members:
        with suppress(ProcessLookupError, PermissionError):
            os.kill(member, signal.SIGKILL)
    forget_cli(state_dir)
    if members:
        log.warning("killed %d process(es) a Claude Code CLI (pid %d) of a run that died left running",
                    len(members), pid)
    return len(members)


def _stat_fields(pid: int | str) -> list[str] | None:
    """The fields of ``/proc/<pid>/stat`` after the command name (which may hold spaces and parentheses)."""
    try:
        text = (PROC / str(pid) / "stat").read_text()
    except OSError:
        return None
    return text.rpartition(")")[2].split()


def _start_time(pid: int | str) -> int | None:
    """When the process started, in clock ticks since boot (``stat`` field 22), or ``None`` if it is gone."""
    fields = _stat_fields(pid)
    return int(fields[19]) if fields and len(fields) > 19 else None


def _session_members(session: int) -> list[int]:
    """Every live process whose session id (``stat`` field 6) is ``session``."""
    members = []
    for entry in PROC.iterdir() if PROC.is_dir() else ():
        fields = _stat_fields(entry.name) if entry.name.isdigit() else None
        if fields and len(fields) > 3 and int(fields[3]) == session and fields[0] != "Z":  # not a zombie
            members.append(int(entry.name))
    return members
