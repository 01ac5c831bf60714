"""A service's status is the level of its latest finding, and since when: the ``service_statuses`` hook."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from claudeops import COOLDOWN_REFUSED, FINDING, App, NotableEvent

BUILTINS = ("claudeops.environment", "claudeops.escalation", "claudeops_events")


@pytest.fixture
def claudeops_builtins() -> Sequence[str]:
    return BUILTINS


@pytest.fixture
def app(claudeops_app: App) -> App:
    return claudeops_app


def record(app: App, level: str, service: str | None, at: str, message: str = "m", kind: str | None = FINDING) -> None:
    app.hook.record_event(event=NotableEvent(level, message, at, service, kind=kind))


def test_status_is_the_latest_events_level_since_the_run_of_that_level_began(app: App) -> None:
    record(app, "info", "jellyfin", "2026-01-01T00:00:00Z")
    record(app, "critical", "jellyfin", "2026-01-01T01:00:00Z", "jellyfin down")
    record(app, "critical", "Jellyfin", "2026-01-01T02:00:00Z", "still down")  # a repeat keeps "since"
    record(app, "warning", "caddy", "2026-01-01T03:00:00Z", "slow")
    record(app, "info", "caddy", "2026-01-01T04:00:00Z", "recovered")
    record(app, "critical", None, "2026-01-01T05:00:00Z", "no service: not a status")
    statuses = app.hook.service_statuses()
    assert [(s.service, s.status, s.since, s.last_event_at, s.message) for s in statuses] == [
        ("caddy", "up", "2026-01-01T04:00:00Z", "2026-01-01T04:00:00Z", "recovered"),
        ("jellyfin", "down", "2026-01-01T01:00:00Z", "2026-01-01T02:00:00Z", "still down"),
    ]


def test_events_that_are_not_findings_leave_the_status_alone(app: App) -> None:
    record(app, "info", "jellyfin", "2026-01-01T00:00:00Z", "answers 200")
    record(app, "warning", "jellyfin", "2026-01-01T01:00:00Z", "memory #3 contradicted by memory #9", kind=None)
    record(app, "warning", "jellyfin", "2026-01-01T02:00:00Z", "cooldown blocked restart", kind=COOLDOWN_REFUSED)
    record(app, "critical", "nextcloud", "2026-01-01T03:00:00Z", "refused", kind=None)
    [status] = app.hook.service_statuses()
    assert (status.service, status.status, status.message) == ("jellyfin", "up", "answers 200")


def test_a_flap_starts_a_new_since(app: App) -> None:
    for at, level in (("00", "critical"), ("01", "info"), ("02", "critical"), ("03", "critical")):
        record(app, level, "nas", f"2026-01-01T{at}:00:00Z")
    [status] = app.hook.service_statuses()
    assert (status.status, status.since) == ("down", "2026-01-01T02:00:00Z")


def test_without_the_events_plugin_nobody_answers(make_claudeops_app: Callable[..., App]) -> None:
    assert make_claudeops_app(builtins=()).hook.service_statuses() is None
