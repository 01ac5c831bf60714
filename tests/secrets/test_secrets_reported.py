"""How a redaction is reported: a warning event naming the kinds, never the value — one per marker
that held a secret, and one per session for the rest (its transcript, final report, events, text
plugins redacted), naming only kinds no marker warning named. And what plugins and logs receive:
text already redacted."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable
from typing import Any

from claudeops_events.repository import list_events
from secrets_helpers import SECRETS, leaked

from claudeops import NotableEvent, hookimpl
from claudeops.logs import configure_logging, report_problem
from claudeops.runner.script import bash
from claudeops.session import Session

GITHUB, ANTHROPIC = SECRETS[1], SECRETS[0]


def secret_warnings() -> list[str]:
    """The warnings about redactions, oldest first."""
    return [event.message for event in reversed(list_events(level="warning"))
            if event.message.startswith("secret redacted")]


def test_a_secret_a_tool_printed_is_one_warning_for_the_session(secrets_app, run_scripted_session):
    outcome = run_scripted_session([bash("cat ~/.config/gh/hosts.yml", f"github.com:\n  {GITHUB.text}\n"),
                                    "Checked the backup job's credentials."])
    assert outcome.status == "completed"
    assert secret_warnings() == ["secret redacted from session #1's transcript: github-token (the value was not kept)"]


def test_a_marker_warning_and_the_sessions_warning_never_name_a_kind_twice(secrets_app, run_scripted_session):
    run_scripted_session([bash("env", f"{ANTHROPIC.text}\n{GITHUB.text}\n"),
                          f"[EVENT:warning:vault] the environment holds {ANTHROPIC.text}",
                          f"Report: {ANTHROPIC.text} and {GITHUB.text} are in the environment."])
    assert secret_warnings() == [
        "secret redacted from a [EVENT] marker before it was handled: anthropic-key (the value was not kept)",
        "secret redacted from session #1's final report, transcript: github-token (the value was not kept)"]


def test_nothing_secret_reaches_a_third_party_plugins_hooks(secrets_app, register_plugin, run_scripted_session):
    class Observer:
        def __init__(self) -> None:
            self.seen: list[str] = []

        @hookimpl
        def on_assistant_text(self, text: str) -> None:
            self.seen.append(text)

        @hookimpl
        def on_marker(self, marker: Any) -> None:
            self.seen += [marker.text, *(group or "" for group in marker.groups)]

        @hookimpl
        def record_event(self, event: NotableEvent) -> None:
            self.seen.append(event.message)

        @hookimpl
        def after_session(self, outcome: Any) -> None:
            self.seen.append(outcome.result_text or "")

    observer = Observer()
    register_plugin(observer, "observer")
    run_scripted_session([" ".join(f"[TICKET:vault] rotate {secret.text}" for secret in SECRETS)], tier=1)
    assert observer.seen and all(leaked(text) == [] for text in observer.seen)


def test_text_a_plugin_redacts_through_the_session_is_reported_when_the_session_ends(secrets_app, make_session):
    session: Session = make_session()
    assert leaked(session.redact(f"a tool printed {GITHUB.text}", "tool output")) == []
    session.report_unreported_redactions()
    assert secret_warnings() == [
        f"secret redacted from session #{session.id}'s tool output: github-token (the value was not kept)"]


def test_an_event_from_outside_a_session_is_stored_redacted_next_to_a_warning(secrets_app):
    secrets_app.hook.record_event(event=NotableEvent("info", f"operator pasted {GITHUB.text}", "2026-01-01T00:00:00Z"))
    [warning, stored] = list_events()
    assert leaked(stored.message) == [] and "ghp_***" in stored.message
    assert warning.message == (f"secret redacted from event #{stored.id} before it was stored: github-token "
                               "(the value was not kept)")


def test_no_log_line_carries_a_secret_and_a_json_line_stays_json(secrets_app, monkeypatch, capsys):
    stderr = io.StringIO()
    monkeypatch.setattr("sys.stderr", stderr)
    for fmt in ("text", "json"):
        configure_logging("info", fmt)
        log = logging.getLogger("claudeops_ticket")  # any plugin's logger: the handler is the core's
        for secret in SECRETS:
            log.warning("read %s from the config", secret.text)
        try:
            raise RuntimeError(f"failed with {SECRETS[5].text}")
        except RuntimeError:
            log.exception("the plugin crashed")
    report_problem(f"session #3 failed: {SECRETS[7].text}")
    lines = stderr.getvalue().splitlines()
    assert len(lines) > 2 * len(SECRETS) and leaked(stderr.getvalue()) == []
    assert all(json.loads(line)["level"] for line in lines if line.startswith("{"))
    configure_logging("warning", "text")


def test_the_run_summary_printed_as_json_holds_no_secret(secrets_app, invoke_cli: Callable[..., Any], tmp_path):
    from claudeops.runner.script import script_to_stream

    recording = tmp_path / "session.jsonl"
    frames = script_to_stream([f"All healthy; note {secret.text}" for secret in SECRETS], model="claude-haiku-4-5")
    recording.write_text("".join(json.dumps(frame) + "\n" for frame in frames))
    result = invoke_cli("run", "--replay", str(recording), "--json")
    assert result.exit_code == 0 and leaked(result.stdout) == [] and "***" in result.stdout
