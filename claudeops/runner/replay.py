"""Replay: a recorded stream-json session fed through the real SDK instead of the CLI.

:class:`ReplayTransport` stands in for the Claude Code CLI behind ``claude_agent_sdk.query``:
it answers the SDK's ``initialize`` request itself, waits for the user prompt, then yields the
recorded frames, so the SDK's own parser and the whole runner (hooks, markers, session row,
transcript) run exactly as in a live session. Recorded ``control_response``/``control_request``
frames are dropped: they belonged to the recorded process's conversation with its SDK.

The tool gate is live during a replay: before yielding a recorded ``tool_use`` the transport
asks it, where the CLI would, and when it refuses the call the recorded tool result is replaced
by the refusal the model would have seen. So a recording replayed in dry run, or against
today's cooldowns, shows what would be refused. The transport stands in for the CLI, so the
runner hands it the gate itself (:attr:`ReplayTransport.tool_gate`) and the question costs a
function call. Without one, the transport asks the SDK's ``PreToolUse`` hooks through a
``hook_callback`` control request, exactly as the CLI does.

:mod:`claudeops.runner.script` builds frames in the CLI's shapes from a short script, for
tests, examples and benchmarks.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, Protocol, runtime_checkable

import anyio
from claude_agent_sdk import ProcessError, Transport

from claudeops.encoding import bytes_problem
from claudeops.runner.sdk import MessageParseError, parse_message
from claudeops.runner.transcript import LineSink, encode_frame

HOOK_ANSWER_TIMEOUT = 60.0
_PROMPTED: dict[str, Any] = {"type": "_prompted"}
"""Queued by :meth:`ReplayTransport.write` when the user prompt arrives: playback may start."""
_CONTROL_FRAMES = frozenset({"control_response", "control_request", "control_cancel_request"})


ToolGate = Callable[[str, dict[str, Any], str], Awaitable[str | None]]
"""``(tool_name, tool_input, tool_use_id) -> refusal or None``, asked before each recorded tool call:
the refusal the model reads instead of the tool's result, or ``None`` to let it run."""


@runtime_checkable
class GatedTransport(Protocol):
    """A transport that stands in for the CLI and asks the tool gate itself (a replay): the runner sets the gate."""

    tool_gate: ToolGate | None


class ReplayError(Exception):
    """A recording cannot be used; the message names the file and line."""


class Recording(NamedTuple):
    """A stream-json file as read: its frames, and each frame's line as recorded (for the transcript)."""

    frames: list[dict[str, Any]]
    lines: list[str]


def load_recording(path: Path) -> list[dict[str, Any]]:
    """The frames of a stream-json file, without the recorded control frames."""
    return read_recording(path).frames


