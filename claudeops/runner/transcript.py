"""Session transcripts: the raw stream, one JSON object per line, with secrets redacted.

Every frame the transport reads (system, assistant, user/tool results, result, control
requests) is written as it arrives. The file of a session that reached its result is itself a
valid recording: ``claudeops run --replay <transcript>`` replays it (the replay transport ignores
control frames); an interrupted session's file has no result frame and is refused as cut short.

A transport that still has each frame's text (a recording replayed from a file) hands it over
as it is; frames that reach us only as dicts (the CLI's, which the SDK parses; a scripted
replay; a tool result the replay replaced) are serialised as compact JSON. Redaction
(:mod:`claudeops.redaction`, the one function every path uses) runs on each batch as it is
written, the whole batch at once: its replacements stop at a quote, a backslash or a blank, so
they never break the JSON they sit in nor reach from one line into the next, and a batch that
cannot hold a secret (its cheap pre-check) is written untouched. The kinds it redacted are kept
(:attr:`TranscriptWriter.redacted_kinds`) for the session's one warning about them.

Lines are kept in a list and written together, in one ``write``, at most
:data:`FLUSH_INTERVAL` seconds after the first of them and when the session ends, so a
transcript followed live lags by half a second at most. What must survive
a crash is what the session recorded, and markers are committed to the database as they
arrive; a killed runner loses at most the last half second of the transcript file.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import IO, Any

import msgspec
from claude_agent_sdk import Transport

from claudeops.redaction import may_hold_secret, redact_secrets

log = logging.getLogger(__name__)

FLUSH_INTERVAL = 0.5
"""Seconds a written line may wait in the buffer: the live view's lag, and what a kill can lose."""
_ENCODER = msgspec.json.Encoder(enc_hook=str)
"""About six times faster than ``json`` for a frame; only frames with no text of their own use it."""
_FALLBACK_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str, check_circular=False)


def encode_frame(frame: dict[str, Any]) -> str:
    """One frame as a JSON line, for frames that reach us as dicts only."""
    try:
        return _ENCODER.encode(frame).decode()
    except (msgspec.EncodeError, TypeError, ValueError):  # e.g. nested too deep: let json decide
        return _FALLBACK_ENCODER.encode(frame)


class TranscriptWriter:
    """Appends redacted lines to ``path``, flushed every half second; a write problem is logged once."""

    def __init__(self, path: Path, literals: Iterable[str] = (), *, flush_interval: float = FLUSH_INTERVAL) -> None:
        self.path = path
        self._literals = tuple(literals)
        self._flush_interval = flush_interval
        self._handle: IO[bytes] | None = None
        self._pending: list[str] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._failed = False
        self.redacted_kinds: set[str] = set()
        """Every kind of secret removed from what was written (never the values)."""

    def open(self) -> None:
        try:
            self._handle = self._open()
        except OSError as exc:
            self._fail(exc)
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a synchronous caller): every line is flushed at once
            self._loop = None

    def _open(self) -> IO[bytes]:
        """The file, opened for appending; its folder is created only when missing (one syscall less)."""
        try:
            return self.path.open("ab")
        except FileNotFoundError:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return self.path.open("ab")

    def write_line(self, line: str) -> None:
        """One frame's JSON text as the stream carried it (no newline); redacted when it is flushed."""
        if self._handle is None:
            return
        self._pending.append(line)
        if self._timer is None:
            self._schedule_flush()

    def write(self, frame: dict[str, Any]) -> None:
        """A frame that exists only as a dict: serialised, then written like a raw line."""
        if self._handle is None:
            return
        try:
            line = encode_frame(frame)
        except (ValueError, RecursionError) as exc:
            self._fail(exc)
            return
        self.write_line(line)

    def _schedule_flush(self) -> None:
        if self._loop is None or self._loop.is_closed():
            self.flush()
        else:
            self._timer = self._loop.call_later(self._flush_interval, self.flush)

    def flush(self) -> None:
        """Write the waiting lines to the file now, in one write (the timer calls this; closing does too)."""
        self._cancel_timer()
        pending = self._pending
        if self._handle is None or not pending:
            return
        pending.append("")  # the last line's newline
        text = "\n".join(pending)
        if may_hold_secret(text, self._literals):  # one scan of the batch settles most flushes
            redaction = redact_secrets(text, self._literals)
            text = redaction.text
            self.redacted_kinds.update(redaction.kinds)
        data = text.encode("utf-8", "backslashreplace")  # a lone surrogate: its JSON escape
        pending.clear()
        try:
            self._handle.write(data)
            self._handle.flush()
        except (OSError, ValueError) as exc:
            self._fail(exc)

    def close(self) -> None:
        """Flush and close; safe to call more than once."""
        self.flush()
        handle, self._handle = self._handle, None
        self._pending.clear()
        if handle is not None:
            try:
                handle.close()
            except (OSError, ValueError) as exc:
                self._fail(exc)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _fail(self, exc: Exception) -> None:
        if not self._failed:
            log.warning("transcript %s is incomplete: %s", self.path, exc)
        self._failed = True
        self.close()


LineSink = Callable[[str], None]
"""Receives one frame's JSON text; a transport with ``tee_lines(sink)`` calls it for every frame it yields."""


class TeeTransport(Transport):
    """Wraps any transport and copies every frame it reads into a :class:`TranscriptWriter`.

    Working at the transport level means the transcript holds the stream exactly as the CLI
    (or a recording) produced it, control frames included, for the real CLI and replay alike.
    A transport with a ``tee_lines(sink)`` method (the replay transport) hands over each frame's
    text itself, so its frames pass through untouched; any other transport's frames (the CLI's)
    are serialised here.
    """

    def __init__(self, inner: Transport, writer: TranscriptWriter) -> None:
        self.inner = inner
        self.writer = writer
        self._tee_lines: Callable[[LineSink], None] | None = getattr(inner, "tee_lines", None)

    async def connect(self) -> None:
        self.writer.open()
        if self._tee_lines is not None:
            self._tee_lines(self.writer.write_line)
        await self.inner.connect()

    async def write(self, data: str) -> None:
        await self.inner.write(data)

    def read_messages(self) -> AsyncIterator[dict[str, Any]]:
        return self.inner.read_messages() if self._tee_lines is not None else self._copied()

    async def _copied(self) -> AsyncIterator[dict[str, Any]]:
        async for frame in self.inner.read_messages():
            self.writer.write(frame)
            yield frame

    async def close(self) -> None:
        try:
            await self.inner.close()
        finally:
            self.writer.close()

    def is_ready(self) -> bool:
        return self.inner.is_ready()

    async def end_input(self) -> None:
        await self.inner.end_input()

    def stop_now(self) -> None:
        """Forward an urgent stop (timeout, signal) to the wrapped transport if it supports one."""
        stop = getattr(self.inner, "stop_now", None)
        if stop is not None:
            stop()
