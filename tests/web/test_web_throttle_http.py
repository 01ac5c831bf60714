"""Guessing the token is limited on every path, over real HTTP (audit of issue 12/4).

Before: uvicorn trusted ``X-Forwarded-For`` from 127.0.0.1, so a local client reset its count of
failed logins with a new header each time; and wrong ``Authorization: Bearer`` tokens on the API
(and wrong ``web.alert_token``s on the alerts webhook) were not counted at all. One throttle now
counts every failed token check of a client, by its socket address.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from web_helpers import TOKEN, running_dashboard

ALERT_TOKEN = "alert-token-for-throttle-tests-0123"
ALERT = {"name": "disk full", "service": "nas", "severity": "critical"}


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One real dashboard (uvicorn) for the module; the throttle counts per source address, so each
    test speaks from its own 127.0.0.x (all reach the loopback listener) and starts with a clean count."""
    state_dir: Path = tmp_path_factory.mktemp("throttle")
    with running_dashboard(state_dir, {"CLAUDEOPS_WEB_TOKEN": TOKEN, "CLAUDEOPS_WEB_ALERT_TOKEN": ALERT_TOKEN}) as url:
        yield url


def client_from(address: str, base_url: str) -> httpx.Client:
    return httpx.Client(base_url=base_url, transport=httpx.HTTPTransport(local_address=address), timeout=10)


def log_in(client: httpx.Client, token: str, headers: dict[str, str] | None = None) -> httpx.Response:
    page = client.get("/login")
    csrf = page.text.split('name="_csrf_token" value="', 1)[1].split('"', 1)[0]
    return client.post("/login", data={"token": token, "next": "/", "_csrf_token": csrf}, headers=headers)


def test_a_new_x_forwarded_for_does_not_reset_the_login_limit(base_url: str) -> None:
    """From 127.0.0.1, the address uvicorn trusted proxy headers from by default."""
    with client_from("127.0.0.1", base_url) as client:
        assert [log_in(client, f"guess-{i}").status_code for i in range(5)] == [401] * 5
        answers = [log_in(client, f"guess-{i}", {"X-Forwarded-For": f"10.0.0.{i}"}).status_code for i in range(3)]
    assert answers == [429, 429, 429]


@pytest.mark.parametrize("path", ["/api/v1/memories", "/api/v1/sessions"])
def test_wrong_bearer_tokens_on_the_api_are_limited_like_logins(base_url: str, path: str) -> None:
    address = "127.0.0.3" if path.endswith("memories") else "127.0.0.4"
    with client_from(address, base_url) as client:
        answers = [client.get(path, headers={"Authorization": f"Bearer guess-{i}"}) for i in range(8)]
        assert [answer.status_code for answer in answers] == [401] * 5 + [429] * 3
        assert 1 <= int(answers[-1].headers["Retry-After"]) <= 60
        # while throttled even the right token is not checked, so guessing on learns nothing
        assert client.get(path, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 429
    with client_from("127.0.0.5", base_url) as other:  # another client is not affected
        assert other.get(path, headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_wrong_alert_tokens_on_the_webhook_are_limited(base_url: str) -> None:
    with client_from("127.0.0.6", base_url) as client:
        answers = [client.post("/api/v1/alerts", json=ALERT, headers={"Authorization": f"Bearer guess-{i}"})
                   for i in range(7)]
    assert [answer.status_code for answer in answers] == [401] * 5 + [429] * 2


def test_logins_and_bearer_guesses_share_one_count(base_url: str) -> None:
    with client_from("127.0.0.7", base_url) as client:
        assert [log_in(client, f"guess-{i}").status_code for i in range(3)] == [401] * 3
        assert [client.get("/api/v1/memories", headers={"Authorization": f"Bearer guess-{i}"}).status_code
                for i in range(2)] == [401] * 2
        assert log_in(client, TOKEN).status_code == 429


def test_the_right_token_is_never_counted(base_url: str) -> None:
    with client_from("127.0.0.8", base_url) as client:
        answers = [client.get("/api/v1/memories", headers={"Authorization": f"Bearer {TOKEN}"}) for _ in range(8)]
    assert [answer.status_code for answer in answers] == [200] * 8


def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_count(tmp_path: Path) -> None:
    """``web.trust_proxy_headers``: the proxy on 127.0.0.1 names the client, so one client's guesses do
    not lock out the others behind the same proxy."""
    env = {"CLAUDEOPS_WEB_TOKEN": TOKEN, "CLAUDEOPS_WEB_TRUST_PROXY_HEADERS": "true"}
    with running_dashboard(tmp_path, env) as url, client_from("127.0.0.1", url) as proxy:
        guesser = {"X-Forwarded-For": "203.0.113.7"}
        assert [log_in(proxy, f"guess-{i}", guesser).status_code for i in range(6)] == [401] * 5 + [429]
        assert log_in(proxy, TOKEN, {"X-Forwarded-For": "203.0.113.8"}).status_code == 303
