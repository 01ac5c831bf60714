"""How text reads in the lines people see: counts in words, and errors that stay on one line."""

from __future__ import annotations


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``1 turn``, ``2 turns``, ``0 restarts``; ``plural`` for a noun that is not just given an s (``memories``)."""
    return f"{number} {noun}" if number == 1 else f"{number} {plural or noun + 's'}"


def one_line(text: str) -> str:
    """``text`` with each line break (and the indentation around it) as one space; a line stays as it is.

    Drivers and libraries put details on further lines (psycopg2's ``Is the server running on
    that host…``); cron mails and log lines carry one line per problem. Blanks within a line are
    kept: a message may quote a value made of them.
    """
    lines = text.splitlines()
    if len(lines) <= 1:
        return text
    return " ".join(stripped for line in lines if (stripped := line.strip()))
