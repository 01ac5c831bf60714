"""The runner's own cost per session, as a ratio to bare SDK parsing of the same recording.

A 200-message session (init, 66 rounds of text + tool call + tool result, the result) is
replayed two ways in the same process, interleaved, many times:

* bare: ``claude_agent_sdk.query()`` over the replay transport, messages parsed and dropped;
* runner: the whole ``claudeops run`` pipeline over the same frames — session row, hooks,
  prompt, options, marker parsing, transcript file, outcome — with the core plugins;
* and, to show where the difference goes, bare parsing plus only the transcript (every frame
  serialised, redacted, written and flushed), which the runner does for every message.

Model time is excluded by construction (the recording answers instantly), so the difference is
what claudeops adds to every real session. Target: the runner adds under 25 %. The ratio is the
median of per-round ratios (each round times bare and runner back to back), which keeps a busy
machine from skewing one side.

    .venv/bin/python bench/runner_overhead.py [--rounds 30] [--all-plugins]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from claude_agent_sdk import ClaudeAgentOptions, query

from claudeops.app import App
from claudeops.plugins import DEFAULT_PLUGINS
from claudeops.replay import ReplayTransport, bash, script_to_stream
from claudeops.runner import RunRequest, run_chain
from claudeops.store import close_store
from claudeops.transcript import TeeTransport, TranscriptWriter

CORE_ONLY = ("claudeops.environment", "claudeops.escalation")
TARGET = 1.25


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
    assert len(frames) == 200, len(frames)
    return frames


async def bare_sdk(frames: list[dict[str, Any]], transcript: Path | None) -> int:
    count = 0
    transport: Any = ReplayTransport(frames)
    if transcript is not None:
        transport = TeeTransport(transport, TranscriptWriter(transcript))
    async for _ in query(prompt="check", options=ClaudeAgentOptions(), transport=transport):
        count += 1
    return count


def time_bare(frames: list[dict[str, Any]], transcript: Path | None = None) -> float:
    start = time.perf_counter()
    count = asyncio.run(bare_sdk(frames, transcript))
    elapsed = time.perf_counter() - start
    assert count == len(frames), count
    return elapsed


def time_runner(app: App, frames: list[dict[str, Any]]) -> float:
    start = time.perf_counter()
    [report] = run_chain(app, RunRequest.replaying([frames], escalate=False))
    elapsed = time.perf_counter() - start
    assert report.status == "completed", report.reason
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--all-plugins", action="store_true", help="load every built-in plugin, not just the core")
    args = parser.parse_args()
    frames = two_hundred_messages()
    with tempfile.TemporaryDirectory() as state:
        config = Path(state) / "config.toml"  # empty: built-in defaults, whatever ./config.toml says
        config.write_text("")
        app = App.load(str(config), {"CLAUDEOPS_STATE_DIR": state}, entry_points=False,
                       builtins=DEFAULT_PLUGINS if args.all_plugins else CORE_ONLY)
        app.open_store()
        transcript = Path(state) / "bare-transcript.jsonl"
        time_bare(frames), time_bare(frames, transcript), time_runner(app, frames)  # warm every path
        bare, teed, runner = [], [], []
        for _ in range(args.rounds):
            bare.append(time_bare(frames))
            teed.append(time_bare(frames, transcript))
            runner.append(time_runner(app, frames))
        close_store()
    ratio = statistics.median(r / b for r, b in zip(runner, bare, strict=True))
    plugins = "all built-in plugins" if args.all_plugins else "core plugins"
    print(f"replayed session: {len(frames)} messages, {args.rounds} rounds, {plugins}")
    print(f"bare SDK parsing (query + replay transport):          median {median_ms(bare):7.2f} ms")
    print(f"bare SDK parsing + transcript only:                   median {median_ms(teed):7.2f} ms")
    print(f"whole runner (row, hooks, markers, transcript, ...):  median {median_ms(runner):7.2f} ms")
    print(f"ratio runner / bare: {ratio:.2f}  (overhead {100 * (ratio - 1):+.0f} %, target < +25 %: "
          f"{'met' if ratio < TARGET else 'NOT met'})")
    return 0 if ratio < TARGET else 1


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


if __name__ == "__main__":
    sys.exit(main())
