"""Recording 10,000 memory markers through the marker handler, relation judge included.

Usage: ``python bench/memory_upsert.py [MARKERS]`` (default 10,000).

Each marker goes the way a live session's does: the marker registry splits the assistant text
into candidates, the regex parses it, and :func:`claudeops_memory.marker.handle_memory_marker`
normalises the observation, asks the ``judge_memory_relation`` hook (the default judge) about
every active memory of the same service and category, and commits its own transaction.

The markers are what an agent plausibly writes over many sessions: 40 services (and general
memories), the five categories, a handful of facts per service and category, each stated in
several phrasings (which should reinforce), now and then the opposite claim (which should
contradict) or a new fact. They arrive over sessions of ``MARKERS_PER_SESSION`` markers each (a
memory is reinforced at most once per session, so one endless session would mostly measure
repeats that write nothing). The database starts empty and grows as the markers arrive.
Target (issue 4): at least 1,000 markers per second.

History (issue 14): every change is also an entry of ``memory_changes``, written in the marker's
transaction. The same markers are therefore run with history on and off — off means
``claudeops_memory.history.record_change`` replaced by a no-op for that run — in alternating
order, each on a fresh database, ``ROUNDS`` times; the overhead is the median of the rounds'
ratios of this process's CPU time (wall time is printed too, but on a shared machine it mostly
measures the neighbours). Target: at most 10 %.
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from arguments import one_argument
from claudeops_memory import history
from claudeops_memory.marker import handle_memory_marker
from memory_data import load_app

from claudeops.session import Session
from claudeops.session_rows import start_session_row
from claudeops.store import close_store

SERVICES = [f"svc{number:02d}" for number in range(40)]
MARKERS_PER_SESSION = 10
ROUNDS = 3
HISTORY_OVERHEAD = 0.10
DEPENDENCIES = ("WireGuard", "postgres", "redis", "the NAS mount", "traefik", "mosquitto")
# Per category: facts, each a list of phrasings; "{x}" takes a per-service value, "!" marks the opposite claim.
FACTS: dict[str, list[list[str]]] = {
    "timing": [
        ["Takes {n}s to start after restart", "Takes about {n} seconds to start after a restart",
         "Needs {n} seconds after restarting before it answers", "!Takes {m}s to start after restart"],
        ["Health check times out while the nightly backup runs", "Health checks time out during the nightly backup"],
        ["Certificate renewal takes about {n} minutes", "Renewing the certificate takes {n} minutes"],
    ],
    "dependency": [
        ["Must be started after {dep}", "Needs {dep} running before it starts",
         "!Can be started independently of {dep}"],
        ["Loses its sessions when redis restarts", "Redis restarts drop all of its sessions"],
    ],
    "behavior": [
        ["Returns HTTP {code} when healthy", "Answers health checks with {code} when it is fine",
         "!Returns HTTP 200 when healthy"],
        ["First restart always fails due to a DB lock; the second succeeds",
         "The first restart fails on a database lock, a second one works"],
        ["Logs a harmless warning about IPv6 at every start", "Prints an IPv6 warning on start that can be ignored"],
    ],
    "remediation": [
        ["Restarting the container clears the stuck queue", "A container restart fixes the stuck queue",
         "!Restarting the container does not clear the stuck queue"],
        ["Clearing the cache directory fixes the 500 errors", "The 500 errors go away after clearing the cache"],
    ],
    "maintenance": [
        ["Needs a manual VACUUM FULL weekly", "Run VACUUM FULL by hand every week"],
        ["Rotate the API token every {n} days", "The API token must be rotated every {n} days"],
    ],
}


def marker_texts(count: int, seed: int = 4) -> list[str]:
    """``count`` assistant lines, each one memory marker."""
    rng = random.Random(seed)
    values = {service: {"n": rng.choice((30, 45, 60, 90, 120)), "m": rng.choice((5, 10, 300)),
                        "dep": rng.choice(DEPENDENCIES), "code": rng.choice((302, 401, 204))}
              for service in [*SERVICES, None]}
    texts = []
    for _ in range(count):
        service = None if rng.random() < 0.1 else rng.choice(SERVICES)
        category = rng.choice(tuple(FACTS))
        phrasings = rng.choice(FACTS[category])
        phrasing = rng.choice(phrasings)
        if phrasing.startswith("!") and rng.random() < 0.7:
            phrasing = phrasings[0]  # the opposite claim is the rarer one
        observation = phrasing.removeprefix("!").format(**values[service])
        if rng.random() < 0.05:
            observation += f" (seen in run {rng.randint(1, 10_000)})"  # a one-off fact: new text
        tag = f"{category}:{service}" if service else category
        texts.append(f"[MEMORY:{tag}] {observation}")
    return texts


@dataclass(frozen=True)
class Run:
    elapsed: float
    cpu: float
    """Seconds of this process's CPU time: what the history adds, whatever the neighbours do."""
    actions: Counter[str]
    contradicted: int


