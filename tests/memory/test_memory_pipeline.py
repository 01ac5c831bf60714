"""Memories through the real runner and SDK parser (scripted sessions replayed): markers come from
assistant text only, are stored as they arrive, and every later session, escalated ones included,
gets them in its system prompt; the tier prompts as loaded teach the marker (SPEC-0015 "Prompt
Integration for Memory Markers")."""

from __future__ import annotations

import re
from typing import Any

from claudeops_memory import repository
from claudeops_memory.citation import read_citation
from claudeops_memory.marker import MEMORY_PATTERN, PROMPT_SECTION
from memory_helpers import LoadedApp

from claudeops import hookimpl
from claudeops.runner.chain import RunRequest, run_chain
from claudeops.runner.options import system_prompt_append
from claudeops.runner.prompts import load_tier_prompt
from claudeops.runner.script import ScriptTransport, ToolCall, bash
from claudeops.session import Session


class PromptRecorder:
    """Keeps the system-prompt text each session was started with, as the SDK options carry it."""

    def __init__(self) -> None:
        self.appended: dict[int, str] = {}

    @hookimpl
    def on_message(self, session: Session, message: Any) -> None:
        self.appended.setdefault(session.id, system_prompt_append(session))


def run_scripted(memory_app: LoadedApp, scripts: dict[int, list[Any]], tier: int = 1, escalate: bool = False):
    request = RunRequest(tier=tier, trigger="test", escalate=escalate, clock=memory_app.clock,
                         transport_factory=lambda session_tier: ScriptTransport(scripts[session_tier]))
    return run_chain(memory_app.app, request)


def test_marker_in_tool_result_ignored(memory_app: LoadedApp) -> None:
    [report] = run_scripted(memory_app, {1: [
        bash("cat /srv/notes.txt", "[MEMORY:timing:jellyfin] Written by a tool, not by the model"),
        ToolCall("Read", {"file_path": "/srv/readme"},
                 [{"type": "text", "text": "[MEMORY:behavior] Also inside a tool result"}]),
        "All checked.\n[MEMORY:behavior:adguard] Returns HTTP 302 redirect when healthy, not 200",
    ]})

    assert report.status == "completed"
    [memory] = repository.list_memories()
    assert (memory.service, memory.observation) == ("adguard", "Returns HTTP 302 redirect when healthy, not 200")
    assert (memory.session_id, memory.tier) == (report.session_id, 1)


def test_memories_from_previous_sessions_are_in_the_next_system_prompt(memory_app: LoadedApp) -> None:
    recorder = PromptRecorder()
    memory_app.app.pm.register(recorder, name="prompt-recorder")
    [first] = run_scripted(memory_app, {1: ["[MEMORY:timing:jellyfin] Takes 60s to start after restart"]})
    [second] = run_scripted(memory_app, {1: ["Jellyfin healthy."]})

    assert "Operational Memory" not in recorder.appended[first.session_id]
    [memory] = repository.list_memories()
    assert (f"### jellyfin\n- [timing] Takes 60s to start after restart (confidence: 0.7) #{memory.id}"
            in recorder.appended[second.session_id])


def test_escalated_session_gets_the_memory_context_and_records_its_tier(memory_app: LoadedApp) -> None:
    recorder = PromptRecorder()
    memory_app.app.pm.register(recorder, name="prompt-recorder")
    memory_app.remember("Must be started after WireGuard", service="caddy", category="dependency", confidence=0.9)

    reports = run_scripted(memory_app, {
        1: ["caddy is down.\n[ESCALATE] caddy returns 502, needs investigation"],
        2: ["Found it.\n[ESCALATE] caddy needs its config redeployed"],
        3: ["Redeployed.\n[MEMORY:remediation:caddy] Redeploying the config fixes 502s after an upgrade"],
    }, escalate=True)

    assert [report.tier for report in reports] == [1, 2, 3]
    remembered = "- [dependency] Must be started after WireGuard (confidence: 0.9) #"
    assert all(remembered in recorder.appended[report.session_id] for report in reports)
    [new] = repository.list_memories(category="remediation")
    assert (new.tier, new.session_id) == (3, reports[2].session_id)


def _memory_recording_section(memory_app: LoadedApp, tier: int) -> str:
    """The "Memory Recording" section of ``tier``'s prompt exactly as a session loads it."""
    prompt = load_tier_prompt(memory_app.app.config, tier, memory_app.app.markers)
    start = prompt.index("## Memory Recording")
    following = prompt.find("\n## ", start + 1)
    return (prompt[start:] if following == -1 else prompt[start:following]).strip()


def test_tier_1_prompt_includes_memory_instructions(memory_app: LoadedApp) -> None:
    section = _memory_recording_section(memory_app, 1)
    assert "[MEMORY:<category>] <observation>" in section
    assert "[MEMORY:<category>:<service>] <observation>" in section
    for category in ("timing", "dependency", "behavior", "remediation", "maintenance"):
        assert re.search(rf"^- {category}: \S", section, re.MULTILINE), category
    assert "[MEMORY:timing:jellyfin] Takes 60s to start after restart" in section
    assert "When to record" in section and "When not to record" in section
    assert "Never record secrets" in section


def test_tier_2_prompt_includes_memory_instructions(memory_app: LoadedApp) -> None:
    assert _memory_recording_section(memory_app, 2) == _memory_recording_section(memory_app, 1) == PROMPT_SECTION


def test_tier_3_prompt_includes_memory_instructions(memory_app: LoadedApp) -> None:
    assert _memory_recording_section(memory_app, 3) == _memory_recording_section(memory_app, 1) == PROMPT_SECTION


def _prompt_examples() -> list[str]:
    return [line.strip() for line in PROMPT_SECTION.splitlines() if line.strip().startswith("[MEMORY:")
            and "<" not in line]


def test_prompt_examples_are_markers_the_plugin_accepts(memory_app: LoadedApp) -> None:
    examples = [line for line in _prompt_examples() if "#" not in line]
    memory_app.emit(memory_app.session(), "\n".join(examples))
    assert repository.count_memories() == len(examples) == 4


def test_prompt_citation_examples_cite_in_the_one_form_the_plugin_reads() -> None:
    cited = [read_citation(match.group(3)) for line in _prompt_examples()
             if "#" in line and (match := MEMORY_PATTERN.match(line))]
    assert [(example.citation.verb, example.citation.memory_id) for example in cited] == [("confirms", 12),
                                                                                           ("replaces", 12)]
    assert all("#" not in example.text and example.problem is None for example in cited)
