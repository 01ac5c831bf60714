"""No secret anywhere, through the real runner: a replayed escalation whose model copies one of the
nine secrets into every marker (memory, event, a third party's ticket, escalate, and at tier 2 a
cooldown), into a tool's output and into its final report, run as ``claudeops run --replay …
--json --log-level debug``.

Nothing of it may be in the raw bytes of any file of the state dir (the database and its WAL,
the transcripts, the CLI's own state), in stdout, in the logs, in the escalated tier's system
prompt, in the next session's memory section, or on any page or API answer of the dashboard.
Each marker that held a secret is reported once, as a warning event naming its kind.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from claudeops_events.repository import list_events
from litestar.testing import TestClient
from secrets_helpers import IDS, SECRETS, PromptRecorder, Secret, leaked, leaks_in_files

from claudeops.app import App
from claudeops.redaction import REDACTED
from claudeops.runner.script import bash, script_to_stream

MARKER_WARNING = "secret redacted from a [{}] marker before it was handled: "


def write_recordings(folder: Path, secret: Secret) -> tuple[str, str]:
    """Tier 1 reads a config file, records everything it saw and escalates; tier 2 restarts."""
    tier1 = script_to_stream([
        bash("cat /etc/vault/app.env", f"APP_MODE=prod\n{secret.text}\n"),
        f"[MEMORY:behavior:vault] the app reads {secret.text}\n"
        f"[EVENT:warning:vault] the config exposes {secret.text}\n"
        f"[TICKET:vault] rotate the credential: {secret.text}\n"
        f"[ESCALATE] a credential sits in plain text: {secret.text}",
        f"Report: the vault config holds {secret.text}; escalated.",
    ], model="claude-haiku-4-5", seed=f"tier1-{secret.kind}")
    tier2 = script_to_stream([
        bash("docker restart vault", "vault"),
        f"[COOLDOWN:restart:vault] success — restarted after seeing {secret.text}",
        f"Restarted vault; {secret.text} still has to be rotated.",
    ], model="claude-sonnet-4-5", seed=f"tier2-{secret.kind}")
    paths = []
    for name, frames in (("tier1.jsonl", tier1), ("tier2.jsonl", tier2)):
        path = folder / name
        path.write_text("".join(json.dumps(frame) + "\n" for frame in frames))
        paths.append(str(path))
    return paths[0], paths[1]


def run_replayed(invoke_cli: Callable[..., Any], folder: Path, secret: Secret) -> Any:
    """Both recordings through ``claudeops run``; the CLI's result."""
    tier1, tier2 = write_recordings(folder, secret)
    result = invoke_cli("run", "--replay", tier1, "--replay", tier2, "--json", "--log-level", "debug")
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.parametrize("secret", SECRETS, ids=IDS)
def test_a_secret_in_every_marker_is_nowhere_and_warned_about_once_per_marker(
        secret: Secret, secrets_app: App, prompts: PromptRecorder, invoke_cli, tmp_path: Path):
    result = run_replayed(invoke_cli, tmp_path, secret)

    summary = json.loads(result.stdout)
    tier1, tier2 = summary["sessions"]
    assert (tier1["status"], tier2["status"], tier1["markers_recorded"], tier2["markers_recorded"]) == (
        "escalated", "completed", 4, 1)
    assert leaked(result.stdout) == [] and REDACTED in tier1["result_text"]
    assert leaked(result.stderr) == [] and "memory #1 created" in result.stderr  # the debug log said it, redacted
    assert leaks_in_files(secrets_app.state_dir) == {}

    handoff = prompts.appended[tier2["session_id"]]
    assert "## Escalation from tier 1" in handoff and REDACTED in handoff and leaked(handoff) == []
    next_session = invoke_cli("memories", "context")
    assert "- [behavior] the app reads" in next_session.output and leaked(next_session.output) == []

    # one warning per marker, and none more: the tool output, the final report, the events the markers
    # caused and the handoff held the same secret, already reported
    warnings = [event.message for event in list_events(level="warning") if "secret redacted" in event.message]
    assert len(warnings) == 5
    for name in ("MEMORY", "EVENT", "TICKET", "ESCALATE", "COOLDOWN"):
        [warning] = [message for message in warnings if message.startswith(MARKER_WARNING.format(name))]
        assert "(the value was not kept)" in warning and leaked(warning) == []

    assert dashboard_leaks(secrets_app) == {}


def dashboard_leaks(app: App) -> dict[str, list[str]]:
    """Every page and API answer about what the run stored, with the secrets each shows (none, we hope)."""
    from claudeops_web import create_app

    paths = ["/", "/sessions", "/sessions/1", "/sessions/1/transcript", "/sessions/2", "/sessions/2/transcript",
             "/events", "/memories", "/cooldowns", "/api/v1/sessions", "/api/v1/sessions/1", "/api/v1/events",
             "/api/v1/memories", "/api/v1/cooldowns"]
    found = {}
    with TestClient(app=create_app(app), base_url="http://127.0.0.1:8080") as client:
        for path in paths:
            response = client.get(path)
            assert response.status_code == 200, path
            if kinds := leaked(response.text):
                found[path] = kinds
        assert REDACTED in client.get("/sessions/1/transcript").text
    return found


def test_a_transcript_an_older_version_wrote_is_shown_redacted(secrets_app: App, tmp_path: Path):
    """Written before every kind was redacted (or copied in from elsewhere): the page redacts what it reads."""
    from claudeops_web import create_app

    from claudeops.session_rows import start_session_row, update_session_row
    from claudeops.store import db

    transcript = tmp_path / "old.jsonl"
    frames = script_to_stream([bash("env", "\n".join(secret.text for secret in SECRETS)),
                               "Found: " + "; ".join(secret.text for secret in SECRETS)], model="claude-haiku-4-5")
    transcript.write_text("".join(json.dumps(frame) + "\n" for frame in frames))
    row = start_session_row(1, "haiku", "scheduled", None, "2026-01-01T00:00:00Z")
    with db.atomic():
        update_session_row(row.id, status="completed", transcript_path=str(transcript))
    with TestClient(app=create_app(secrets_app), base_url="http://127.0.0.1:8080") as client:
        for path in (f"/sessions/{row.id}", f"/sessions/{row.id}/transcript"):
            page = client.get(path)
            assert page.status_code == 200 and "Found: " in page.text and leaked(page.text) == []