def record_markers(texts: list[str]) -> Run:
    """Every marker through the handler, sessions of ``MARKERS_PER_SESSION``, on a fresh database."""
    with tempfile.TemporaryDirectory() as folder:
        app = load_app(Path(folder))
        actions: Counter[str] = Counter()
        contradicted = 0
        start, cpu = time.perf_counter(), time.process_time()
        for index, text in enumerate(texts):
            if index % MARKERS_PER_SESSION == 0:
                row = start_session_row(2, "sonnet", "bench", None, "2026-06-01T12:00:00Z")
                session = Session(id=row.id, tier=2, model="sonnet", trigger="bench", config=app.config,
                                  hook=app.hook)
            for candidate in app.markers.candidates(text):
                marker = candidate.parse()
                assert marker is not None, text
                result = handle_memory_marker(session, marker)
                if result is False:  # nothing written: a fact restated within its session
                    actions["not stored"] += 1
                    continue
                actions[result.action] += 1
                contradicted += len(result.contradicted)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        close_store()
    return Run(elapsed, cpu, actions, contradicted)


def without_history(texts: list[str]) -> Run:
    """:func:`record_markers` with the history writes replaced by a no-op: the baseline."""
    recording = history.record_change
    history.record_change = lambda *args, **kwargs: 0  # type: ignore[assignment]
    try:
        return record_markers(texts)
    finally:
        history.record_change = recording  # type: ignore[assignment]


def main(count: int) -> int:
    texts = marker_texts(count)
    with_runs, without_runs = [], []
    for round_number in range(ROUNDS):
        order = [(with_runs, record_markers), (without_runs, without_history)]
        for runs, function in order if round_number % 2 else reversed(order):
            runs.append(function(texts))
    pairs = list(zip(with_runs, without_runs, strict=True))
    ratios = [on.cpu / off.cpu for on, off in pairs]
    wall_ratios = [on.elapsed / off.elapsed for on, off in pairs]
    run = with_runs[0]
    elapsed = statistics.median(on.elapsed for on in with_runs)
    baseline = statistics.median(off.elapsed for off in without_runs)
    overhead = statistics.median(ratios) - 1

    rate = count / elapsed
    print(f"markers:               {count:,} ({', '.join(f'{n:,} {a}' for a, n in run.actions.most_common())}; "
          f"{run.contradicted:,} contradictions)")
    print(f"elapsed (median of {ROUNDS}): {elapsed:8.2f} s   ({elapsed / count * 1000:.3f} ms per marker)")
    within = rate >= 1000
    print(f"throughput:            {rate:8.0f} markers/s   target >= 1,000/s: {'met' if within else 'NOT met'}")
    print(f"without history:       {baseline:8.2f} s   ({count / baseline:.0f} markers/s)")
    cpu_on = statistics.median(on.cpu for on in with_runs)
    cpu_off = statistics.median(off.cpu for off in without_runs)
    print(f"CPU time:              {cpu_on:8.2f} s with history, {cpu_off:.2f} s without "
          f"({cpu_on / count * 1000:.3f} / {cpu_off / count * 1000:.3f} ms per marker)")
    cheap = overhead <= HISTORY_OVERHEAD
    print(f"history overhead:      {overhead * 100:+7.1f} % CPU (rounds: {', '.join(f'{r - 1:+.1%}' for r in ratios)}; "
          f"wall: {', '.join(f'{r - 1:+.1%}' for r in wall_ratios)})"
          f"   target <= {HISTORY_OVERHEAD:.0%}: {'met' if cheap else 'NOT met'}")
    return 0 if within and cheap else 1


if __name__ == "__main__":
    sys.exit(main(one_argument(__doc__, "MARKERS", int, 10_000)))
