"""The notification URLs are credentials: they never reach ``config show``, a log line, the database,
the dashboard, its API or a transcript (issue 17, item 1). Each output is read for every part of the URL."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from http_receiver import HTTPReceiver
from litestar.testing import TestClient

from claudeops.logs import configure_logging
from claudeops.session_rows import SessionRow

PASSWORD = "Xq7-pass-9Lm2"
HOOK = "/hook-7f3a9c2e"
TOPIC = "tok-4b8d1e"


@pytest.fixture
def secret_url(http_receiver: HTTPReceiver) -> str:
    host, port = http_receiver.base_url.removeprefix("http://").split(":")
    return f"json://admin:{PASSWORD}@{host}:{port}{HOOK}?topic={TOPIC}"


@pytest.fixture
def claudeops_environ(secret_url: str) -> Mapping[str, str]:
    return {"CLAUDEOPS_NOTIFY_URLS": secret_url, "CLAUDEOPS_NOTIFY_RETRIES": "1",
            "CLAUDEOPS_NOTIFY_TIMEOUT_SECONDS": "1", "CLAUDEOPS_NOTIFY_MAX_SECONDS": "3"}


def leaks(text: str | bytes, secret_url: str, *, host: bool = True) -> list[str]:
    """The parts of the URL that appear in ``text``: the whole, the password, the path, a query value, the
    host and port (Apprise's own messages name the host: "… sending JSON notification to 127.0.0.1")."""
    if isinstance(text, bytes):
        text = text.decode(errors="replace")
    host_and_port = secret_url.split("@", 1)[1].split("/", 1)[0]
    parts = (secret_url, PASSWORD, HOOK.strip("/"), TOPIC, host_and_port, *(("127.0.0.1",) if host else ()))
    return [part for part in parts if part in text]


def test_config_show_masks_the_urls(invoke_cli, secret_url):
    for args in (("config", "show"), ("config", "show", "--json")):
        result = invoke_cli(*args)
        assert result.exit_code == 0 and "notify.urls" in result.output
        assert leaks(result.output, secret_url, host=False) == []  # web.host is 127.0.0.1 too


def test_logs_at_debug_level_never_name_the_url(replay_texts, http_receiver, secret_url, capsys):
    configure_logging("debug", "text", ("claudeops_notify", "claudeops_events"))
    try:
        http_receiver.fail(HOOK, 500, 500)
        replay_texts("[EVENT:critical:jellyfin] down")
        http_receiver.hang(HOOK)
        replay_texts("[EVENT:critical:nextcloud] down")
    finally:
        configure_logging()
    stderr = capsys.readouterr().err
    assert "not delivered" in stderr  # the failures were logged ...
    assert leaks(stderr, secret_url) == []  # ... without the URL


def test_nothing_stored_holds_the_url(replay_texts, http_receiver, secret_url, claudeops_state_dir):
    http_receiver.hang(HOOK)  # Apprise's connection error names the host, which must not be stored either
    replay_texts("[EVENT:critical:jellyfin] down")
    replay_texts("[EVENT:info:jellyfin] up")
    assert len(http_receiver.requests(HOOK)) == 4
    for path in claudeops_state_dir.rglob("*"):
        if path.is_file():
            assert leaks(path.read_bytes(), secret_url) == [], path
    for row in SessionRow.select():
        assert leaks(Path(row.transcript_path).read_bytes(), secret_url) == []


def test_the_dashboard_and_its_api_never_show_the_url(make_claudeops_app, replay_texts, http_receiver, secret_url):
    from claudeops_web import create_app

    http_receiver.hang(HOOK)
    app = make_claudeops_app()
    replay_texts("[EVENT:critical:jellyfin] down")
    with TestClient(app=create_app(app), base_url="http://127.0.0.1:8080") as client:
        for path in ("/", "/notifications", "/notifications?outcome=failed", "/api/v1/notifications",
                     "/sessions/1", "/api/v1/schema/openapi.json"):
            response = client.get(path)
            assert response.status_code == 200, path
            assert leaks(response.text, secret_url) == [], path
        page = client.get("/notifications").text
        assert "jellyfin is down" in page and "#1 json: failed after 2 attempts" in page
