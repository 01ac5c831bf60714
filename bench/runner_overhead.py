"""What claudeops adds to a real session, as a user feels it: whole processes, same CLI, same API.

* claudeops: ``claudeops run --tier 1`` as cron starts it — interpreter, imports, config, every
  built-in plugin, the database (migrated once beforehand, as on any host after its first run),
  the session row, hooks, the tier-1 tool gate asked before each tool call, markers stored as
  they stream, the transcript, the outcome.
* bare: ``bench/bare_sdk_session.py``, a ``claude_agent_sdk.query()`` process with the options
  claudeops builds for tier 1 and nothing around it.

Both drive the real bundled Claude Code CLI against the fake Messages API of ``tests/fake_api.py``
on 127.0.0.1, which answers every session the same way: two read-only Bash calls (``uptime``,
``df -h``), then a final text with a memory and an event marker — a healthy tier-1 check. Model
time is nil, so the difference is what claudeops costs per session on top of what any SDK
program pays (the CLI's own start, about a second, is in both).

The checkout's own modules are byte-compiled first (``bench/installed.py``), as installing
claudeops compiles them; the SDK's are compiled by ``.ci/setup``. Each round runs the two back
to back, alternating which goes first; the ratio is the median of the per-round ratios, so a
busy machine does not skew one side. Target (issue 18): <= 1.10.
It replaces the earlier bench, which compared replays in one process against bare SDK parsing
(target < 1.25, retired: the required work alone measured 1.31-1.33 there, the runner's own
extra ~0.8 ms, while a real session's floor is the CLI's start).

    .venv/bin/python bench/runner_overhead.py [--rounds 10]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))

from fake_api import FakeAPI, Reply, text, tool_use  # noqa: E402  (the test suite's fake API)
from installed import compile_project  # noqa: E402  (bench/, the script's own folder)

TARGET = 1.10
PROMPT = "Check the services and report."
FINAL = ("All services healthy. [MEMORY:timing:jellyfin] Takes about 60s to answer after a restart\n"
         "[EVENT:info:jellyfin] healthy")


def answer(body: dict[str, Any]) -> Reply:
    """The same three-request session for every process: two Bash calls, then the final text."""
    results = sum(1 for message in body.get("messages", []) if isinstance(message.get("content"), list)
                  for block in message["content"] if isinstance(block, dict) and block.get("type") == "tool_result")
    if results == 0:
        return tool_use("Bash", {"command": "uptime", "description": "load"})
    if results == 1:
        return tool_use("Bash", {"command": "df -h", "description": "disk"})
    return text(FINAL)


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system, the process and every process it waited for: the CLI)."""
    cpu_before = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{command[1]} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return elapsed, _children_cpu() - cpu_before


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    compile_project()  # as installed: byte-compiled, not compiled again by every process
    api = FakeAPI()
    api.responder = answer
    api.start()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        (root / "home").mkdir()
        prompt = root / "prompt.md"
        prompt.write_text(PROMPT)
        env = {key: value for key, value in os.environ.items()
               if not key.startswith(("CLAUDEOPS_", "ANTHROPIC_", "CLAUDE_"))}
        env |= api.env(root / "home") | {"CLAUDEOPS_STATE_DIR": str(root / "claudeops-state")}
        claudeops = [sys.executable, "-m", "claudeops", "run", "--tier", "1", "--prompt", PROMPT]
        bare = [sys.executable, str(REPO / "bench" / "bare_sdk_session.py"), str(root / "bare-state"), str(prompt)]
        timed(claudeops, env)  # warm-up: migrations, page cache, the CLI's first start
        timed(bare, env)
        load_before = os.getloadavg()[0]
        rows = []
        for round_number in range(args.rounds):
            pair = (claudeops, bare) if round_number % 2 == 0 else (bare, claudeops)
            first, second = (timed(command, env) for command in pair)
            ours, theirs = (first, second) if pair[0] is claudeops else (second, first)
            rows.append((ours, theirs))
    api.close()
    ratios = [ours[0] / theirs[0] for ours, theirs in rows]
    ratio = statistics.median(ratios)
    cpu_ours, cpu_theirs = (statistics.median(pair[side][1] for pair in rows) for side in (0, 1))
    print(f"one tier-1 session (2 tool calls, 2 markers) against the fake Messages API, {args.rounds} rounds, "
          f"load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after")
    print(f"  bare SDK query() process:            median {statistics.median(t[0] for _, t in rows):6.3f} s "
          f"(CPU with the CLI's {cpu_theirs:.3f} s)")
    print(f"  claudeops run --tier 1 process:      median {statistics.median(o[0] for o, _ in rows):6.3f} s "
          f"(CPU with the CLI's {cpu_ours:.3f} s)")
    print(f"  ratio claudeops / bare (per round):  median {ratio:.3f} (min {min(ratios):.3f}, "
          f"max {max(ratios):.3f}); target <= {TARGET}: {'met' if ratio <= TARGET else 'NOT met'}")
    print(f"  CPU ratio (medians, for a busy machine): {cpu_ours / cpu_theirs:.3f}")
    sys.exit(0 if ratio <= TARGET else 1)


if __name__ == "__main__":
    main()
