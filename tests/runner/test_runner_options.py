"""Options per tier, the appended system prompt, tier prompts, and the tool gate (issue 3, items 1, 4, 5)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from claude_agent_sdk import ClaudeAgentOptions, HookMatcher, ToolResultBlock, UserMessage, query
from runner_helpers import events, replay

from claudeops import hookimpl
from claudeops.app import App
from claudeops.plugins import DEFAULT_PLUGINS
from claudeops.runner.options import QUIET_CLI_ENV, build_options, system_prompt_append
from claudeops.runner.prompts import PromptError, load_tier_prompt, shipped_prompts_dir, tier_prompt_path
from claudeops.runner.replay import ReplayTransport
from claudeops.runner.script import ToolCall, bash, script_to_stream
from claudeops.session import Session

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sessions"


async def allow(hook_input, tool_use_id, context):
    return {}


@pytest.mark.parametrize(("tier", "model"), [(1, "haiku"), (2, "sonnet"), (3, "opus")])
def test_each_tier_gets_its_model_tools_and_limits_from_config(runner_app, state_dir, make_session, tier, model):
    settings = runner_app.config.tier(tier)
    options = build_options(make_session(tier, settings.model), pre_tool_use=allow)
    assert options.model == model
    assert (options.allowed_tools, options.disallowed_tools) == (settings.allowed_tools, settings.disallowed_tools)
    assert (options.max_turns, options.max_budget_usd) == (settings.max_turns, settings.max_budget_usd)
    assert options.permission_mode == settings.permission_mode
    assert options.cwd == str(state_dir / "work") and Path(options.cwd).is_dir()
    assert options.setting_sources == []
    assert options.env == {**QUIET_CLI_ENV, "CLAUDE_CONFIG_DIR": str(state_dir / "claude-config")}
    assert options.stderr is not None
    assert [matcher.matcher for matcher in options.hooks["PreToolUse"]] == [None]


def test_tier_1_may_not_restart_compose_push_or_notify(runner_app):
    refused = runner_app.config.tier(1).disallowed_tools
    for rule in ("Bash(docker restart:*)", "Bash(docker compose:*)", "Bash(git push:*)", "Bash(apprise:*)"):
        assert rule in refused


def test_configured_cwd_setting_sources_and_budget_reach_the_options(runner_app, make_session, tmp_path):
    runner_app.config.override("cwd", str(tmp_path / "agent"))
    runner_app.config.override("setting_sources", ["project"])
    runner_app.config.override("tier1.max_budget_usd", 0.0)
    options = build_options(make_session(1, runner_app.config.tier(1).model), pre_tool_use=allow)
    assert (options.cwd, options.setting_sources, options.max_budget_usd) == (str(tmp_path / "agent"),
                                                                             ["project"], None)


def test_the_cli_keeps_no_copy_of_the_conversation_of_its_own(runner_app, make_session):
    """Its session files under claude-config/projects/ would be an unredacted transcript (issue 12)."""
    options = build_options(make_session(1, runner_app.config.tier(1).model), pre_tool_use=None)
    assert options.extra_args == {"no-session-persistence": None}


def test_sections_are_appended_to_the_claude_code_preset_in_order(runner_app, make_session):
    session = make_session(1, runner_app.config.tier(1).model)
    session.add_prompt_section("memory", "## Memory", 40)
    session.add_prompt_section("environment", "## Environment", 10)
    session.add_prompt_section("cooldowns", "## Cooldowns", 30)
    session.add_prompt_section("handoff", "## Handoff", 20)
    session.add_prompt_section("empty", "   ", 5)
    options = build_options(session, pre_tool_use=allow)
    assert options.system_prompt == {"type": "preset", "preset": "claude_code",
                                     "append": "## Environment\n\n## Handoff\n\n## Cooldowns\n\n## Memory"}
    assert system_prompt_append(session) == options.system_prompt["append"]


def test_the_appended_sections_hold_no_credentials(runner_app, plugin, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-SECRETSECRET")
    [report] = replay(runner_app, script_to_stream(["ok"]))
    appended = plugin.appended[report.session_id]
    assert "SECRETSECRET" not in appended and "claudeops.db" not in appended
    assert "## Environment" in appended and "TEST-CONTEXT-SECTION-42" in appended


DRY_RUN_LINE = "- DRY RUN: do not change anything; escalation and mutating commands are suppressed."


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "normal-run"])
def test_the_agent_is_told_in_its_environment_section_when_the_run_is_a_dry_run(runner_app, plugin, dry_run):
    [report] = replay(runner_app, script_to_stream(["ok"]), dry_run=dry_run)
    appended = plugin.appended[report.session_id]
    environment = appended.split("\n## ", 1)[0]
    assert environment.startswith("## Environment") and "- Model: haiku" in environment
    assert (DRY_RUN_LINE in environment.splitlines()) is dry_run
    assert ("DRY RUN" in appended) is dry_run  # nowhere else either


def test_system_prompt_sections_with_every_built_in_plugin_come_in_their_documented_order(make_claudeops_app):
    """A tier-2 child escalated from tier 1: environment (10), handoff (20), cooldowns (30), memory (40)."""
    capture = AppendedPrompts()
    app = make_claudeops_app(builtins=DEFAULT_PLUGINS, plugins=[capture])
    replay(app, EXAMPLES / "healthy-tier1.jsonl")  # leaves memories, so the memory section is not empty
    parent, child = replay(app, EXAMPLES / "escalate-tier1.jsonl", EXAMPLES / "escalated-tier2.jsonl")
    assert (parent.status, child.tier, child.parent_session_id) == ("escalated", 2, parent.session_id)
    assert capture.headings[child.session_id] == ["## Environment", "## Escalation from tier 1", "## Cooldown state",
                                                  "## Operational Memory"]
    assert capture.headings[parent.session_id] == ["## Environment", "## Operational Memory"]  # tier 1: no cooldowns


class AppendedPrompts:
    """Records the headings of the sections each session appends to the system prompt, in order, without the
    details in parentheses (the parent's id, how many memories)."""

    def __init__(self) -> None:
        self.headings: dict[int, list[str]] = {}

    @hookimpl
    def on_message(self, session: Session) -> None:
        appended = system_prompt_append(session)
        self.headings.setdefault(session.id, [line.split(" (")[0] for line in appended.splitlines()
                                              if line.startswith("## ")])


@pytest.mark.parametrize("tier", [1, 2, 3])
def test_the_prompt_of_every_tier_teaches_every_registered_marker(tier, full_app):
    prompt = load_tier_prompt(full_app.config, tier, full_app.markers)
    assert prompt.startswith(f"# Tier {tier}")
    for section in full_app.markers.prompt_sections():
        assert section.strip() in prompt
    for heading in ("## Memory Recording", "## Events", "## Escalation", "## Remediation records"):
        assert heading in prompt


def loaded_prompt(app: App, tier: int) -> str:
    """The user prompt of a ``tier`` session of ``app`` (every built-in plugin's), as the runner sends it."""
    return load_tier_prompt(app.config, tier, app.markers)


def section(prompt: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of the same level, on one line."""
    start = prompt.index(heading + "\n")
    end = prompt.find("\n## ", start + len(heading))
    return " ".join((prompt[start:] if end < 0 else prompt[start:end]).split())


def test_marker_sections_follow_the_tier_prompt_last_registered_plugin_first(full_app):
    """pluggy calls ``register_marker_types`` newest registration first, so the built-ins' sections come in
    the reverse of DEFAULT_PLUGINS (docs/runner.md, step 6)."""
    prompt = loaded_prompt(full_app, 1)
    headings = ["## Memory Recording", "## Remediation records (cooldowns)", "## Events", "## Escalation"]
    assert sorted(headings, key=lambda heading: prompt.index(f"\n{heading}\n")) == headings


@pytest.mark.parametrize("tier", [1, 2, 3])
def test_every_tier_gets_one_rule_for_escalating_a_service_in_cooldown(tier, full_app):
    """Higher tiers are bound by the same cooldowns: escalating only to retry a refused restart is pointless,
    escalating for a remedy beyond a restart is right. No part of a loaded prompt says otherwise."""
    prompt = loaded_prompt(full_app, tier)
    shared = section(prompt, "## Escalation")
    assert "Every tier is bound by the same cooldowns" in shared and "remedy beyond a restart" in shared
    for contradiction in ("for services in cooldown", "in cooldown and still failing", "not in cooldown for that"):
        assert contradiction not in " ".join(prompt.split())


def test_tier_1_is_not_told_to_read_the_cooldown_state_it_does_not_get(full_app):
    """The cooldowns plugin shows its counters to tiers 2 and 3 only (they may remediate)."""
    prompt = " ".join(loaded_prompt(full_app, 1).split())
    assert "which services are in cooldown" not in prompt and "You do not see them" in prompt
    for tier in (2, 3):
        assert "in cooldown" in " ".join(loaded_prompt(full_app, tier).split())


def test_the_highest_tier_is_not_told_to_ask_for_a_higher_one(full_app):
    prompt = loaded_prompt(full_app, 3)
    assert "There is no tier above you" in prompt
    shared = section(prompt, "## Escalation")
    assert shared.count("ask for the next tier") == 1
    assert "and a higher tier is available" in shared.split("ask for the next tier")[0]
    assert "At the highest tier available (tier 3, or a lower configured maximum) there is no next tier" in shared


@pytest.mark.parametrize("name", ["tier1-observe.md", "tier2-investigate.md", "tier3-remediate.md"])
def test_shipped_prompts_leave_marker_formats_to_the_plugins(name):
    text = (shipped_prompts_dir() / name).read_text()
    assert "cooldown" in text.lower() and "escalat" in text.lower()
    for marker in ("[MEMORY", "[EVENT", "[ESCALATE", "[COOLDOWN"):
        assert marker not in text


def test_prompts_dir_overrides_the_shipped_prompt_and_falls_back_per_file(runner_app, tmp_path):
    (tmp_path / "tier1-observe.md").write_text("# Our own tier 1\n\nCheck the NAS only.")
    runner_app.config.override("prompts_dir", str(tmp_path))
    assert load_tier_prompt(runner_app.config, 1, runner_app.markers).startswith("# Our own tier 1")
    assert tier_prompt_path(runner_app.config, 2) == shipped_prompts_dir() / "tier2-investigate.md"
    assert "## Notes" in load_tier_prompt(runner_app.config, 1, runner_app.markers)


def test_a_missing_prompt_file_is_a_one_line_config_error(runner_app, tmp_path):
    runner_app.config.override("tier2.prompt", str(tmp_path / "nope.md"))
    with pytest.raises(PromptError, match=r"tier2.prompt: .*nope.md not found"):
        tier_prompt_path(runner_app.config, 2)


def test_dry_run_refuses_mutating_tools_and_says_so(runner_app, plugin):
    frames = script_to_stream([bash("docker ps", "jellyfin Up"), bash("docker restart jellyfin", "jellyfin"),
                               ToolCall("Write", {"file_path": "/etc/x", "content": "y"}, "written"), "done"])
    [report] = replay(runner_app, frames, dry_run=True)
    results = [detail for name, detail in plugin.calls if name == "on_message"]
    assert report.tools_denied == 2 and report.tool_calls == 3
    refused = "dry run: refused `docker restart jellyfin` (`restart` is not a read-only sub-command of docker)"
    assert any(message == refused for _, message in events())
    frames = [json.loads(line) for line in Path(report.transcript_path).read_text().splitlines()]
    tool_results = [block["content"] for frame in frames if frame["type"] == "user"
                    for block in frame["message"]["content"]]
    assert tool_results[0] == "jellyfin Up"
    assert tool_results[2].startswith("dry run: refused `Write`: Write changes files")
    assert results.count("UserMessage") == 3


def test_tier_1_is_read_only_whatever_its_allow_rules_say(runner_app, plugin):
    frames = script_to_stream([bash("systemctl status caddy", "active (running)"), bash("touch /srv/marker", ""),
                               ToolCall("Edit", {"file_path": "/etc/caddy/Caddyfile"}, "edited"), "done"])
    [report] = replay(runner_app, frames, tier=1)
    assert (report.tool_calls, report.tools_denied) == (3, 2)
    transcript = Path(report.transcript_path).read_text()
    assert "tier 1 is read-only: refused `touch /srv/marker`: touch is not a read-only program" in transcript
    assert "tier 1 is read-only: refused `Edit`: Edit changes files" in transcript


def test_tier_2_may_change_things_its_rules_allow(runner_app, plugin):
    frames = script_to_stream([bash("touch /srv/marker", ""), "done"])
    [report] = replay(runner_app, frames, tier=2, escalate=False)
    assert (report.tool_calls, report.tools_denied) == (1, 0)


@pytest.mark.parametrize("tier", [2, 3])
def test_a_dry_run_at_any_tier_is_held_to_the_read_only_gate(runner_app, plugin, tier):
    frames = script_to_stream([bash("docker ps", "web Up"), bash("for s in web; do docker restart $s; done", ""),
                               bash("zpool status", "ONLINE"), "done"])
    [report] = replay(runner_app, frames, tier=tier, dry_run=True)
    assert (report.tool_calls, report.tools_denied) == (3, 2)
    assert [message for _, message in events()] == [
        "dry run: refused `for s in web; do docker restart $s; done` (a for loop is not looked into)",
        "dry run: refused `zpool status` (zpool is not a read-only program)"]


def test_the_gate_uses_the_configured_allow_list(make_claudeops_app, plugin):
    app = make_claudeops_app({"CLAUDEOPS_TOOLGATE_ALLOW": "zpool status"})
    [report] = replay(app, script_to_stream([bash("zpool status", "ONLINE"), bash("zpool scrub tank", ""), "done"]))
    assert (report.tool_calls, report.tools_denied) == (2, 1)


def test_outside_a_dry_run_tiers_2_and_3_are_not_held_to_the_allow_list(runner_app, plugin):
    frames = script_to_stream([bash("for s in web; do echo $s; done", "web"), "done"])
    [report] = replay(runner_app, frames, tier=2, escalate=False)
    assert (report.tool_calls, report.tools_denied) == (1, 0)


def test_a_plugin_can_refuse_a_tool_call_and_the_model_sees_its_reason(runner_app, plugin):
    plugin.deny["Bash"] = "jellyfin is in cooldown until 14:00 (2 restarts in 4 h)"
    [report] = replay(runner_app, script_to_stream([bash("docker restart jellyfin", "jellyfin"), "ok"]), tier=2)
    assert report.tools_denied == 1
    assert "in cooldown until 14:00" in Path(report.transcript_path).read_text()


def test_a_crashing_tool_check_refuses_the_call(runner_app):
    from claudeops import hookimpl

    class Crashing:
        @hookimpl
        def check_tool_use(self, tool_name):
            raise RuntimeError("cooldown table missing")

    runner_app.pm.register(Crashing(), name="crashing-check")
    [report] = replay(runner_app, script_to_stream([bash("docker restart jellyfin", "done"), "ok"]), tier=2)
    assert report.tools_denied == 1 and report.status == "completed"
    assert "safety check failed" in Path(report.transcript_path).read_text()


def test_a_replay_without_the_runner_asks_the_sdks_pre_tool_use_hooks_as_the_cli_does():
    async def deny_restarts(hook_input, tool_use_id, context):
        if "restart" not in hook_input["tool_input"]["command"]:
            return {}
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": "no restarts today"}}

    async def replay_with_hook() -> list[Any]:
        options = ClaudeAgentOptions(hooks={"PreToolUse": [HookMatcher(matcher="Bash", hooks=[deny_restarts])]})
        frames = script_to_stream([bash("docker ps", "jellyfin Up"), bash("docker restart jellyfin", "jellyfin")])
        return [message async for message in query(prompt="check", options=options,
                                                   transport=ReplayTransport(frames))]

    results = [block for message in asyncio.run(replay_with_hook()) if isinstance(message, UserMessage)
               for block in message.content if isinstance(block, ToolResultBlock)]
    assert [(result.content, result.is_error) for result in results] == [("jellyfin Up", False),
                                                                          ("no restarts today", True)]


def test_the_core_only_app_loads_without_feature_plugins(make_claudeops_app):
    app = make_claudeops_app(plugins=())
    assert [marker_type.name for marker_type in app.markers.types] == ["ESCALATE"]
