"""Constants and small readers shared by the notify plugin's tests (fixtures are in ``conftest.py``)."""

from __future__ import annotations

from claudeops_notify.repository import list_notifications

ALERTS = "/alerts"
"""The receiver path the tests' notify URL posts to."""
PUBLIC_URL = "https://ops.example.net"


def outcomes() -> list[tuple[str, str, str | None]]:
    """(title, outcome, reason) of every notification, oldest first."""
    return [(row.title, row.outcome, row.reason) for row in reversed(list_notifications())]