def read_recording(path: Path) -> Recording:
    """The frames of a stream-json file and each frame's line as recorded (for the transcript).

    Lines end at ``\\n`` only: U+2028 or U+0085 inside a JSON string is text, not a line break.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ReplayError(f"{path}: cannot read recording: {exc.strerror or exc}") from None
    if (problem := bytes_problem(data)) is not None:
        raise ReplayError(f"{path}: cannot read recording: {problem}")
    lines = data.decode("utf-8").split("\n")
    frames, texts = [], []
    for number, line in enumerate(lines, start=1):
        line = line.strip()
        if not line:
            continue
        try:
            frame = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ReplayError(f"{path}:{number}: not a JSON line ({exc.msg} column {exc.colno})") from None
        if not isinstance(frame, dict) or "type" not in frame:
            raise ReplayError(f"{path}:{number}: not a stream-json frame (no \"type\")")
        if frame["type"] not in _CONTROL_FRAMES:
            frames.append(frame)
            texts.append(line)
    if not frames and not any(line.strip() for line in lines):
        raise ReplayError(f"{path}: recording is empty")
    if not any(frame["type"] == "result" for frame in frames):
        raise ReplayError(f"{path}: recording has no result frame; was the session cut short?")
    return Recording(frames, texts)


def read_checked_recording(path: Path) -> Recording:
    """:func:`read_recording`, plus every frame through the SDK's own parser: for a file a user names.

    A frame the parser rejects (an assistant message without ``model``, a result without
    ``duration_ms``, …) would otherwise surface mid-stream and be stored as a failed session with
    a critical event, when what is wrong is the file. ``claudeops run --replay`` calls this before
    any session, so such a file is a usage error. :func:`read_recording` itself does not parse:
    every replayed session (tests, benchmarks) reads through it, and the stream parses the frames
    anyway.
    """
    recording = read_recording(path)
    for frame, line in zip(recording.frames, recording.lines, strict=True):
        try:
            parse_message(frame)
        except (MessageParseError, TypeError) as exc:  # TypeError: a "message" that is not an object
            raise ReplayError(f"{path}:{_line_number(path, line)}: the SDK cannot parse this frame: {exc}") from None
    return recording


def _line_number(path: Path, line: str) -> int:
    """The number of the file's line that :func:`read_recording` kept as ``line``, looked up only for an error.

    The first line with that text is the one: an identical earlier frame would have failed first.
    """
    lines = path.read_text(encoding="utf-8").split("\n")
    return next(number for number, text in enumerate(lines, start=1) if text.strip() == line)


@dataclass
class _HookMatcher:
    pattern: str | None
    callback_ids: list[str]

    def matches(self, tool_name: str) -> bool:
        if self.pattern in (None, "", "*"):
            return True
        return re.fullmatch(self.pattern, tool_name) is not None


class ReplayTransport(Transport):
    """Plays ``frames`` back to the SDK as if the CLI printed them.

    ``exit_code`` imitates the CLI exiting non-zero after the last frame (as it does after an
    error result), which the SDK turns into ``ResultError``. ``lines`` are the frames' text as
    recorded (from :func:`read_recording`): a transcript then copies them instead of
    serialising the frames again. ``tool_gate`` (also settable as an attribute before the
    replay starts) is asked before each recorded tool use instead of the SDK's hooks.
    """

    def __init__(self, frames: Sequence[dict[str, Any]], *, exit_code: int | None = None,
                 lines: Sequence[str] | None = None, tool_gate: ToolGate | None = None) -> None:
        self._frames = list(frames)
        if lines is not None and len(lines) != len(self._frames):
            raise ValueError(f"{len(lines)} recorded lines for {len(self._frames)} frames")
        self._lines = list(lines) if lines is not None else None
        self._sink: LineSink | None = None
        self.tool_gate = tool_gate
        self._hook_ids = itertools.count(1)
        self._exit_code = exit_code
        self._send, self._receive = anyio.create_memory_object_stream[dict[str, Any]](100)
        self._prompted = False
        self._answers: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._pre_tool_use: list[_HookMatcher] = []
        self._denied: dict[str, str] = {}
        self._ready = False
        self._stopped = False
        self.written: list[dict[str, Any]] = []

    async def connect(self) -> None:
        self._ready = True

    def tee_lines(self, sink: LineSink) -> None:
        """Hand ``sink`` every frame's JSON line as it is yielded (see :class:`~claudeops.transcript.TeeTransport`)."""
        self._sink = sink

    def _teed(self, frame: dict[str, Any], line: str | None = None) -> dict[str, Any]:
        if self._sink is not None:
            self._sink(encode_frame(frame) if line is None else line)
        return frame

    async def write(self, data: str) -> None:
        for line in data.splitlines():
            if line.strip():
                await self._handle_written(json.loads(line))

    async def _handle_written(self, frame: dict[str, Any]) -> None:
        self.written.append(frame)
        kind = frame.get("type")
        if kind == "control_request":
            request = frame.get("request", {})
            if request.get("subtype") == "initialize":
                self._remember_hooks(request.get("hooks") or {})
                answer = {"commands": [], "models": [], "account": {}, "hook_on_failure_supported": True}
            else:
                answer = {}
            await self._queue({"type": "control_response", "response": {
                "subtype": "success", "request_id": frame["request_id"], "response": answer}})
        elif kind == "control_response":
            response = frame.get("response", {})
            request_id = response.get("request_id")
            waiting = self._answers.get(request_id)
            if waiting is not None and not waiting.done():
                waiting.set_result(response)
        elif kind == "user" and not self._prompted:
            self._prompted = True
            await self._queue(_PROMPTED)

    async def _queue(self, frame: dict[str, Any]) -> None:
        """Hand a frame to :meth:`read_messages`; after a stop there is nobody left to read it."""
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self._send.send(frame)

    def _remember_hooks(self, hooks: dict[str, Any]) -> None:
        for matcher in hooks.get("PreToolUse") or []:
            self._pre_tool_use.append(_HookMatcher(matcher.get("matcher"), list(matcher.get("hookCallbackIds", []))))

    async def read_messages(self) -> AsyncIterator[dict[str, Any]]:
        """Answers to the SDK's requests until the prompt arrives, then the recording.

        After an assistant frame with tool uses, and before anything that follows it, the tool gate
        is asked for each, exactly where the CLI asks it (it prints the message, then asks before
        running the tool): :attr:`tool_gate` directly, else the SDK's hooks (a ``hook_callback``
        request each, answered through :meth:`write`). A refusal replaces that tool's result.
        """
        try:
            while (frame := await self._receive.receive()) is not _PROMPTED:
                yield self._teed(frame)
        except anyio.EndOfStream:
            return
        for index, frame in enumerate(self._frames):
            while (queued := self._queued()) is not None:
                yield self._teed(queued)
            if self._stopped:
                return
            line = self._lines[index] if self._lines is not None else None
            kind = frame.get("type")
            if kind == "user" and self._denied:
                frame, line = self._apply_denials(frame), None
            yield self._teed(frame, line)
            if kind == "assistant" and (self.tool_gate is not None or self._pre_tool_use):
                for block in _tool_uses(frame):
                    if self.tool_gate is not None:
                        reason = await self.tool_gate(str(block.get("name", "")), block.get("input") or {},
                                                      str(block.get("id", "")))
                    else:  # the SDK's hooks, through a hook_callback request each, as the CLI asks them
                        reason = None
                        for callback_id in self._callbacks_for(str(block.get("name", ""))):
                            request_id = f"replay_hook_{next(self._hook_ids)}"
                            self._answers[request_id] = asyncio.get_running_loop().create_future()
                            yield self._teed(_hook_request(request_id, callback_id, block, frame.get("session_id", "")))
                            if (reason := await self._denial(request_id)) is not None:
                                break
                    if reason is not None:
                        self._denied[str(block.get("id", ""))] = reason
        if self._exit_code and not self._stopped:
            raise ProcessError("Command failed", exit_code=self._exit_code, stderr="replayed exit")

    def _queued(self) -> dict[str, Any] | None:
        try:
            frame = self._receive.receive_nowait()
        except (anyio.WouldBlock, anyio.EndOfStream, anyio.ClosedResourceError):
            return None
        return None if frame is _PROMPTED else frame

    def _callbacks_for(self, tool_name: str) -> list[str]:
        return [callback_id for matcher in self._pre_tool_use if matcher.matches(tool_name)
                for callback_id in matcher.callback_ids]

    async def _denial(self, request_id: str) -> str | None:
        """Wait for the SDK's answer to a hook request; the deny reason, or ``None`` to allow.

        A future and a timer, not an anyio cancel scope: this runs before every replayed tool
        call, and the runner drives sessions on asyncio.
        """
        answer = self._answers[request_id]
        timer = asyncio.get_running_loop().call_later(HOOK_ANSWER_TIMEOUT, _expire, answer)
        try:
            response = await answer
        finally:
            timer.cancel()
            del self._answers[request_id]
        if response.get("subtype") != "success":
            return None
        specific = (response.get("response") or {}).get("hookSpecificOutput") or {}
        if specific.get("permissionDecision") == "deny":
            return str(specific.get("permissionDecisionReason") or "denied by a PreToolUse hook")
        return None

    def _apply_denials(self, frame: dict[str, Any]) -> dict[str, Any]:
        """A copy of ``frame`` whose results of denied tool calls say so, as the CLI reports them."""
        frame = copy.deepcopy(frame)  # the recording itself stays as recorded
        content = frame.get("message", {}).get("content")
        if not isinstance(content, list):
            return frame
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                reason = self._denied.pop(block.get("tool_use_id", ""), None)
                if reason is not None:
                    block["content"] = reason
                    block["is_error"] = True
                    frame["tool_use_result"] = f"Error: {reason}"
        return frame

    async def close(self) -> None:
        self._stopped = True
        self._ready = False
        self.tool_gate = None  # the runner's bound method: no cycle back to a finished session
        self._send.close()
        for answer in self._answers.values():  # nobody will answer now: let a waiting replay end
            if not answer.done():
                answer.set_result({})

    def is_ready(self) -> bool:
        return self._ready

    async def end_input(self) -> None:
        """Nothing to close: the recording plays to its end regardless of stdin."""

    def stop_now(self) -> None:
        self._stopped = True
        self._send.close()


