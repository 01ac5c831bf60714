"""A bearer token that is not ASCII is a wrong token, answered 401 like any other (audit of issue 16,
item 4): it was a 500 with a traceback, because ``hmac.compare_digest`` refuses non-ASCII text.

Sent as raw bytes through a real HTTP request to ``claudeops web`` in its own process, as a
misconfigured sender would: the test client would encode the header itself.
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path

import pytest
from web_helpers import running_dashboard

ALERT_TOKEN = "alert-token-for-tests-0123456789"


@pytest.mark.parametrize("authorization", [b"Bearer caf\xc3\xa9", b"Bearer \xff\xfe", "Bearer alert-tökén".encode(),
                                           b"Bearer " + ALERT_TOKEN.encode() + b"\xc3\xa9"])
def test_a_bearer_token_that_is_not_ascii_is_refused_with_401(tmp_path: Path, authorization: bytes):
    state_dir = tmp_path / "state"
    state_dir.mkdir()
    with running_dashboard(state_dir, {"CLAUDEOPS_WEB_ALERT_TOKEN": ALERT_TOKEN}) as url:
        host, port = url.removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        body = json.dumps({"title": "disk full", "status": "firing"}).encode()
        connection.putrequest("POST", "/api/v1/alerts")
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Content-Length", str(len(body)))
        connection.putheader("Authorization", authorization)
        connection.endheaders(body)
        response = connection.getresponse()
        answer = response.read().decode()
        connection.close()
    assert response.status == 401, answer
    assert "Bearer <web.alert_token>" in json.loads(answer)["detail"]
