"""Session transcripts: the raw stream, one JSON object per line, with secrets redacted.

Every frame the transport reads (system, assistant, user/tool results, result, control
requests) is written as it arrives and flushed, so the transcript of a killed session is
complete up to the kill. The file is itself a valid recording: ``claudeops run --replay
<transcript>`` replays it (the replay transport ignores control frames).

Redaction runs on the serialised line. Every pattern stops at a quote or a backslash, so a
replacement never breaks the JSON it sits in.
"""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import IO, Any

from claude_agent_sdk import Transport

log = logging.getLogger(__name__)

REDACTED = "***"
SECRET_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN")
_MIN_LITERAL_SECRET = 8
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str, check_circular=False)
"""Built once: ``json.dumps`` with options builds a new encoder per call, and this runs per frame."""

_PATTERNS: tuple[tuple[tuple[str, ...], re.Pattern[str], str], ...] = (
    # (cheap lowercase substrings, one of which must be present; pattern; replacement)
    # Anthropic keys and OAuth tokens wherever they appear
    (("sk-ant-",), re.compile(r"sk-ant-[A-Za-z0-9_\-]{4,}"), "sk-ant-" + REDACTED),
    # header-like values in text: "Authorization: Bearer abc", "x-api-key=abc"
    (("authorization", "x-api-key"),
     re.compile(r"((?:authorization|proxy-authorization|x-api-key)\\?\"?\s*[:=]\s*\\?\"?\s*"
                r"(?:(?:bearer|basic|token)\s+)?)[^\s\"'\\,;}]+", re.IGNORECASE), r"\1" + REDACTED),
    # credentials in URLs: scheme://user:password@host
    (("://",), re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@\"'\\]+:)[^\s@/\"'\\]+@"), r"\1" + REDACTED + "@"),
)


def secret_literals(environ: dict[str, str] | os._Environ[str] | None = None) -> tuple[str, ...]:
    """Values of credential variables present now, redacted verbatim wherever they appear."""
    environ = os.environ if environ is None else environ
    return tuple(value for name in SECRET_VARIABLES
                 if len(value := environ.get(name, "")) >= _MIN_LITERAL_SECRET and '"' not in value)


def redact(text: str, literals: Iterable[str] = ()) -> str:
    """``text`` with API keys, authorization values and URL passwords replaced by ``***``."""
    for literal in literals:
        text = text.replace(literal, REDACTED)
    lowered = text.lower()
    for needles, pattern, replacement in _PATTERNS:
        if any(needle in lowered for needle in needles):  # most lines hold no secret: skip the regex
            text = pattern.sub(replacement, text)
    return text


class TranscriptWriter:
    """Appends redacted frames to ``path``; a write problem is logged once, never fatal."""

    def __init__(self, path: Path, literals: Iterable[str] = ()) -> None:
        self.path = path
        self._literals = tuple(literals)
        self._handle: IO[str] | None = None
        self._failed = False
        self.frames = 0

    def open(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._handle = self.path.open("a", encoding="utf-8")
        except OSError as exc:
            self._fail(exc)

    def write(self, frame: dict[str, Any]) -> None:
        if self._handle is None:
            return
        try:
            line = _ENCODER.encode(frame)
            self._handle.write(redact(line, self._literals) + "\n")
            self._handle.flush()
            self.frames += 1
        except (OSError, ValueError) as exc:
            self._fail(exc)

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def _fail(self, exc: Exception) -> None:
        if not self._failed:
            log.warning("transcript %s is incomplete: %s", self.path, exc)
        self._failed = True
        self.close()


class TeeTransport(Transport):
    """Wraps any transport and copies every frame it reads into a :class:`TranscriptWriter`.

    Working at the transport level means the transcript holds the stream exactly as the CLI
    (or a recording) produced it, control frames included, for the real CLI and replay alike.
    """

    def __init__(self, inner: Transport, writer: TranscriptWriter) -> None:
        self.inner = inner
        self.writer = writer

    async def connect(self) -> None:
        self.writer.open()
        await self.inner.connect()

    async def write(self, data: str) -> None:
        await self.inner.write(data)

    async def read_messages(self) -> AsyncIterator[dict[str, Any]]:  # type: ignore[override]
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
