"""Secret settings (``secret=True``: notify URLs, the ping URL, the web and alert tokens, the
database URL) never reach what a tool can read nor what claudeops keeps (audit of issue 17, item 1).

The Claude Code CLI inherits the runner's environment, and its Bash tool inherits the CLI's: a
``cat /proc/self/environ`` at tier 1 must find no secret setting's value there. And a value that
reaches a tool's output anyway (``cat config.toml``) is redacted verbatim, with its parts (a bot
token, a topic, a ping UUID), in the transcript, the database and the run's output.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from fake_api import bash, text
from http_receiver import HTTPReceiver
from secrets_helpers import Secret, leaked, leaks_in_files

from claudeops.app import App
from claudeops.redaction import mask_secret, redact_secrets, secret_setting_parts, use_secret_settings
from claudeops.runner.script import bash as scripted_bash

BOT_TOKEN = "AAHsecretTokenQQQ"
TOPIC = "homelab-alerts-7f3k9q"
PING_UUID = "0b6f3c2e-5d1a-4e6b-9a71-abcdef123456"
WEB_TOKEN = "webtok-Abc123-xyz789-secret"
ALERT_TOKEN = "alert-token-for-audit-0123456789"
DB_PASSWORD = "Pg-S3cr3t-Pa55"
SETTING_SECRETS = (Secret("notify-bot-token", "", BOT_TOKEN), Secret("notify-topic", "", TOPIC),
                   Secret("ping-uuid", "", PING_UUID), Secret("web-token", "", WEB_TOKEN),
                   Secret("alert-token", "", ALERT_TOKEN))


def test_the_parts_of_a_secret_url_that_open_it_are_literals_and_its_names_are_not():
    assert secret_setting_parts(f"tgram://123456789:{BOT_TOKEN}/987654321") == {
        f"tgram://123456789:{BOT_TOKEN}/987654321", "123456789", BOT_TOKEN, "987654321"}
    assert secret_setting_parts(f"ntfys://ntfy.sh/{TOPIC}?priority=high") == {
        f"ntfys://ntfy.sh/{TOPIC}?priority=high", TOPIC}  # the host and a word are names
    assert secret_setting_parts(f"https://hc-ping.com/{PING_UUID}") == {f"https://hc-ping.com/{PING_UUID}", PING_UUID}
    assert secret_setting_parts(f"postgresql://claudeops:{DB_PASSWORD}@db.lan:5432/claudeops") == {
        f"postgresql://claudeops:{DB_PASSWORD}@db.lan:5432/claudeops", DB_PASSWORD}
    assert secret_setting_parts("postgresql:///claudeops?host=/run/postgresql") == {
        "postgresql:///claudeops?host=/run/postgresql"}
    assert secret_setting_parts("sqlite:////var/lib/claudeops-2/claudeops.db") == set()  # a file name
    assert secret_setting_parts(WEB_TOKEN) == {WEB_TOKEN}
    assert secret_setting_parts("short") == set()


def test_a_secret_setting_is_redacted_in_any_text_once_its_config_is_loaded(make_claudeops_app):
    use_secret_settings([])  # a process that has loaded no configuration
    text = f"topic={TOPIC} url https://hc-ping.com/{PING_UUID} and {WEB_TOKEN} and pw {DB_PASSWORD}"
    before = redact_secrets(text)
    make_claudeops_app({"CLAUDEOPS_NOTIFY_URLS": f"ntfys://ntfy.sh/{TOPIC}",
                        "CLAUDEOPS_HEALTH_PING_URL": f"http://127.0.0.1:9/{PING_UUID}",
                        "CLAUDEOPS_WEB_TOKEN": WEB_TOKEN})
    after = redact_secrets(text)
    assert TOPIC in before.text and WEB_TOKEN in before.text  # nothing else recognises them
    assert leaked(after.text, SETTING_SECRETS) == [] and "credential" in after.kinds
    assert after.text.startswith("topic=*** url https://hc-ping.com/*** and *** and pw")


@pytest.fixture
def config_file(tmp_path: Path, http_receiver: HTTPReceiver) -> Path:
    """What an agent may ``cat``: the config with every secret setting (the Telegram URL receives only
    ``claudeops notify test``, the others are the local receiver)."""
    path = tmp_path / "config.toml"
    path.write_text(f'[notify]\nurls = ["{http_receiver.apprise_url("/" + TOPIC)}", '
                    f'"test=tgram://123456789:{BOT_TOKEN}/987654321"]\n'
                    f'[health]\nping_url = "{http_receiver.base_url}/{PING_UUID}"\n'
                    f'[web]\ntoken = "{WEB_TOKEN}"\nalert_token = "{ALERT_TOKEN}"\n')
    return path


@pytest.fixture
def claudeops_environ(config_file: Path) -> Mapping[str, str]:
    return {"CLAUDEOPS_CONFIG": str(config_file)}


def test_a_config_file_a_tool_printed_leaves_no_secret_setting_in_anything_kept(
        secrets_app: App, config_file: Path, run_scripted_session: Callable[..., Any], http_receiver: HTTPReceiver):
    printed = config_file.read_text()
    outcome = run_scripted_session([
        scripted_bash(f"cat {config_file}", printed),
        f"[EVENT:warning:ntfy] topic {TOPIC} is public\n[MEMORY:behavior:health] pings https://hc-ping.com/{PING_UUID}\n"
        f"The dashboard token is {WEB_TOKEN}; alerts use {ALERT_TOKEN}; the bot is {BOT_TOKEN}."])
    assert outcome.status == "completed"
    assert leaks_in_files(secrets_app.state_dir, SETTING_SECRETS) == {}
    assert leaked(repr(outcome), SETTING_SECRETS) == []
    assert http_receiver.wait_for(1, f"/{TOPIC}")  # the event notified, without the secrets it quoted
    assert leaked(json.dumps(http_receiver.json_bodies()), SETTING_SECRETS) == []


@pytest.mark.e2e
def test_the_cli_and_its_tools_see_no_secret_setting_in_their_environment(
        secrets_app: App, fake_api: Any, invoke_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch):
    for name, value in {"CLAUDEOPS_NOTIFY_URLS": f"tgram://123456789:{BOT_TOKEN}/987654321,ntfy://{TOPIC}",
                        "CLAUDEOPS_HEALTH_PING_URL": f"https://hc-ping.com/{PING_UUID}",
                        "CLAUDEOPS_WEB_TOKEN": WEB_TOKEN, "CLAUDEOPS_WEB_ALERT_TOKEN": ALERT_TOKEN,
                        "CLAUDEOPS_DATABASE_URL": f"postgresql://claudeops:{DB_PASSWORD}@db.lan/claudeops",
                        "CLAUDEOPS_VAULT_TOKEN": "vault-Tok3n-of-a-disabled-plugin",
                        "CLAUDEOPS_TIER1_MAX_TURNS": "7"}.items():
        monkeypatch.setenv(name, value)  # the runner's own environment, which the SDK hands to the CLI
    fake_api.script(bash("cat /proc/self/environ"), text("Environment read."))
    result = invoke_cli("run", "--tier", "1", "--json")

    assert result.exit_code == 0, result.output
    [tool_result] = fake_api.tool_results()
    environment = json.dumps(tool_result)
    assert "CLAUDEOPS_TIER1_MAX_TURNS=7" in environment  # the tool did print the environment
    hidden = (*SETTING_SECRETS, Secret("database-password", "", DB_PASSWORD),
              Secret("unknown-variable", "", "vault-Tok3n-of-a-disabled-plugin"))
    assert leaked(environment, hidden) == []
    assert "CLAUDEOPS_WEB_TOKEN=" in environment  # named, but empty


def test_a_secret_value_is_shown_as_its_scheme_and_host_name_at_most():
    assert mask_secret(f"https://hc-ping.com/{PING_UUID}") == "https://hc-ping.com/..."
    assert mask_secret(f"https://kuma.lan:3001/api/push/{PING_UUID}?status=up") == "https://kuma.lan/..."
    assert mask_secret(f"tgram://123456789:{BOT_TOKEN}/987654321") == "tgram://..."  # the host is the token
    assert mask_secret(f"ntfy://{TOPIC}") == "ntfy://..." and mask_secret("ntfy://alerts") == "ntfy://..."
    assert mask_secret(f"event,outage=ntfys://admin:pw@ntfy.sh/{TOPIC}") == "event,outage=ntfys://ntfy.sh/..."
    assert mask_secret(f"postgresql://claudeops:{DB_PASSWORD}@db.lan:5432/claudeops") == "postgresql://db.lan/..."
    assert mask_secret(WEB_TOKEN) == "***" and mask_secret("") == ""


def test_config_show_masks_every_secret_setting(secrets_app: App, invoke_cli: Callable[..., Any],
                                                http_receiver: HTTPReceiver):
    shown = invoke_cli("config", "show").output
    as_json = json.loads(invoke_cli("config", "show", "--json").output)
    assert leaked(shown, SETTING_SECRETS) == [] and leaked(json.dumps(as_json), SETTING_SECRETS) == []
    assert 'health.ping_url = "http://127.0.0.1/..."' in shown
    assert as_json["notify.urls"]["value"] == ["json://127.0.0.1/...", "test=tgram://..."]
    assert (as_json["web.token"]["value"], as_json["web.alert_token"]["value"]) == ("***", "***")
    assert http_receiver.base_url.removeprefix("http://") not in shown  # no port either


def test_the_urls_of_notify_urls_file_are_redacted_like_the_setting(make_claudeops_app, tmp_path):
    token = "FileTok3nOfThePhoneQ"
    urls_file = tmp_path / "notify-urls"
    urls_file.write_text(f"# phone\ntest=tgram://555666777:{token}/42\n")
    make_claudeops_app({"CLAUDEOPS_NOTIFY_URLS_FILE": str(urls_file)})
    redaction = redact_secrets(f"cat showed tgram://555666777:{token}/42 and {token} alone")
    assert redaction.text == "cat showed *** and *** alone" and "credential" in redaction.kinds


def test_a_log_line_quoting_a_secret_setting_is_redacted(secrets_app: App, capsys: pytest.CaptureFixture[str]):
    import logging

    from claudeops.logs import configure_logging, report_problem

    configure_logging("info", "text")
    try:
        logging.getLogger("claudeops.test").warning("the switch at https://hc-ping.com/%s did not answer", PING_UUID)
        report_problem(f"dashboard token {WEB_TOKEN} refused")
    finally:
        configure_logging()
    stderr = capsys.readouterr().err
    assert "did not answer" in stderr and "refused" in stderr
    assert leaked(stderr, SETTING_SECRETS) == []


def test_a_claudeops_variable_that_names_no_setting_is_hidden_from_the_cli_too(make_claudeops_app):
    """Deny by default: a disabled plugin's token or a misspelt name may hold a secret; only the settings
    known not to be secret, and CLAUDEOPS_CONFIG, reach the CLI and its tools."""
    from claudeops.runner.options import hidden_variables

    app = make_claudeops_app()
    environ = {"CLAUDEOPS_TICKETS_API_TOKEN": "s3cret-of-a-disabled-plugin", "CLAUDEOPS_WEB_TOKN": "typo-s3cret",
               "CLAUDEOPS_WEB_TOKEN": "s3cret", "CLAUDEOPS_CONFIG": "/etc/claudeops.toml",
               "CLAUDEOPS_TIER1_MODEL": "haiku", "PATH": "/usr/bin"}

    assert hidden_variables(app.config, environ) == {
        "CLAUDEOPS_TICKETS_API_TOKEN": "", "CLAUDEOPS_WEB_TOKN": "", "CLAUDEOPS_WEB_TOKEN": ""}
