"""End to end: ``claudeops run`` from the command line, the real bundled Claude Code CLI against the fake
Messages API, notifications to the receiver on 127.0.0.1 — first alert, duplicate, resolved — and the URL
in no request the model receives and on no output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_api import text

pytestmark = pytest.mark.e2e

HOOK = "/e2e-hook-51c0"


def claudeops_run(state_dir: Path, url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLAUDEOPS_STATE_DIR": str(state_dir), "CLAUDEOPS_NOTIFY_URLS": url,
           "CLAUDEOPS_NOTIFY_TIMEOUT_SECONDS": "3"}
    return subprocess.run([sys.executable, "-m", "claudeops", "run", "--tier", "1", "--no-escalate"],
                          capture_output=True, text=True, env=env, timeout=120)


def test_a_run_from_cron_notifies_once_per_outage_and_once_when_it_is_resolved(fake_api, http_receiver, tmp_path):
    url = http_receiver.apprise_url(HOOK)
    state = tmp_path / "cron-state"
    fake_api.script(text("Checked jellyfin.\n[EVENT:critical:jellyfin] HTTP 502 on 3 checks"),
                    text("[EVENT:critical:jellyfin] still HTTP 502"),
                    text("[EVENT:info:jellyfin] answers 200 again"))
    runs = [claudeops_run(state, url) for _ in range(3)]
    assert [run.returncode for run in runs] == [0, 0, 0], runs[0].stderr
    titles = [body["title"] for body in http_receiver.json_bodies(HOOK)]
    assert titles[0] == "jellyfin is down" and titles[1].startswith("jellyfin recovered after ")
    assert len(titles) == 2
    assert "**Found:** HTTP 502 on 3 checks" in http_receiver.json_bodies(HOOK)[0]["message"]
    for request in fake_api.requests:
        assert HOOK.strip("/") not in str(request["body"])
    for run in runs:
        assert url not in run.stdout + run.stderr and HOOK.strip("/") not in run.stdout + run.stderr
    listed = subprocess.run([sys.executable, "-m", "claudeops", "notifications", "list"], capture_output=True,
                            text=True, env={**os.environ, "CLAUDEOPS_STATE_DIR": str(state)}, timeout=60)
    assert [line.split()[1] for line in listed.stdout.splitlines()] == ["sent", "suppressed", "sent"]