def _expire(answer: asyncio.Future[dict[str, Any]]) -> None:
    if not answer.done():
        answer.set_exception(TimeoutError(f"no answer to a PreToolUse hook request within {HOOK_ANSWER_TIMEOUT:g} s"))


def _tool_uses(frame: dict[str, Any]) -> list[dict[str, Any]]:
    content = frame.get("message", {}).get("content", [])
    return [block for block in content if isinstance(block, dict) and block.get("type") == "tool_use"]


def _hook_request(request_id: str, callback_id: str, block: dict[str, Any], session_id: str) -> dict[str, Any]:
    """The ``hook_callback`` request the CLI sends before running a tool."""
    hook_input = {"session_id": session_id, "transcript_path": "", "cwd": "", "permission_mode": "default",
                  "hook_event_name": "PreToolUse", "tool_name": block.get("name"),
                  "tool_input": block.get("input", {}), "tool_use_id": block.get("id")}
    return {"type": "control_request", "request_id": request_id, "request": {
        "subtype": "hook_callback", "callback_id": callback_id, "input": hook_input,
        "tool_use_id": block.get("id")}}


class ReplaySource:
    """A transport factory that serves one recording per session of a chain, in order.

    A recording is a path (a ``Path`` or a ``str``, read when its session starts), a
    :class:`Recording` already read (``claudeops run`` reads every ``--replay`` file first, so a
    bad one is a usage error), or a list of frames. The first two keep each frame's recorded line
    for the transcript.
    """

    def __init__(self, recordings: Sequence[str | Path | Recording | Sequence[dict[str, Any]]]) -> None:
        # a str is a sequence too: without this, a path given as text would be taken for its characters
        self._recordings = [Path(item) if isinstance(item, str) else item for item in recordings]
        self.used = 0

    @property
    def remaining(self) -> int:
        return len(self._recordings) - self.used

    def __call__(self, tier: int) -> ReplayTransport:
        if self.remaining <= 0:
            raise ReplayError(f"no recording left to replay for tier {tier}")
        recording = self._recordings[self.used]
        self.used += 1
        if isinstance(recording, Path):
            recording = read_recording(recording)
        if isinstance(recording, Recording):
            return ReplayTransport(recording.frames, lines=recording.lines)
        return ReplayTransport(recording)
