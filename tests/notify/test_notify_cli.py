"""``claudeops notify test`` and ``claudeops notifications list``; the ``/notifications`` page and API."""

from __future__ import annotations

import json

import pytest
from litestar.testing import TestClient
from notify_helpers import ALERTS

from claudeops import ConfigError
from claudeops.exit_codes import EXIT_FAILED, EXIT_USAGE


def test_notify_test_sends_to_every_url_and_prints_each_result(make_claudeops_app, invoke_cli, http_receiver):
    good, bad = http_receiver.apprise_url("/good"), http_receiver.apprise_url("/bad")
    make_claudeops_app({"CLAUDEOPS_NOTIFY_URLS": f"{good},outage={bad}", "CLAUDEOPS_NOTIFY_RETRIES": "0"})
    http_receiver.fail("/bad", 500)
    result = invoke_cli("notify", "test")
    lines = result.stdout.splitlines()
    assert lines[0] == "#1 json: sent"
    assert lines[1].startswith("#2 json: failed after 1 attempt: ")
    assert result.exit_code == EXIT_FAILED
    [message] = http_receiver.json_bodies("/good")
    assert message["title"] == "claudeops test notification"
    assert http_receiver.base_url.split("//")[1] not in result.output
    assert "not delivered: #2 json: failed after 1 attempt" in result.stderr  # the warning cron would mail


def test_notify_test_exits_0_when_every_url_got_it(invoke_cli, alerts):
    result = invoke_cli("notify", "test")
    assert (result.exit_code, result.output) == (0, "#1 json: sent\n")
    assert len(alerts()) == 1


def test_notify_test_without_urls_is_a_usage_error(make_claudeops_app, invoke_cli):
    make_claudeops_app({"CLAUDEOPS_NOTIFY_URLS": ""})
    result = invoke_cli("notify", "test")
    assert result.exit_code == EXIT_USAGE
    assert "no notification URLs: set notify.urls" in result.output


def test_an_entry_that_is_not_a_url_is_named_by_position_not_shown(make_claudeops_app):
    with pytest.raises(ConfigError) as refused:
        make_claudeops_app({"CLAUDEOPS_NOTIFY_URLS": "json://127.0.0.1:9/x,pager=not-a-url-SECRET"})
    assert str(refused.value) == ("env CLAUDEOPS_NOTIFY_URLS: notify.urls entry 2 is not an Apprise URL (expected "
                                  "scheme://… or tags=scheme://…)")


def test_tags_split_at_commas_in_the_environment_belong_to_the_next_url(make_claudeops_app, invoke_cli,
                                                                       http_receiver):
    make_claudeops_app({"CLAUDEOPS_NOTIFY_URLS": f"outage,test={http_receiver.apprise_url('/a')}"})
    assert invoke_cli("notify", "test").stdout == "#1 json: sent\n"
    with pytest.raises(ConfigError, match="unknown tag 'pager'"):
        make_claudeops_app({"CLAUDEOPS_NOTIFY_URLS": f"pager={http_receiver.apprise_url('/a')}"})


def test_urls_can_come_from_a_file_with_tags_and_comments(make_claudeops_app, invoke_cli, http_receiver, tmp_path):
    urls = tmp_path / "apprise.txt"
    urls.write_text(f"# the operator's phone\noutage,digest = {http_receiver.apprise_url('/phone')}\n\n"
                    f"{http_receiver.apprise_url('/mail')}\n")
    make_claudeops_app({"CLAUDEOPS_NOTIFY_URLS": "", "CLAUDEOPS_NOTIFY_URLS_FILE": str(urls)})
    result = invoke_cli("notify", "test")
    assert result.output == "#1 json: sent\n#2 json: sent\n"


def test_notifications_list_shows_outcomes_and_reasons(replay_texts, invoke_cli, claudeops_clock):
    replay_texts("[EVENT:critical:jellyfin] down")
    claudeops_clock.advance(minutes=15)
    replay_texts("[EVENT:critical:jellyfin] down")
    lines = invoke_cli("notifications", "list").output.splitlines()
    assert lines[0].startswith("2026-01-01T12:15:00Z  suppressed  outage    jellyfin          jellyfin is down  "
                               "(duplicate: jellyfin has been down since")
    assert lines[1] == "2026-01-01T12:00:00Z  sent        outage    jellyfin          jellyfin is down"
    rows = json.loads(invoke_cli("notifications", "list", "--outcome", "sent", "--json").output)
    assert [(row["outcome"], row["service"], row["attempts"]) for row in rows] == [("sent", "jellyfin", 1)]
    assert invoke_cli("notifications", "list", "--kind", "digest").output == "No notifications match.\n"


def test_the_notifications_page_and_api_list_them(make_claudeops_app, replay_texts, http_receiver):
    from claudeops_web import create_app

    http_receiver.fail(ALERTS, 500, 500, 500)
    app = make_claudeops_app({"CLAUDEOPS_NOTIFY_RETRIES": "0"})
    replay_texts("[EVENT:critical:jellyfin] down\n[EVENT:warning:nextcloud] slow")
    with TestClient(app=create_app(app), base_url="http://127.0.0.1:8080") as client:
        page = client.get("/notifications?outcome=failed").text
        assert "jellyfin is down" in page and "nextcloud is degraded" in page and "Notifications</a>" in page
        body = client.get("/api/v1/notifications", params={"kind": "outage"}).json()
        assert body["total"] == 2 and {item["outcome"] for item in body["items"]} == {"failed"}
        assert client.get("/api/v1/notifications", params={"outcome": "lost"}).status_code == 400
        assert "Notifications" in client.get("/").text  # the overview card
