"""The Claude judge (``memory.judge = "claude"``), driven through the fake Messages API on 127.0.0.1.

Each test scripts what the "model" answers, lets a memory marker arrive, and checks the request
the judge sent (one per marker, every candidate in it, the tier 1 model, a forced structured
answer with the reasoning first), what the store did with the answer, and that a malformed
answer, a server error, a hang past the timeout or missing credentials leave the decision to the
offline judge with a warning. The candidate pairs are chosen so that the offline judge would
decide differently from the scripted verdicts: a test passing because the offline judge answered
would fail.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import pytest
from claudeops_memory.claude_judge import pricing
from claudeops_memory.claude_judge.request import TOOL_NAME
from claudeops_memory.models import Memory
from fake_api import FakeAPI, Reply, error, hang, text, tool_use
from memory_helpers import LoadedApp

from claudeops import db

ONE_MINUTE = "Takes 60s to start after restart"
PORT = "The web UI listens on port 8096"
SLOW_START = "Startup takes about a minute"
"""Offline: an unsure reinforcement of ONE_MINUTE (67 % shared), so it stores a new memory."""


@pytest.fixture
def claude_app(fake_api: FakeAPI, tmp_path: Path, load_memory_app: Callable[..., LoadedApp]) -> LoadedApp:
    """The memory plugin with the Claude judge on, talking to the fake API (key "test")."""
    config = tmp_path / "claude-judge.toml"
    config.write_text('[memory]\njudge = "claude"\njudge_timeout_seconds = 1.0\n')
    return load_memory_app(CLAUDEOPS_CONFIG=str(config))


def _verdicts(*entries: tuple[int, str, str]) -> Reply:
    """The model's structured answer: (memory number, relation, certainty) per entry."""
    return tool_use(TOOL_NAME, {"verdicts": [
        {"memory": number, "reasoning": f"memory {number} compared", "relation": relation, "certainty": certainty}
        for number, relation, certainty in entries]})


def _confidences() -> dict[str, float]:
    return {memory.observation: memory.confidence for memory in Memory.select()}


def test_one_request_asks_about_every_candidate_and_a_sure_verdict_decides(claude_app: LoadedApp,
                                                                         fake_api: FakeAPI) -> None:
    claude_app.remember(ONE_MINUTE, service="jellyfin", confidence=0.75)  # most trusted: memory 1 of the question
    claude_app.remember(PORT, service="jellyfin")
    fake_api.script(_verdicts((1, "reinforce", "high"), (2, "distinct", "high")))

    claude_app.emit(claude_app.session(), f"[MEMORY:timing:jellyfin] {SLOW_START}")

    [request] = fake_api.messages()
    assert request["model"] == "claude-haiku-5-5"  # the tier 1 model, "haiku", as the Messages API names it
    assert request["tool_choice"] == {"type": "tool", "name": TOOL_NAME, "disable_parallel_tool_use": True}
    properties = list(request["tools"][0]["input_schema"]["properties"]["verdicts"]["items"]["properties"])
    assert properties.index("reasoning") < properties.index("relation")
    question = request["messages"][0]["content"]
    assert ONE_MINUTE in question and PORT in question and SLOW_START in question and "jellyfin" in question
    assert '<memory number="1">Takes 60s' in question
    assert _confidences() == {ONE_MINUTE: 0.85, PORT: 0.7}  # reinforced, nothing new stored


def test_one_connection_serves_every_marker_of_a_session_and_is_closed_at_its_end(claude_app: LoadedApp,
                                                                                  fake_api: FakeAPI) -> None:
    """A TLS handshake per marker would add a round trip to every judged marker: the session keeps
    one client, and ``after_session`` closes it."""
    claude_app.remember(ONE_MINUTE, service="jellyfin")
    fake_api.script(_verdicts((1, "distinct", "high")), _verdicts((1, "distinct", "high"), (2, "distinct", "high")))
    session = claude_app.session()

    claude_app.emit(session, f"[MEMORY:timing:jellyfin] {SLOW_START}")
    claude_app.emit(session, "[MEMORY:timing:jellyfin] Needs 30 seconds more when the library is large")

    first, second = (request["client"] for request in fake_api.requests if request["path"] == "/v1/messages")
    assert first == second  # the same source port: one kept-alive connection
    [client] = [value for value in session.plugin_state.values() if isinstance(value, anthropic.Anthropic)]
    claude_app.app.hook.after_session(session=session, outcome=None)
    assert client.is_closed() and client not in session.plugin_state.values()


