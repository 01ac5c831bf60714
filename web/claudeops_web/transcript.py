"""A session transcript (stream-json NDJSON) turned into items a person can read.

Assistant text is shown as written, with markers highlighted (malformed ones too, so an
operator sees why nothing was recorded); tool calls, tool results, thinking and prompts are
collapsible. The file is read from a byte offset up to its last complete line, so a running
session's page can fetch only what was appended since the last poll.

What is read is redacted again before it is shown: the runner writes transcripts redacted, but a
file written by an older version (or copied in from elsewhere) must not put a secret on a page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from claudeops import MAX_LINE_CHARS, MarkerRegistry, counted, may_hold_secret, redact

CHUNK_BYTES = 2_000_000
"""At most this much transcript per response; the page fetches the rest right after."""
SCAN_BYTES = 65_536
"""How much is read at a time while looking for the start of the next line."""
MAX_BLOCK_CHARS = 20_000
"""Tool output longer than this is cut (the file keeps all of it)."""


@dataclass(frozen=True)
class Segment:
    """A run of text; ``marker`` is the marker type's name, ``"malformed"``, or None for prose."""

    text: str
    marker: str | None = None


@dataclass(frozen=True)
class TranscriptItem:
    """One readable piece: ``kind`` is text, tool_use, tool_result, thinking, prompt, system,
    result or unreadable; ``lines`` holds highlighted text, ``body`` collapsed detail."""

    kind: str
    title: str
    lines: tuple[tuple[Segment, ...], ...] = ()
    body: str = ""
    is_error: bool = False


@dataclass
class TranscriptChunk:
    """Items read from ``start`` to ``end`` (a byte offset to continue from)."""

    items: list[TranscriptItem] = field(default_factory=list)
    start: int = 0
    end: int = 0
    more: bool = False
    missing: bool = False


