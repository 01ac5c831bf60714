"""Fixtures of the budget plugin's tests: a tiny daily cap that one session against the fake Messages
API (which reports a real, small cost) crosses, and notifications to the receiver on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from http_receiver import HTTPReceiver

TINY_CAP = "0.00001"
"""Below what one fake-API session costs (42 input and 17 output tokens of haiku: about $0.0001)."""


@pytest.fixture
def claudeops_environ(http_receiver: HTTPReceiver) -> Mapping[str, str]:
    return {"CLAUDEOPS_BUDGET_DAILY_USD": TINY_CAP, "CLAUDEOPS_NOTIFY_URLS": http_receiver.apprise_url("/alerts")}