def test_a_sure_contradiction_weakens_the_memory_and_stores_the_new_one(claude_app: LoadedApp,
                                                                        fake_api: FakeAPI) -> None:
    claude_app.remember(ONE_MINUTE, service="jellyfin")
    fake_api.script(_verdicts((1, "contradict", "high")))
    claude_app.emit(claude_app.session(), f"[MEMORY:timing:jellyfin] {SLOW_START}")
    assert _confidences() == {ONE_MINUTE: 0.5, SLOW_START: 0.7}


def test_an_unsure_claude_verdict_is_treated_as_distinct(claude_app: LoadedApp, fake_api: FakeAPI) -> None:
    claude_app.remember(ONE_MINUTE, service="jellyfin")
    fake_api.script(_verdicts((1, "contradict", "medium")))
    claude_app.emit(claude_app.session(), f"[MEMORY:timing:jellyfin] {SLOW_START}")
    assert _confidences() == {ONE_MINUTE: 0.7, SLOW_START: 0.7}


def test_an_exact_repeat_and_an_empty_group_ask_no_model(claude_app: LoadedApp, fake_api: FakeAPI) -> None:
    session = claude_app.session()
    claude_app.emit(session, f"[MEMORY:timing:jellyfin] {ONE_MINUTE}")  # nothing to compare with
    claude_app.emit(claude_app.session(), f"[MEMORY:timing:jellyfin] {ONE_MINUTE}")  # the same words
    assert fake_api.messages() == []
    assert _confidences() == {ONE_MINUTE: 0.8}


@pytest.mark.parametrize(
    ("reply", "warning"),
    [
        (text("They look like the same fact to me."), "answer was malformed (no record_verdicts call"),
        (tool_use(TOOL_NAME, {"verdicts": "reinforce"}), "answer was malformed (record_verdicts was called without"),
        (error(500), "failed: InternalServerError"),
        (error(401), "failed: AuthenticationError"),
    ],
    ids=["prose", "no-list", "server-error", "bad-key"],
)
def test_a_bad_answer_leaves_the_decision_to_the_offline_judge_with_a_warning(
        claude_app: LoadedApp, fake_api: FakeAPI, caplog: pytest.LogCaptureFixture, reply: Reply, warning: str) -> None:
    claude_app.remember(ONE_MINUTE, service="jellyfin")
    fake_api.script(reply)
    with caplog.at_level(logging.WARNING):
        claude_app.emit(claude_app.session(), f"[MEMORY:timing:jellyfin] {SLOW_START}")
    assert len(fake_api.messages()) == 1
    assert any(warning in record.getMessage() and "the offline judge decides instead" in record.getMessage()
               for record in caplog.records), caplog.text
    assert _confidences() == {ONE_MINUTE: 0.7, SLOW_START: 0.7}  # the offline judge: unsure, so distinct


def test_a_hang_past_the_timeout_leaves_the_decision_to_the_offline_judge(
        claude_app: LoadedApp, fake_api: FakeAPI, caplog: pytest.LogCaptureFixture) -> None:
    claude_app.remember(ONE_MINUTE, service="jellyfin")
    fake_api.script(hang(30))
    started = time.monotonic()
    with caplog.at_level(logging.WARNING):
        claude_app.emit(claude_app.session(), "[MEMORY:timing:jellyfin] Restarting takes about 60 seconds")
    assert time.monotonic() - started < 5  # the 1 s timeout, not the 30 s hang
    assert "did not answer within memory.judge_timeout_seconds (1 s)" in caplog.text
    assert len(_confidences()) == 2


def test_an_answer_that_misses_a_memory_leaves_that_one_to_the_offline_judge(
        claude_app: LoadedApp, fake_api: FakeAPI, caplog: pytest.LogCaptureFixture) -> None:
    claude_app.remember(ONE_MINUTE, service="jellyfin")
    claude_app.remember("Takes 60s to start after a restart", service="jellyfin", confidence=0.5)
    fake_api.script(_verdicts((1, "distinct", "high"), (7, "reinforce", "high")))  # no memory 7
    with caplog.at_level(logging.WARNING):
        claude_app.emit(claude_app.session(), "[MEMORY:timing:jellyfin] Takes 60 seconds to start after restart")
    assert "left 1 of 2 memories without a well-formed verdict" in caplog.text
    # memory 1 is distinct (Claude); memory 2 is reinforced (offline: the same words but "a")
    assert _confidences() == {ONE_MINUTE: 0.7, "Takes 60s to start after a restart": 0.6}