def read_transcript(path: str | None, markers: MarkerRegistry, offset: int = 0,
                    limit: int = CHUNK_BYTES) -> TranscriptChunk:
    """Parse complete lines from ``offset``; a partial last line waits for the next read."""
    if not path or not Path(path).is_file():
        return TranscriptChunk(start=offset, end=offset, missing=True)
    with open(path, "rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        offset = _line_start(handle, min(max(offset, 0), size), size)
        handle.seek(offset)
        data = handle.read(limit)
    complete = data[: data.rfind(b"\n") + 1]
    if not complete and len(data) == limit:
        complete = data  # one line longer than a chunk: show it cut rather than never
    chunk = TranscriptChunk(start=offset, end=offset + len(complete))
    chunk.more = len(data) == limit and chunk.end < size  # stopped at the limit, not at a partial line
    text = complete.decode("utf-8", errors="replace")
    if may_hold_secret(text):
        text = redact(text)
    for raw in text.splitlines():
        if raw.strip():
            chunk.items.extend(items_from_line(raw, markers))
    return chunk


def _line_start(handle: BinaryIO, offset: int, size: int) -> int:
    """``offset`` if a line starts there, else the start of the next line (or ``size``).

    Offsets the page sends are always line starts; one typed into the URL may fall inside a
    line, whose tail is not JSON and would show as a bogus unreadable item.
    """
    if offset == 0:
        return 0
    handle.seek(offset - 1)
    if handle.read(1) == b"\n":
        return offset
    position = offset
    while block := handle.read(SCAN_BYTES):
        newline = block.find(b"\n")
        if newline >= 0:
            return position + newline + 1
        position += len(block)
    return size


def items_from_line(raw: str, markers: MarkerRegistry) -> list[TranscriptItem]:
    """The readable items of one stream-json record."""
    try:
        record = json.loads(raw)
    except json.JSONDecodeError:
        return [TranscriptItem("unreadable", "a line that is not JSON", body=_cut(raw))]
    if not isinstance(record, dict):
        return [TranscriptItem("unreadable", "a line that is not a JSON object", body=_cut(raw))]
    kind = record.get("type")
    if kind == "assistant":
        return _assistant_items(record, markers)
    if kind == "user":
        return _user_items(record)
    if kind == "result":
        return [_result_item(record)]
    if kind == "system" and record.get("subtype") == "init":
        return [TranscriptItem("system", f"session started (model {record.get('model', '?')})",
                               body=f"cwd: {record.get('cwd', '?')}\ntools: {', '.join(record.get('tools', []))}")]
    return []


def _content_blocks(record: dict[str, Any]) -> list[Any]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return content if isinstance(content, list) else []


def _assistant_items(record: dict[str, Any], markers: MarkerRegistry) -> list[TranscriptItem]:
    items = []
    for block in _content_blocks(record):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            text = str(block.get("text", ""))
            items.append(TranscriptItem("text", "assistant", lines=highlight(text, markers)))
        elif block.get("type") == "tool_use":
            items.append(TranscriptItem("tool_use", _tool_title(block), body=_cut(_pretty(block.get("input")))))
        elif block.get("type") == "thinking":
            items.append(TranscriptItem("thinking", "thinking", body=_cut(str(block.get("thinking", "")))))
    return items


def _user_items(record: dict[str, Any]) -> list[TranscriptItem]:
    items = []
    for block in _content_blocks(record):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_result":
            error = bool(block.get("is_error"))
            text = _tool_result_text(block.get("content"))
            title = f"{'error' if error else 'result'} ({counted(len(text.splitlines()), 'line')})"
            items.append(TranscriptItem("tool_result", title, body=_cut(text), is_error=error))
        elif block.get("type") == "text":
            items.append(TranscriptItem("prompt", "prompt", body=_cut(str(block.get("text", "")))))
    return items


def _result_item(record: dict[str, Any]) -> TranscriptItem:
    parts = [str(record.get("subtype", "done"))]
    if record.get("num_turns") is not None:
        parts.append(f"{record['num_turns']} turns")
    if record.get("total_cost_usd") is not None:
        parts.append(f"${record['total_cost_usd']:.4f}")
    return TranscriptItem("result", "session ended: " + ", ".join(parts), body=_cut(str(record.get("result") or "")),
                          is_error=bool(record.get("is_error")))


def _tool_title(block: dict[str, Any]) -> str:
    name = str(block.get("name", "tool"))
    tool_input = block.get("input")
    arguments = tool_input if isinstance(tool_input, dict) else {}
    preview = arguments.get("command") or arguments.get("file_path") or arguments.get("url") or ""
    preview = str(preview).splitlines()[0] if preview else ""
    return f"{name}: {preview[:160]}" if preview else name


def _tool_result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in content)
    return "" if content is None else _pretty(content)


def _pretty(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _cut(text: str) -> str:
    if len(text) <= MAX_BLOCK_CHARS:
        return text
    return text[:MAX_BLOCK_CHARS] + f"\n… ({len(text) - MAX_BLOCK_CHARS:,} more characters in the transcript file)"


def highlight(text: str, markers: MarkerRegistry) -> tuple[tuple[Segment, ...], ...]:
    """Split text into lines of segments, marking each marker candidate by its type (or malformed)."""
    return tuple(_highlight_line(line, markers) for line in text.splitlines())


def _highlight_line(line: str, markers: MarkerRegistry) -> tuple[Segment, ...]:
    head, tail = line[:MAX_LINE_CHARS], line[MAX_LINE_CHARS:]
    candidates = list(markers.candidates(head))
    covered = sum(len(candidate.text) for candidate in candidates)
    segments = [Segment(head[: len(head) - covered])] if covered < len(head) else []
    for candidate in candidates:
        parsed = candidate.parse()
        segments.append(Segment(candidate.text, parsed.type if parsed else "malformed"))
    if tail:
        segments.append(Segment(tail))
    return tuple(segment for segment in segments if segment.text) or (Segment(""),)
