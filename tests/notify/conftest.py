"""Fixtures of the notify plugin's tests: every built-in plugin, notifications going to a real HTTP
receiver on 127.0.0.1 through Apprise's ``json://`` scheme, and sessions replayed on a fake clock."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest
from http_receiver import HTTPReceiver
from notify_helpers import ALERTS, PUBLIC_URL

from claudeops import FakeClock
from claudeops.runner.chain import RunRequest, run_chain
from claudeops.runner.script import ScriptTransport
from claudeops.testing import AppFactory


@pytest.fixture
def claudeops_environ(http_receiver: HTTPReceiver) -> Mapping[str, str]:
    """Every notification to the receiver; short timeouts so a failing test fails fast."""
    return {"CLAUDEOPS_NOTIFY_URLS": http_receiver.apprise_url(ALERTS), "CLAUDEOPS_WEB_PUBLIC_URL": PUBLIC_URL,
            "CLAUDEOPS_NOTIFY_TIMEOUT_SECONDS": "2", "CLAUDEOPS_NOTIFY_MAX_SECONDS": "10"}


@pytest.fixture
def alerts(http_receiver: HTTPReceiver) -> Callable[[], list[dict[str, Any]]]:
    """The JSON bodies (title, message, type) the receiver got on the alerts path, in order."""
    return lambda: http_receiver.json_bodies(ALERTS)


@pytest.fixture
def replay_texts(request: pytest.FixtureRequest, make_claudeops_app: AppFactory,
                 claudeops_clock: FakeClock) -> Callable[..., list[Any]]:
    """``replay_texts("[EVENT:critical:jellyfin] down", tier=1)``: one scripted session (and its
    escalations: one script per tier, each a text, a list of steps or a ``ScriptTransport``) through
    the whole runner on the fake clock, in the test's app (the last one ``make_claudeops_app``
    built); the reports."""
    def run(*scripts: str | list[Any] | ScriptTransport, tier: int = 1, **fields: Any) -> list[Any]:
        app = make_claudeops_app.built[-1] if make_claudeops_app.built else request.getfixturevalue("claudeops_app")
        queue = [script if isinstance(script, ScriptTransport)
                 else ScriptTransport(script if isinstance(script, list) else [script], seed=str(number))
                 for number, script in enumerate(scripts)]
        run_request = RunRequest(tier=tier, clock=claudeops_clock, trigger="replay",
                                 transport_factory=lambda _tier: queue.pop(0), **fields)
        return run_chain(app, run_request)

    return run
