"""How counts read in the lines people see: progress, summaries, logs, prompts, refusals."""

from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``1 turn``, ``2 turns``, ``0 restarts``; ``plural`` for a noun that is not just given an s (``memories``)."""
    return f"{number} {noun}" if number == 1 else f"{number} {plural or noun + 's'}"
