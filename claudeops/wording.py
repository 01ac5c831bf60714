"""How counts read in the lines people see: progress, summaries, logs, prompts, refusals."""

from __future__ import annotations


def counted(number: int, noun: str) -> str:
    """``1 turn``, ``2 turns``, ``0 restarts``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
