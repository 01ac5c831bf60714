"""Fixtures of the metrics plugin's tests: every built-in plugin, a series of replayed example sessions,
and a test client of the dashboard that serves ``/metrics`` and ``/api/v1/status``."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from http_receiver import HTTPReceiver
from litestar.testing import TestClient

from claudeops import App, FakeClock
from claudeops.runner.chain import RunRequest, run_chain
from claudeops.runner.script import ScriptTransport

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sessions"


@pytest.fixture
def claudeops_environ(http_receiver: HTTPReceiver) -> Mapping[str, str]:
    return {"CLAUDEOPS_NOTIFY_URLS": http_receiver.apprise_url("/alerts"), "CLAUDEOPS_NOTIFY_RETRIES": "0"}


@pytest.fixture
def replayed_series(claudeops_app: App, claudeops_clock: FakeClock, http_receiver: HTTPReceiver) -> App:
    """A morning of replays: a healthy check, nextcloud down and restarted three times (the third restart is
    refused by its cooldown), marker-like text in tool output, a failed session, one notification that fails."""
    run = lambda *files, **fields: run_chain(claudeops_app, RunRequest.replaying(  # noqa: E731
        [EXAMPLES / name for name in files], clock=claudeops_clock, **fields))
    run("healthy-tier1.jsonl")
    for _ in range(3):
        claudeops_clock.advance(minutes=30)
        run("escalate-tier1.jsonl", "escalated-tier2.jsonl")
    claudeops_clock.advance(minutes=30)
    run("marker-in-tool-output-tier1.jsonl")
    http_receiver.fail("/alerts", 500)
    failing = ScriptTransport(["oops"], is_error=True, subtype="error_during_execution", errors=["API down"])
    run_chain(claudeops_app, RunRequest(tier=1, clock=claudeops_clock, transport_factory=lambda _tier: failing))
    return claudeops_app


@pytest.fixture
def dashboard() -> Iterator[Callable[[App], TestClient]]:
    from claudeops_web import create_app

    clients: list[TestClient] = []

    def make(app: App) -> TestClient:
        client = TestClient(app=create_app(app), base_url="http://127.0.0.1:8080")
        clients.append(client.__enter__())
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)
