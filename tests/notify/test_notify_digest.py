"""The daily digest (issue 17, item 3): sent by the first run after ``notify.digest`` local time, once a
day, recorded so it is never sent twice; services by status, open problems, cost, memories changed."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from claudeops_notify.models import DigestRow
from claudeops_notify.repository import list_notifications


@pytest.fixture(autouse=True)
def berlin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Local time is Europe/Berlin (UTC+1 in January): the fake clock's 12:00 UTC is 13:00 local."""
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def digest_app(make_claudeops_app):
    return make_claudeops_app({"CLAUDEOPS_NOTIFY_DIGEST": "13:30"})


def digests(alerts) -> list[dict]:
    return [message for message in alerts() if message["title"].startswith("claudeops daily digest")]


def test_no_digest_before_its_local_time_then_one_with_the_first_run_after_it(digest_app, replay_texts, alerts,
                                                                            claudeops_clock):
    replay_texts("[EVENT:info:caddy] fine")
    assert digests(alerts) == []
    claudeops_clock.advance(minutes=30)  # 13:30 in Berlin
    replay_texts("[EVENT:info:caddy] fine")
    [digest] = digests(alerts)
    assert digest["title"] == "claudeops daily digest for 2026-01-01"
    claudeops_clock.advance(minutes=15)
    replay_texts("[EVENT:info:caddy] fine")
    assert len(digests(alerts)) == 1
    assert [row.day for row in DigestRow.select()] == ["2026-01-01"]


def test_the_next_day_gets_its_own_digest(digest_app, replay_texts, alerts, claudeops_clock):
    claudeops_clock.advance(minutes=45)
    replay_texts("[EVENT:info:caddy] fine")
    claudeops_clock.advance(hours=12)  # 02:15 local on the 2nd: not yet
    replay_texts("[EVENT:info:caddy] fine")
    claudeops_clock.advance(hours=12)  # 14:15 local on the 2nd
    replay_texts("[EVENT:info:caddy] fine")
    assert [digest["title"] for digest in digests(alerts)] == ["claudeops daily digest for 2026-01-01",
                                                               "claudeops daily digest for 2026-01-02"]


def test_the_digest_counts_services_open_problems_cost_and_memories(digest_app, replay_texts, alerts, claudeops_clock):
    replay_texts("[EVENT:critical:jellyfin] HTTP 502\n[EVENT:warning:nextcloud] slow\n[EVENT:info:caddy] fine\n"
                 "[MEMORY:timing:jellyfin] jellyfin needs 60 s after a restart")
    claudeops_clock.advance(minutes=30)
    replay_texts("[EVENT:info:caddy] still fine")
    body = digests(alerts)[0]["message"]
    assert ("**Services:** 1 healthy, 1 degraded, 1 down: jellyfin (down since 2026-01-01T12:00:00Z), "
            "nextcloud (degraded since 2026-01-01T12:00:00Z)") in body
    assert ("**Open problems:** 2: jellyfin down since 2026-01-01T12:00:00Z, nextcloud degraded since "
            "2026-01-01T12:00:00Z") in body
    assert "**Cost, last 24 h:** $0.00" in body  # replays spend nothing
    assert "**Memories:** 1 new, 0 changed; 1 memory active" in body


def test_the_digest_is_claimed_once_even_if_its_delivery_fails(digest_app, replay_texts, http_receiver,
                                                              claudeops_clock):
    http_receiver.fail("/alerts", 500, 500, 500)
    claudeops_clock.advance(minutes=30)
    replay_texts("[EVENT:info:caddy] fine")
    claudeops_clock.advance(minutes=15)
    replay_texts("[EVENT:info:caddy] fine")
    [digest] = [row for row in list_notifications() if row.kind == "digest"]
    assert digest.outcome == "failed"
