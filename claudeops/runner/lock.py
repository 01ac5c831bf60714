"""The single-run lock: at most one ``claudeops run`` per state directory at a time.

Cron fires on a schedule whether or not the previous session finished; two sessions acting on
the same services at once would double every restart and race on the cooldown counters. The
lock is an ``flock`` on ``<state_dir>/run.lock``: the kernel releases it when the holder dies,
so a crashed run never leaves a stale lock behind (and the next run then marks the crashed
session ``interrupted``). The file's content (pid, start time) only serves the message a
second run prints, so failing to write it (a full disk) does not stop a run; failing to open the
file at all is a one-line :class:`LockUnavailable`, never a traceback.
"""

from __future__ import annotations

import errno
import fcntl
import logging
import os
import re
import socket
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from claudeops.clock import now_timestamp
from claudeops.store import DISK_FULL

log = logging.getLogger(__name__)

LOCK_FILE = "run.lock"


def run_domain(state_dir: Path) -> str:
    """The runs one lock keeps apart, named for the ``runner`` column: ``host:/absolute/state/dir``.

    Hosts (or state directories) sharing one PostgreSQL database are not serialised by each
    other's locks, so each settles only the abandoned rows of its own domain.
    """
    return f"{socket.gethostname()}:{state_dir.absolute()}"


class LockHeld(Exception):
    """Another run holds the lock; the message says who and since when."""


class LockUnavailable(Exception):
    """The lock file cannot be opened or locked at all (a full disk, a read-only or foreign state dir)."""


class RunLock:
    """A non-blocking exclusive lock, held from :meth:`acquire` until :meth:`release`."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock at once or raise :class:`LockHeld`; never waits. The state directory must exist."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise LockUnavailable(f"cannot open the run lock {self.path}: {_why(exc)}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise LockHeld(f"another claudeops run ({holder}) holds {self.path}; "
                           "not starting a second session") from None
        except OSError as exc:
            os.close(fd)
            raise LockUnavailable(f"cannot lock {self.path}: {_why(exc)}") from None
        self._fd = fd
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"pid {os.getpid()} since {now_timestamp()}\n".encode(), 0)
        except OSError as exc:  # the lock holds without its note; only a second run's message loses the pid
            log.warning("cannot note this run's pid in %s: %s", self.path, _why(exc))

    def release(self) -> None:
        if self._fd is not None:
            with suppress(OSError):
                os.ftruncate(self._fd, 0)
            with suppress(OSError):
                fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.release()


def _why(exc: OSError) -> str:
    return DISK_FULL if exc.errno == errno.ENOSPC else exc.strerror or str(exc)


def _read_holder(fd: int) -> str:
    """What the holder wrote about itself, or a neutral phrase if it has not written yet."""
    text = os.pread(fd, 200, 0).decode(errors="replace").strip()
    return text or "pid unknown"


@dataclass(frozen=True)
class LockHolder:
    """Who holds the lock: the pid of the ``claudeops run`` process and what it wrote about itself."""

    pid: int | None
    text: str


def lock_holder(state_dir: Path) -> LockHolder | None:
    """The run holding ``state_dir``'s lock, or ``None`` when it is free.

    For the dashboard: whether Run now can start, and which process a Stop signals. A holder
    writes its pid into the file and empties it before it lets go, so an empty file is a free
    lock and is answered without touching the lock (a test that took it, even for a moment, could
    make a cron run starting at that instant give up). Only a file with content (a run holds it, or
    one crashed) is tested with ``flock``.
    """
    path = state_dir / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return None
    try:
        text = _read_holder(fd)
        if text == "pid unknown":
            return None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            found = re.match(r"pid (\d+)", text)
            return LockHolder(int(found.group(1)) if found else None, text)
        fcntl.flock(fd, fcntl.LOCK_UN)  # a crashed holder's words: the lock itself is free
        return None
    finally:
        os.close(fd)
