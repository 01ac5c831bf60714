"""The Jinja environment: host templates plus every plugin's folder, autoescaped, with display filters.

Plugin folders come first so a plugin can override a host template; ``web:base.html`` always
reaches the host's own version, for a plugin that wraps instead of replacing it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import ChoiceLoader, Environment, FileSystemLoader, PrefixLoader, StrictUndefined

from claudeops import counted, from_timestamp

HOST_TEMPLATES = Path(__file__).parent / "templates"


def build_environment(plugin_dirs: Sequence[Path], globals_: Mapping[str, Any]) -> Environment:
    """A synchronous, autoescaping environment (Litestar renders synchronously; async Jinja 500s)."""
    loader = ChoiceLoader([
        FileSystemLoader([*plugin_dirs, HOST_TEMPLATES]),
        PrefixLoader({"web": FileSystemLoader(HOST_TEMPLATES)}, delimiter=":"),
    ])
    env = Environment(loader=loader, autoescape=True, undefined=StrictUndefined, trim_blocks=True,
                      lstrip_blocks=True)
    env.filters.update(duration=format_duration, usd=format_usd, ago=format_ago, when=format_when,
                       number=format_number, counted=counted)
    env.globals.update(globals_)
    return env


def format_duration(milliseconds: float | None) -> str:
    """``1h 02m``, ``3m 07s``, ``4.2s``; an em dash when unknown."""
    if milliseconds is None:
        return "—"
    seconds = milliseconds / 1000
    if seconds < 10:
        return f"{seconds:.1f}s"
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    if minutes:
        return f"{minutes}m {secs:02d}s"
    return f"{secs}s"


def format_usd(amount: float | None) -> str:
    """Session costs are cents or less, so show four decimals below a dollar."""
    if amount is None:
        return "—"
    return f"${amount:.4f}" if amount < 1 else f"${amount:,.2f}"


def format_number(value: int) -> str:
    return f"{value:,}"


def format_when(timestamp: str | None) -> str:
    """Stored UTC text as ``2026-11-21 23:55`` (the full value goes in the ``title``)."""
    if not timestamp:
        return "—"
    return timestamp.replace("T", " ")[:16]


def format_ago(timestamp: str | None, now: datetime | None = None) -> str:
    """``just now``, ``5 min ago``, ``3 h ago``, ``12 d ago`` — enough to judge freshness at a glance."""
    if not timestamp:
        return "—"
    try:
        moment = from_timestamp(timestamp)
    except ValueError:
        return timestamp
    seconds = int(((now or datetime.now(UTC)) - moment).total_seconds())
    if seconds < 0:
        return format_when(timestamp)
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 86400:
        return f"{seconds // 3600} h ago"
    return f"{seconds // 86400} d ago"
