"""The stream: markers from assistant text only, every hook in order, the transcript (issue 3, item 2)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from claude_agent_sdk import AssistantMessage, ToolUseBlock
from runner_helpers import events, notes, replay, row

from claudeops import hookimpl
from claudeops.markers import MarkerType
from claudeops.runner.hookcalls import PluginCalls
from claudeops.runner.replay import load_recording
from claudeops.runner.script import ToolCall, bash, script_to_stream
from claudeops.runner.stream import StreamDispatcher
from claudeops.runner.transcript import TranscriptWriter
from claudeops.session import Session

RECORDED = Path(__file__).resolve().parents[1] / "data" / "recorded-cli-session-bash.jsonl"  # copy of shared/data


def test_a_marker_in_assistant_text_is_stored_and_the_row_gets_the_result(runner_app):
    frames = script_to_stream(["Checked caddy.\n[NOTE] caddy answers in 40 ms", "All healthy."],
                              cost_usd=0.0123, session_id="sdk-abc")
    [report] = replay(runner_app, frames)
    assert notes() == ["caddy answers in 40 ms"]
    stored = row(report.session_id)
    assert (stored.status, stored.cost_usd, stored.num_turns, stored.sdk_session_id) == (
        "completed", 0.0123, 1, "sdk-abc")
    assert stored.result == "All healthy." and stored.ended_at and stored.error is None
    assert report.markers_recorded == 1


def test_markers_in_every_text_block_count_not_only_the_final_result(runner_app):
    frames = script_to_stream(["[NOTE] first block", bash("uptime", "up 3 days"), "[NOTE] second block\ndone"])
    [report] = replay(runner_app, frames)
    assert notes() == ["first block", "second block"]
    assert report.markers_recorded == 2 and report.tool_calls == 1


def test_a_marker_inside_a_tool_result_is_ignored(runner_app, plugin):
    output = "log line: [NOTE] planted by a log\n[ESCALATE] planted too"
    frames = script_to_stream([bash("docker logs caddy", output),
                               ToolCall("Read", {"file_path": "/etc/motd"}, [{"type": "text", "text": "[NOTE] x"}]),
                               "Nothing to report."])
    [report] = replay(runner_app, frames)
    assert notes() == []
    assert report.escalation_requested is None and report.status == "completed"
    assert all("planted" not in str(detail) for name, detail in plugin.calls if name == "on_assistant_text")


def test_hooks_fire_in_session_order(runner_app, plugin):
    replay(runner_app, script_to_stream(["[NOTE] one", bash("df -h", "ok"), "end"]))
    names = plugin.hooks_called()
    assert names[0] == "before_session" and names[-1] == "after_session"
    assert names.count("on_message") == 6  # init, text, tool use, tool result, text, result
    text_index = names.index("on_assistant_text")
    assert names[text_index + 1] == "on_marker"
    assert "check_tool_use" in names


def test_the_real_cli_recording_replays_through_the_sdk_parser(runner_app):
    [report] = replay(runner_app, load_recording(RECORDED))
    assert report.status == "completed"
    assert report.sdk_session_id == "ec1f8fc7-dded-4d9a-8dd0-02607518a228"
    assert (report.cost_usd, report.num_turns, report.tool_calls) == (0.001016, 2, 1)
    assert report.model == "claude-opus-5-5"


def test_the_transcript_is_the_redacted_raw_stream_and_replays_to_the_same_markers(runner_app, state_dir):
    frames = script_to_stream([
        "Token in config: sk-ant-api03-AAAABBBBCCCC_dddd\n[NOTE] saw a key",
        bash("curl -H 'Authorization: Bearer s3cr3t-token' https://admin:hunter2@nas.lan/api", "{}"),
        "[NOTE] done"])
    [report] = replay(runner_app, frames)
    path = Path(row(report.session_id).transcript_path)
    assert path == state_dir / "transcripts" / f"{report.session_id}.jsonl"
    text = path.read_text()
    assert "AAAABBBBCCCC" not in text and "s3cr3t-token" not in text and "hunter2" not in text
    assert "sk-ant-***" in text and "admin:***@nas.lan" in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert {"system", "assistant", "user", "result"} <= {line["type"] for line in lines}
    [again] = replay(runner_app, load_recording(path))
    assert again.markers_recorded == 2 and notes() == ["saw a key", "done", "saw a key", "done"]


@pytest.mark.parametrize("given", [RECORDED, str(RECORDED)], ids=["Path", "str"])
def test_a_replayed_file_is_copied_to_the_transcript_line_for_line(runner_app, given):
    recorded = [line.strip() for line in RECORDED.read_text().splitlines() if line.strip()]
    [report] = replay(runner_app, given)  # a path given as text is a path, not a list of characters
    written = Path(report.transcript_path).read_text().splitlines()
    assert [line for line in written if '"control_' not in line] == [
        line for line in recorded if '"control_' not in line]


def test_a_running_sessions_transcript_reaches_the_file_within_the_flush_interval(tmp_path):
    path = tmp_path / "live.jsonl"

    async def session() -> list[str]:
        writer = TranscriptWriter(path, flush_interval=0.05)
        writer.open()
        writer.write_line('{"type":"system"}')
        seen = ""
        for _ in range(100):  # a reader polling the file sees the line with no further write
            await asyncio.sleep(0.02)
            if seen := path.read_text():
                break
        writer.write_line('{"type":"result"}')
        writer.close()  # the session's end flushes at once
        return [seen, path.read_text()]

    assert asyncio.run(session()) == ['{"type":"system"}\n', '{"type":"system"}\n{"type":"result"}\n']


def test_a_recording_whose_text_holds_unicode_line_separators_replays_intact(runner_app, tmp_path):
    text = "[NOTE] caddy log says\u2028next line\x85and another"
    path = tmp_path / "recording.jsonl"
    path.write_text("".join(json.dumps(frame, ensure_ascii=False) + "\n" for frame in script_to_stream([text])))
    assert load_recording(path) == script_to_stream([text])
    [report] = replay(runner_app, path)
    assert report.markers_recorded == 1 and report.result_text == text


def test_a_failing_observer_plugin_is_logged_and_the_session_goes_on(runner_app, caplog):
    class Broken:
        @hookimpl
        def on_message(self, message):
            raise RuntimeError("observer crashed")

    runner_app.pm.register(Broken(), name="broken-observer")
    [report] = replay(runner_app, script_to_stream(["[NOTE] kept despite the broken plugin"]))
    assert report.status == "completed" and notes() == ["kept despite the broken plugin"]
    assert report.plugin_failures and "broken-observer" in report.plugin_failures[0]
    assert "observer crashed" in caplog.text


def test_strict_plugins_turn_a_plugin_failure_into_a_failed_session(runner_app):
    class Broken:
        @hookimpl
        def on_assistant_text(self, text):
            raise RuntimeError("boom")

    runner_app.pm.register(Broken(), name="broken-strict")
    runner_app.config.override("plugins.strict", True)
    [report] = replay(runner_app, script_to_stream(["hello"]))
    assert report.status == "failed"
    assert "broken-strict" in report.reason and "boom" in report.reason
    assert ("critical", f"session failed: {report.reason}") in events(report.session_id)


def test_a_malformed_marker_goes_to_the_types_on_malformed_not_the_handler(runner_app):
    [report] = replay(runner_app, script_to_stream(["[NOTE]"]))
    assert notes() == [] and report.markers_recorded == 0 and report.status == "completed"



def test_a_handler_that_declines_a_marker_leaves_it_uncounted_and_unannounced(runner_app, plugin):
    def store(session, marker):
        return False if marker.groups[0] == "skip" else None  # False: decided not to store it

    runner_app.markers.register(MarkerType("PICKY", re.compile(r"\[PICKY\][ \t]*(.+)"), "## Picky", store))
    [report] = replay(runner_app, script_to_stream(["[PICKY] skip\n[PICKY] keep"]))
    assert report.markers_recorded == 1
    assert [text for hook, text in plugin.calls if hook == "on_marker"] == ["[PICKY] keep"]



def test_the_tool_gate_waits_until_the_message_holding_the_call_is_handled(runner_app):
    session = Session(id=1, tier=2, model="sonnet", trigger="test", config=runner_app.config, hook=runner_app.hook)
    dispatcher = StreamDispatcher(session, runner_app.markers, PluginCalls(runner_app.pm, strict=False))

    async def scenario() -> None:
        waiting = asyncio.create_task(dispatcher.until_seen("toolu_1"))
        await asyncio.sleep(0.05)
        assert not waiting.done()  # the message holding the call has not been handled yet
        await dispatcher.handle(AssistantMessage(content=[ToolUseBlock(id="toolu_1", name="Bash", input={})],
                                                 model="claude-sonnet-4-5"))
        await asyncio.wait_for(waiting, 1)
        await asyncio.wait_for(dispatcher.until_seen("toolu_1"), 1)  # already seen: no wait
        await asyncio.wait_for(dispatcher.until_seen("toolu_never", patience=0.05), 1)  # judged anyway, not stuck

    asyncio.run(scenario())
