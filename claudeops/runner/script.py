"""Scripted sessions: stream-json frames in the CLI's shapes, built from a short script.

For tests, examples and benchmarks: ``ScriptTransport(["text", bash("ls", "out")])`` replays a
session nobody had to record, through the same :class:`~claudeops.runner.replay.ReplayTransport`
and the real SDK parser as a recorded one.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from claudeops.runner.replay import ReplayTransport


@dataclass(frozen=True)
class ToolCall:
    """One tool call of a script: what the model asked for and what the tool printed."""

    name: str
    input: dict[str, Any]
    output: str | list[dict[str, Any]] = ""
    is_error: bool = False


def bash(command: str, output: str = "", *, is_error: bool = False) -> ToolCall:
    """A scripted Bash call, the most common tool of an ops session."""
    return ToolCall("Bash", {"command": command, "description": command[:60]}, output, is_error)


@dataclass
class _Ids:
    """Deterministic identifiers, so generated recordings are stable across runs."""

    seed: str
    counter: int = 0

    def next(self, prefix: str = "") -> str:
        self.counter += 1
        return prefix + str(uuid.uuid5(uuid.NAMESPACE_URL, f"{self.seed}/{self.counter}"))


@dataclass
class _Scripted:
    ids: _Ids
    session_id: str
    model: str
    frames: list[dict[str, Any]] = field(default_factory=list)
    turns: int = 0
    message_id: str | None = None
    last_text: str = ""

    def assistant(self, block: dict[str, Any]) -> None:
        if self.message_id is None:
            self.message_id = "msg_" + self.ids.next().replace("-", "")[:24]
            self.turns += 1
        self.frames.append({"type": "assistant", "message": {
            "id": self.message_id, "type": "message", "role": "assistant", "model": self.model,
            "content": [block], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 1200, "output_tokens": 60, "cache_creation_input_tokens": 0,
                      "cache_read_input_tokens": 0}},
            "parent_tool_use_id": None, "session_id": self.session_id, "uuid": self.ids.next()})

    def tool_result(self, tool_id: str, call: ToolCall) -> None:
        self.message_id = None
        output = call.output
        raw = {"stdout": output, "stderr": "", "interrupted": False, "isImage": False} if isinstance(
            output, str) else output
        self.frames.append({"type": "user", "message": {"role": "user", "content": [
            {"tool_use_id": tool_id, "type": "tool_result", "content": output, "is_error": call.is_error}]},
            "parent_tool_use_id": None, "session_id": self.session_id, "uuid": self.ids.next(),
            "tool_use_result": f"Error: {output}" if call.is_error else raw})


def script_to_stream(steps: Sequence[str | ToolCall], *, model: str = "claude-haiku-4-5",
                     session_id: str | None = None, cost_usd: float = 0.0042, seed: str = "claudeops",
                     subtype: str = "success", is_error: bool = False, api_error_status: int | None = None,
                     errors: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Stream-json frames for a scripted session: init, assistant text/tool use, tool results, result.

    A ``str`` step is a text block the model writes; a :class:`ToolCall` is a tool use followed
    by its result. Consecutive steps before a tool result belong to one API response (the CLI
    emits one assistant message per content block, sharing the message id), as in real output.
    """
    ids = _Ids(seed)
    session_id = session_id or ids.next()
    script = _Scripted(ids, session_id, model)
    script.frames.append({"type": "system", "subtype": "init", "cwd": "/var/lib/claudeops/work",
                          "session_id": session_id, "tools": ["Bash", "Read", "Grep", "Glob", "WebFetch"],
                          "mcp_servers": [], "model": model, "permissionMode": "default",
                          "apiKeySource": "ANTHROPIC_API_KEY", "claude_code_version": "2.1.330",
                          "uuid": ids.next()})
    for step in steps:
        if isinstance(step, ToolCall):
            tool_id = "toolu_" + ids.next().replace("-", "")[:20]
            script.assistant({"type": "tool_use", "id": tool_id, "name": step.name, "input": step.input})
            script.tool_result(tool_id, step)
        else:
            script.assistant({"type": "text", "text": step})
            script.last_text = step
    script.frames.append(_result_frame(script, cost_usd, subtype, is_error, api_error_status, list(errors)))
    return script.frames


def _result_frame(script: _Scripted, cost_usd: float, subtype: str, is_error: bool,
                  api_error_status: int | None, errors: list[str]) -> dict[str, Any]:
    frame: dict[str, Any] = {
        "type": "result", "subtype": subtype, "is_error": is_error, "duration_ms": 1500 * max(script.turns, 1),
        "duration_api_ms": 1200 * max(script.turns, 1), "num_turns": max(script.turns, 1),
        "session_id": script.session_id, "result": script.last_text, "stop_reason": "end_turn",
        "total_cost_usd": cost_usd,
        "usage": {"input_tokens": 1200 * script.turns, "output_tokens": 60 * script.turns},
        "modelUsage": {script.model: {"inputTokens": 1200 * script.turns, "outputTokens": 60 * script.turns,
                                      "costUSD": cost_usd}},
        "permission_denials": [], "terminal_reason": "completed" if not is_error else "api_error",
        "api_error_status": api_error_status, "uuid": script.ids.next()}
    if errors:
        frame["errors"] = errors
    return frame


class ScriptTransport(ReplayTransport):
    """A replay of :func:`script_to_stream` frames: ``ScriptTransport(["text", bash("ls", "out")])``."""

    def __init__(self, steps: Sequence[str | ToolCall], *, exit_code: int | None = None, **script: Any) -> None:
        super().__init__(script_to_stream(steps, **script), exit_code=exit_code)
