"""The session's message stream: hooks for every message, markers from assistant text only.

A single model response can reach us as several ``AssistantMessage``s (one per content block)
and ``ResultMessage.result`` holds only the last text, so markers are taken from every
``TextBlock`` of every ``AssistantMessage`` as it arrives. Tool results, user and system
messages go to ``on_message`` observers and nowhere else: a marker printed by a tool (a log
line, a web page) must never be stored as if the agent had written it.

Each marker's handler runs (and commits) before the next block is looked at, so a session
killed halfway keeps every marker it had already produced.

No plugin sees a secret the model wrote: each marker is redacted (:mod:`claudeops.redaction`)
before it is parsed and handed to its type's handler, ``on_marker`` and ``on_malformed``, so a
third-party marker is as safe as a built-in one without doing anything; a marker that held a
secret is reported once, as a warning event naming the kinds. ``on_assistant_text`` receives the
text redacted too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from claude_agent_sdk import AssistantMessage, ResultMessage, SystemMessage, TextBlock, ToolUseBlock

from claudeops.markers import Candidate, MarkerRegistry, MarkerType
from claudeops.plugins import PluginError, await_me_maybe
from claudeops.redaction import may_hold_secret, redact_secrets
from claudeops.runner.hookcalls import PluginCalls
from claudeops.session import Session
from claudeops.store import StoreError, write_patiently_async

log = logging.getLogger(__name__)

TOOL_USE_PATIENCE = 2.0
"""Seconds the tool gate waits for the message holding a call to be handled before judging it anyway."""


@dataclass
class StreamState:
    """What the stream has told us so far: enough to fill the session row and the progress line."""

    result: ResultMessage | None = None
    sdk_session_id: str | None = None
    model: str | None = None
    turns: int = 0
    tool_calls: int = 0
    last_text: str = ""
    api_error: str | None = None
    _message_ids: set[str] = field(default_factory=set)

    @property
    def final_text(self) -> str:
        """The result's text, else the last text the model wrote."""
        if self.result is not None and self.result.result:
            return self.result.result
        return self.last_text


