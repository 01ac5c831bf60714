"""No secret anywhere, live: the real bundled Claude Code CLI against the fake Messages API.

A tier-1 session reads a file holding all nine secrets, copies each into a memory marker and an
event, escalates, and quotes them in its final report; tier 2 records a restart with them. Then
the next scheduled run starts. The model saw the secrets (the tool printed them); what claudeops
keeps and passes on must not: nothing in any file of the state dir (the database, the
transcripts, and the CLI's own state, which would otherwise hold a copy of every conversation),
nothing on stdout, and nothing in any request a later session sends — the escalated tier's and
the next run's system prompts among them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fake_api import bash, text
from secrets_helpers import SECRETS, leaked, leaks_in_files

from claudeops.app import App
from claudeops.redaction import REDACTED

pytestmark = pytest.mark.e2e


def tier1_reply() -> str:
    lines = [f"[MEMORY:behavior:vault{index}] the app reads {secret.text}" for index, secret in enumerate(SECRETS)]
    lines += [f"[EVENT:warning:vault{index}] exposed: {secret.text}" for index, secret in enumerate(SECRETS)]
    lines.append("[ESCALATE] credentials sit in plain text in the vault config; rotate them")
    lines.append("Report: " + "; ".join(secret.text for secret in SECRETS))
    return "\n".join(lines)


def test_a_live_escalation_keeps_no_secret_and_no_later_request_carries_one(
        secrets_app: App, fake_api: Any, invoke_cli: Callable[..., Any], tmp_path: Path):
    config = tmp_path / "vault.env"
    config.write_text("\n".join(secret.text for secret in SECRETS) + "\n")
    fake_api.script(bash(f"cat {config}", before="Checking the vault config."), text(tier1_reply()),
                    text("[COOLDOWN:restart:vault] success — restarted; " + SECRETS[5].text))
    first = invoke_cli("run", "--json")
    fake_api.script(text("All healthy."))
    second = invoke_cli("run", "--json")

    assert (first.exit_code, second.exit_code) == (0, 0), first.output + second.output
    tier1, tier2 = json.loads(first.stdout)["sessions"]
    assert (tier1["status"], tier2["status"], tier1["markers_recorded"]) == ("escalated", "completed", 19)
    [tool_result] = fake_api.tool_results()
    assert leaked(json.dumps(tool_result)) == [secret.kind for secret in SECRETS]  # the model did see them

    assert leaked(first.stdout) == [] and leaked(second.stdout) == []
    assert leaks_in_files(secrets_app.state_dir) == {}
    later_requests = fake_api.messages()[2:]  # tier 2's, then the next run's
    assert len(later_requests) == 2
    assert [leaked(json.dumps(body)) for body in later_requests] == [[], []]
    tier2_prompt, next_prompt = fake_api.system_text(2), fake_api.system_text(3)
    assert "## Escalation from tier 1" in tier2_prompt and "## Operational Memory (9 memories" in tier2_prompt
    assert "## Operational Memory (9 memories" in next_prompt and next_prompt.count(REDACTED) >= 9
