"""The runner's own cost per session, as a ratio to bare SDK parsing of the same recording.

A 200-message session (init, 66 rounds of text + tool call + tool result, the result) is
replayed several ways in the same process, interleaved, many times:

* bare: the recording file read and ``claude_agent_sdk.query()`` over the replay transport,
  messages parsed and dropped;
* runner, tier 1: the whole ``claudeops run`` pipeline over the same frames — session row,
  hooks, prompt, options, marker parsing, transcript file, outcome, and the tier-1 tool gate
  (the read-only check before each of the 66 tool calls, which the replay transport asks
  where the CLI would) — with the core plugins. This is the figure the target applies to;
* for information, to show where the difference goes: bare parsing plus only the transcript
  (every frame serialised, checked for secrets, written); bare parsing plus only the work the
  issue requires of every session, done by hand with the runner's own pieces and nothing around
  them (the row committed at start and end, the transcript file with its secret check, the
  tier-1 check before each tool call, the marker scan of each text) — the floor any runner
  doing that work pays; and the runner at tier 2, where no plugin could refuse a tool call and
  so no tool gate is asked;
* then the same with every built-in plugin loaded (information only: the feature plugins'
  own work is theirs, not the runner's).

Model time is excluded by construction (the recording answers instantly), so the difference is
what claudeops adds to every real session. Target: the runner adds under 25 %. Each ratio is
the median of per-round ratios (each round times bare and runner back to back), which keeps a
busy machine from skewing one side.

    .venv/bin/python bench/runner_overhead.py [--rounds 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from claude_agent_sdk import AssistantMessage, ClaudeAgentOptions, TextBlock, query

from claudeops.app import App
from claudeops.plugins import DEFAULT_PLUGINS
from claudeops.runner.chain import RunRequest, run_chain
from claudeops.runner.replay import ReplayTransport, read_recording
from claudeops.runner.script import bash, script_to_stream
from claudeops.runner.transcript import TeeTransport, TranscriptWriter
from claudeops.session import read_only_mode
from claudeops.session_rows import insert_session_row, update_session_row
from claudeops.store import close_store, db
from claudeops.toolgate import tool_refusal

CORE_ONLY = ("claudeops.environment", "claudeops.escalation")
TARGET = 1.25
FRAMES = 200


def two_hundred_messages() -> list[dict[str, Any]]:
    """init + 66 × (text, tool use, tool result) + result = 200 frames, with marker-like text."""
    steps: list[Any] = []
    for index in range(66):
        steps.append(f"Checking service {index}: the proxy answered 200 in 41 ms, the container is up.\n"
                     f"Next I look at its logs; [ESCALATE nothing yet] and no problem so far.")
        steps.append(bash(f"docker logs --tail 20 service-{index}",
                          "\n".join(f"2026-03-14T03:00:{second:02d}Z INFO request served in 12 ms"
                                    for second in range(20))))
    frames = script_to_stream(steps)
    assert len(frames) == FRAMES, len(frames)
    return frames


async def bare_sdk(recording: Path, transcript: Path | None) -> int:
    count = 0
    frames, _ = read_recording(recording)
    transport: Any = ReplayTransport(frames)
    if transcript is not None:
        transport = TeeTransport(transport, TranscriptWriter(transcript))
    async for _ in query(prompt="check", options=ClaudeAgentOptions(), transport=transport):
        count += 1
    return count


async def required_work(app: App, recording: Path, transcripts: Path) -> int:
    """Bare parsing plus what every session must do, by hand: row, transcript, tier-1 check, markers."""
    with db.atomic():
        session_id = insert_session_row(1, "haiku", "benchmark", None, "2026-03-14T03:00:00Z")
    mode = read_only_mode(False, 1)

    async def tier_one_check(tool_name: str, tool_input: dict[str, Any], tool_use_id: str) -> str | None:
        refusal = tool_refusal(tool_name, tool_input, mode) if mode else None
        return refusal.message if refusal is not None else None

    recorded = read_recording(recording)
    transport = TeeTransport(ReplayTransport(recorded.frames, lines=recorded.lines, tool_gate=tier_one_check),
                             TranscriptWriter(transcripts / f"{session_id}.jsonl"))
    count = 0
    async for message in query(prompt="check", options=ClaudeAgentOptions(), transport=transport):
        count += 1
        if isinstance(message, AssistantMessage):
            for block in message.content:
                if isinstance(block, TextBlock):
                    for _ in app.markers.candidates(block.text):
                        pass
    with db.atomic():
        update_session_row(session_id, status="completed", ended_at="2026-03-14T03:00:05Z")
    return count


def time_required(app: App, recording: Path, transcripts: Path) -> float:
    start = time.perf_counter()
    count = asyncio.run(required_work(app, recording, transcripts))
    elapsed = time.perf_counter() - start
    assert count == FRAMES, count
    return elapsed


def time_bare(recording: Path, transcript: Path | None = None) -> float:
    start = time.perf_counter()
    count = asyncio.run(bare_sdk(recording, transcript))
    elapsed = time.perf_counter() - start
    assert count == FRAMES, count
    return elapsed


def time_runner(app: App, recording: Path, tier: int = 1) -> float:
    start = time.perf_counter()
    [report] = run_chain(app, RunRequest.replaying([recording], escalate=False, tier=tier))
    elapsed = time.perf_counter() - start
    assert report.status == "completed", report.reason
    return elapsed


def measure(state: Path, builtins: tuple[str, ...], recording: Path, rounds: int,
            *, detail: bool) -> dict[str, list[float]]:
    """Seconds per replay, each kind timed once per round, back to back: bare first."""
    state.mkdir()
    config = state / "config.toml"  # empty: built-in defaults, whatever ./config.toml says
    config.write_text("")
    app = App.load(str(config), {"CLAUDEOPS_STATE_DIR": str(state)}, entry_points=False, builtins=builtins)
    app.open_store()
    transcript = state / "bare-transcript.jsonl"
    kinds: dict[str, Callable[[], float]] = {"bare": lambda: time_bare(recording),
                                              "tier 1": lambda: time_runner(app, recording)}
    if detail:
        kinds["transcript"] = lambda: time_bare(recording, transcript)
        kinds["required"] = lambda: time_required(app, recording, state / "transcripts")
        kinds["tier 2"] = lambda: time_runner(app, recording, tier=2)
    try:
        for timed in kinds.values():  # warm every path
            timed()
        samples: dict[str, list[float]] = {kind: [] for kind in kinds}
        for _ in range(rounds):
            for kind, timed in kinds.items():
                samples[kind].append(timed())
    finally:
        close_store()
    return samples


def report(title: str, samples: dict[str, list[float]]) -> float:
    """Print one set of figures; the tier-1 runner's median ratio to bare parsing."""
    labels = {"transcript": "bare SDK parsing + transcript only:",
              "required": "bare + only the required work, by hand (the floor):",
              "tier 1": "whole runner, tier 1 (row, hooks, markers, transcript, tool gate):",
              "tier 2": "whole runner, tier 2 (the same without the tool gate):"}
    bare = samples["bare"]
    print(title)
    print(f"  {'bare SDK parsing (query + replay transport):':70s} median {median_ms(bare):6.2f} ms")
    for kind in ("transcript", "required", "tier 1", "tier 2"):
        if kind in samples:
            print(f"  {labels[kind]:70s} median {median_ms(samples[kind]):6.2f} ms, "
                  f"ratio {ratio(samples[kind], bare):.2f}")
    return ratio(samples["tier 1"], bare)


def ratio(samples: list[float], bare: list[float]) -> float:
    return statistics.median(timed / base for timed, base in zip(samples, bare, strict=True))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as state:
        recording = Path(state) / "session.jsonl"
        recording.write_text("".join(json.dumps(frame) + "\n" for frame in two_hundred_messages()))
        core = measure(Path(state) / "core", CORE_ONLY, recording, args.rounds, detail=True)
        every = measure(Path(state) / "all", DEFAULT_PLUGINS, recording, args.rounds, detail=False)
    print(f"replayed session: {FRAMES} messages from one stream-json file, {args.rounds} rounds")
    target = report(f"core plugins ({', '.join(CORE_ONLY)}):", core)
    report("all built-in plugins (information only):", every)
    print(f"ratio runner / bare, core plugins, tier 1: {target:.2f}  (overhead {100 * (target - 1):+.0f} %, "
          f"target < +25 %: {'met' if target < TARGET else 'NOT met'})")
    return 0 if target < TARGET else 1


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


if __name__ == "__main__":
    sys.exit(main())