def test_with_only_a_cli_login_the_claude_judge_is_unavailable_and_says_so_once(
        claude_app: LoadedApp, fake_api: FakeAPI, caplog: pytest.LogCaptureFixture,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("CLAUDE_CODE_OAUTH_TOKEN", "oauth-token")
    claude_app.remember(ONE_MINUTE, service="jellyfin")
    claude_app.remember(PORT, service="caddy")
    session = claude_app.session()
    with caplog.at_level(logging.WARNING):
        claude_app.emit(session, f"[MEMORY:timing:jellyfin] {SLOW_START}")
        claude_app.emit(session, "[MEMORY:timing:caddy] The web UI listens on port 8097")
    assert fake_api.messages() == []
    unavailable = [record for record in caplog.records if "Claude judge is unavailable" in record.getMessage()]
    assert len(unavailable) == 1 and "only a Claude Code login (CLAUDE_CODE_OAUTH_TOKEN)" in caplog.text


def test_the_judges_cost_is_part_of_the_sessions_cost(claude_app: LoadedApp, fake_api: FakeAPI,
                                                      run_scripted_session: Callable[..., Any]) -> None:
    claude_app.remember(ONE_MINUTE, service="jellyfin")
    fake_api.script(Reply(_verdicts((1, "reinforce", "high")).blocks,
                          usage={"input_tokens": 1000, "output_tokens": 200, "cache_creation_input_tokens": 0,
                                 "cache_read_input_tokens": 0}))

    outcome = run_scripted_session([f"[MEMORY:timing:jellyfin] {SLOW_START}"])

    judge_cost = (1000 * 0.1 + 200 * 0.5) / 1_000_000  # claude-haiku-5-5: $0.10 / $0.50 per million tokens
    assert outcome.cost_usd == pytest.approx(0.0042 + judge_cost)  # the scripted agent's cost plus the judge's
    [stored] = db.execute_sql("SELECT cost_usd FROM sessions").fetchall()
    assert stored[0] == pytest.approx(0.0042 + judge_cost)
    assert _confidences() == {ONE_MINUTE: 0.8}


def test_the_judge_model_setting_overrides_the_tier_1_model(fake_api: FakeAPI, tmp_path: Path,
                                                            load_memory_app: Callable[..., LoadedApp]) -> None:
    config = tmp_path / "claude-judge.toml"
    config.write_text('[memory]\njudge = "claude"\njudge_model = "claude-sonnet-4-6"\n')
    app = load_memory_app(CLAUDEOPS_CONFIG=str(config))
    app.remember(ONE_MINUTE, service="jellyfin")
    fake_api.script(_verdicts((1, "distinct", "high")))
    app.emit(app.session(), f"[MEMORY:timing:jellyfin] {SLOW_START}")
    assert fake_api.messages()[0]["model"] == "claude-sonnet-4-6"


def test_a_dated_model_is_priced_as_its_family_and_an_unknown_one_at_the_dearest_rate(
        caplog: pytest.LogCaptureFixture) -> None:
    assert pricing.price_of("claude-haiku-4-5-20251001") == pricing.PRICES["claude-haiku-4-5"]
    with caplog.at_level(logging.WARNING):
        assert pricing.price_of("claude-future-9") == pricing.DEAREST
    assert "no price known for model 'claude-future-9'" in caplog.text


@pytest.mark.parametrize(
    ("credentials", "line"),
    [
        ({"ANTHROPIC_API_KEY": "test"}, "ok   memory judge: claude (claude-haiku-5-5) through the Messages API"),
        ({"CLAUDE_CODE_OAUTH_TOKEN": "oauth-token"},
         "warn memory judge: claude (claude-haiku-5-5) is unavailable: only a Claude Code login "
         "(CLAUDE_CODE_OAUTH_TOKEN) is set"),
        ({}, "warn memory judge: claude (claude-haiku-5-5) is unavailable: no ANTHROPIC_API_KEY"),
    ],
    ids=["api-key", "cli-login-only", "nothing"],
)
def test_doctor_says_whether_the_claude_judge_can_be_asked(
        claude_app: LoadedApp, invoke_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch,
        credentials: dict[str, str], line: str) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    for name, value in credentials.items():
        monkeypatch.setenv(name, value)
    result = invoke_cli("doctor", color=False)
    assert line in result.output, result.output


def test_doctor_names_the_offline_judge_when_it_decides(memory_app: LoadedApp,
                                                        invoke_cli: Callable[..., Any]) -> None:
    assert "ok   memory judge: offline (built in, no network)" in invoke_cli("doctor", color=False).output
