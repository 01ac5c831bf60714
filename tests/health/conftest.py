"""Fixtures of the health plugin's tests: a ping URL on the HTTP receiver of 127.0.0.1."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from http_receiver import HTTPReceiver

CHECK = "/ping/2f5c7a10-check"


@pytest.fixture
def ping_url(http_receiver: HTTPReceiver) -> str:
    return http_receiver.base_url + CHECK


@pytest.fixture
def claudeops_environ(ping_url: str) -> Mapping[str, str]:
    return {"CLAUDEOPS_HEALTH_PING_URL": ping_url, "CLAUDEOPS_HEALTH_TIMEOUT_SECONDS": "1"}
