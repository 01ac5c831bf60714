"""End to end: a restart of a service at its limit, asked for by the model through the real SDK and
the real bundled Claude Code CLI (against the fake Messages API), is refused by the cooldowns
plugin, and the refusal is what the model reads as the tool result."""

from __future__ import annotations

import pytest
from claudeops_events.repository import list_events
from fake_api import bash, text

from claudeops.runner.chain import RunRequest, run_chain

pytestmark = pytest.mark.e2e


def test_a_restart_at_the_limit_is_denied_and_the_denial_reaches_the_model(app, fake_api, make_session, feed_text,
                                                                           clock):
    earlier = make_session(tier=2, clock=clock)
    feed_text(earlier, "[COOLDOWN:restart:jellyfin] failure — still 502")
    clock.advance(hours=1)
    feed_text(earlier, "[COOLDOWN:restart:jellyfin] success — healthy for a while")
    clock.advance(hours=1)  # 14:00: two restarts in 4 h, in cooldown until 16:00
    fake_api.script(bash("docker restart jellyfin", before="jellyfin answers 502 again."),
                    text("[EVENT:warning:jellyfin] 502 again; restart refused by the cooldown"))

    [report] = run_chain(app, RunRequest(tier=2, trigger="test", escalate=False, clock=clock))

    assert (report.status, report.tool_calls, report.tools_denied) == ("completed", 1, 1)
    assert "- jellyfin: 2/2 restarts in the last 4 h, IN COOLDOWN until 2025-06-01T16:00:00Z" in (
        fake_api.system_text(0))
    assert len(fake_api.messages()) == 2  # the tool result went back to the model in a second request
    [result] = fake_api.tool_results()
    assert result["is_error"] is True
    content = str(result["content"])
    assert "Refused by claudeops cooldowns: `docker restart jellyfin` would restart jellyfin" in content
    assert "(limit 2 per 4 h); the next restart of jellyfin is allowed from 2025-06-01T16:00:00Z" in content
    assert [(event.level, event.service, event.session_id, event.message) for event in list_events()] == [
        ("warning", "jellyfin", report.session_id, "502 again; restart refused by the cooldown"),
        ("warning", "jellyfin", report.session_id, "cooldown blocked restart of jellyfin (2/2 in 4 h, allowed again "
                                                   "from 2025-06-01T16:00:00Z): docker restart jellyfin"),
    ]