class StreamDispatcher:
    """Feeds one session's messages to the hooks and its assistant text to the marker registry.

    Which per-message hooks have implementations is looked up once: a hook nobody implements
    costs nothing per message.
    """

    def __init__(self, session: Session, markers: MarkerRegistry, calls: PluginCalls) -> None:
        self.session = session
        self.markers = markers
        self.calls = calls
        self.state = StreamState()
        self._on_message = calls.has("on_message")
        self._on_assistant_text = calls.has("on_assistant_text")
        self._on_marker = calls.has("on_marker")
        self._tool_uses_seen: set[str] = set()
        self._waiting: dict[str, asyncio.Future[None]] = {}

    async def handle(self, message: Any) -> None:
        if self._on_message:
            await self.calls.each("on_message", session=self.session, message=message)
        if isinstance(message, AssistantMessage):
            for text in self._assistant(message):
                await self.handle_text(text)
        elif isinstance(message, SystemMessage) and message.subtype == "init":
            self.state.sdk_session_id = message.data.get("session_id") or self.state.sdk_session_id
            self.state.model = self.state.model or message.data.get("model")  # init may name the alias only
        elif isinstance(message, ResultMessage):
            self.state.result = message
            self.state.sdk_session_id = message.session_id or self.state.sdk_session_id

    def _assistant(self, message: AssistantMessage) -> list[str]:
        """Count the turn and its tool calls; the message's text blocks, in order."""
        self._count_turn(message)
        if message.model and not message.model.startswith("<"):  # not the CLI's "<synthetic>" error messages
            self.state.model = message.model  # the model that answered, by its full name, live or replayed
        if message.error:
            self.state.api_error = message.error
        texts = []
        for block in message.content:
            if isinstance(block, TextBlock):
                texts.append(block.text)
            elif isinstance(block, ToolUseBlock):
                self.state.tool_calls += 1
                self._tool_uses_seen.add(block.id)
                if (waiting := self._waiting.pop(block.id, None)) is not None and not waiting.done():
                    waiting.set_result(None)
        return texts

    def _count_turn(self, message: AssistantMessage) -> None:
        key = message.message_id or message.uuid or str(id(message))
        if key not in self.state._message_ids:
            self.state._message_ids.add(key)
            self.state.turns += 1

    async def until_seen(self, tool_use_id: str, patience: float = TOOL_USE_PATIENCE) -> None:
        """Return once the message holding tool call ``tool_use_id`` has been handled (or after ``patience`` s).

        The SDK buffers messages between the CLI (or a replay) and this dispatcher, so a tool call can
        be judged before the text written just before it — a cooldown marker — has been stored.
        Waiting here lets the stream catch up first; an unknown id is not waited for forever.
        """
        if not tool_use_id or tool_use_id in self._tool_uses_seen:
            return
        waiting = self._waiting.setdefault(tool_use_id, asyncio.get_running_loop().create_future())
        try:
            async with asyncio.timeout(patience):  # one timer on this task, not a task of its own as wait_for
                await waiting
        except TimeoutError:
            log.debug("session #%s: judged tool call %s before its message arrived", self.session.id, tool_use_id)
        finally:
            self._waiting.pop(tool_use_id, None)

    async def handle_text(self, text: str) -> None:
        """One text block the model wrote: observers first, then every marker in it, in order."""
        self.state.last_text = text
        if self._on_assistant_text:
            await self.calls.each("on_assistant_text", session=self.session,
                                  text=self.session.redact(text, "assistant text"))
        for candidate in self.markers.candidates(text):
            await self._dispatch(candidate)

    async def _dispatch(self, candidate: Candidate) -> None:
        candidate, secrets = self._redacted(candidate)
        try:
            await self._handle_candidate(candidate)
        finally:
            if secrets:
                self._report_secret(candidate.marker_type, secrets)

    def _redacted(self, candidate: Candidate) -> tuple[Candidate, tuple[str, ...]]:
        """The candidate with its secrets replaced, and the kinds found (none: the candidate as it was)."""
        literals = self.session.redactions.literals
        if not may_hold_secret(candidate.text, literals):
            return candidate, ()
        redaction = redact_secrets(candidate.text, literals)
        return Candidate(candidate.marker_type, redaction.text), redaction.kinds

    def _report_secret(self, marker_type: MarkerType, kinds: tuple[str, ...]) -> None:
        """One warning event per marker that held a secret; a failure to record it is logged, never fatal."""
        try:
            self.session.report_redaction(f"a [{marker_type.name}] marker before it was handled", kinds)
        except Exception as exc:
            log.error("%s", exc if isinstance(exc, PluginError) else f"record_event failed: {exc}")

    async def _handle_candidate(self, candidate: Candidate) -> None:
        marker_type = candidate.marker_type
        marker = candidate.parse()
        if marker is None:
            if marker_type.on_malformed is not None:
                await self._call_handler(marker_type, marker_type.on_malformed, candidate.text)
            else:
                log.warning("session #%s: ignored malformed %s marker: %s", self.session.id,
                            marker_type.name, candidate.text[:200])
            return
        if not await self._call_handler(marker_type, marker_type.handler, marker):
            return
        self.session.markers_recorded += 1
        if self._on_marker:
            await self.calls.each("on_marker", session=self.session, marker=marker)

    async def _call_handler(self, marker_type: MarkerType, handler: Callable[..., Any], argument: Any) -> bool:
        """Run a marker type's handler: whether it recorded the marker.

        A handler that returns ``False`` decided not to store it (and logged why); a locked
        database is waited out; any other failure is logged. A handler commits its own
        transaction, and one refused as locked was rolled back whole, so running it again
        stores the marker once.
        """
        try:
            result = await write_patiently_async(lambda: await_me_maybe(handler(self.session, argument)),
                                                 f"session #{self.session.id}: {marker_type.name} marker")
        except Exception as exc:
            detail = str(exc) if isinstance(exc, StoreError) else f"{type(exc).__name__}: {exc}"  # already one line
            self.calls.fail(f"marker {marker_type.name} handler failed: {detail}", exc)
            return False
        return result is not False
