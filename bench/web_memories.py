"""How fast is the first page of /memories, next to a bare Litestar handler and a minimal
Litestar + Jinja page of the same 50 rows?

Run: ``.venv/bin/python bench/web_memories.py [--sizes 10k] [--wrk]`` (about half a minute a
size, two minutes with ``--wrk``). For each size it serves the real dashboard (``claudeops web``,
as an operator starts it, access log off) over a state dir of that many memories (10k: filled
here, the spread of a long-lived install; other sizes: ``memory_data.cached_database``), a
one-handler Litestar app, and the *plain page* (issue 18 item 4): Litestar rendering, with one
Jinja template, the same 50 rows the table shows, read with one plain ``sqlite3`` query
(``ORDER BY confidence DESC, id DESC LIMIT 50``) on a connection kept per thread — the baselines
each with uvicorn (one worker, its own process). Each endpoint gets requests sequentially over
one keep-alive connection: 30 warm-up requests, then 200 timed ones, against a dashboard with
one worker. The dashboard keeps what it read from the memories until they change, and each
rendered row until what it shows changes, so each endpoint is measured three times: unchanged
data (a *hit*, what a polling page mostly asks); a write to another table committed by this
process before every request (*miss, other table*: what a running session's events do); and a
memory shown on the page changed before every request, its observation edited (*miss, memory*:
the count, the prompt's plan, the page's rows and that row read and rendered anew). Writes are
not timed. It prints p50 and p99 in milliseconds and as ratios to the bare handler and to the
plain page measured in the same run, and exits 1 if the /memories p99 misses the target (50 ms).
Issue 18's target: /memories, its poll fragment and the JSON list at most 2x the plain page
(p50) at 100k and at 1k; the verdict is printed for every case. With ``--wrk`` it also measures throughput at
concurrency 16 with ``wrk`` (Debian: ``apt-get install wrk``) for 10 s per endpoint: the plain
page, and each endpoint with ``web.workers`` 1 and 2.

Timings are wall-clock on a shared 2-core machine, client and server included, so read the
ratios first; single-user latency is what the dashboard's polling needs.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

MEMORIES = 10_000
WARM_UP = 30
REQUESTS = 200
TARGET_P99_MS = 50.0
SERVICES = [f"service-{number:02d}" for number in range(40)]
WORDS = ("restart", "takes", "seconds", "health", "check", "returns", "after", "database", "lock", "proxy",
         "upstream", "timeout", "retry", "container", "disk", "backup", "nightly", "certificate", "renewal", "dns")


def fill(state_dir: Path) -> None:
    """10,000 memories with the spread a long-lived install has (services, categories, confidences)."""
    from claudeops_memory.models import CATEGORIES, Memory

    from claudeops.app import App
    from claudeops.store import close_store, db

    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(state_dir)}, entry_points=False)
    app.open_store()
    generator = random.Random(15)
    stamp = "2026-11-01T12:00:00Z"
    rows = []
    for _ in range(MEMORIES):
        confidence = round(generator.uniform(0.05, 1.0), 2)
        rows.append({"service": generator.choice([*SERVICES, None]), "category": generator.choice(CATEGORIES),
                     "observation": " ".join(generator.choices(WORDS, k=generator.randint(6, 18))).capitalize(),
                     "confidence": confidence, "active": confidence >= 0.3, "created_at": stamp, "updated_at": stamp,
                     "session_id": None, "tier": generator.randint(1, 3)})
    with db.atomic():
        for start in range(0, len(rows), 500):
            Memory.insert_many(rows[start:start + 500]).execute()
    close_store()


PLAIN_TEMPLATE = """<!doctype html><title>memories</title><table>
{% for id, service, category, observation, confidence, active, updated_at in rows %}
<tr id="memory-{{ id }}"><td>{{ service or "general" }}</td><td>{{ category }}</td><td>{{ observation }}</td>
<td>{{ "%.2f"|format(confidence) }}</td><td>{{ "active" if active else "inactive" }}</td><td>{{ updated_at }}</td></tr>
{% endfor %}</table>"""
PLAIN_QUERY = ("SELECT id, service, category, observation, confidence, active, updated_at FROM memories "
               "ORDER BY confidence DESC, id DESC LIMIT 50")


def _plain_app(state_dir: str) -> object:
    """A minimal Litestar + Jinja page: one plain query of the 50 rows, one template (the baseline)."""
    import sqlite3
    import threading

    from jinja2 import Environment
    from litestar import Litestar, MediaType, get

    template = Environment(autoescape=True).from_string(PLAIN_TEMPLATE)
    local = threading.local()

    @get("/plain", sync_to_thread=True, media_type=MediaType.HTML)
    def plain() -> str:
        if not hasattr(local, "connection"):
            local.connection = sqlite3.connect(f"{state_dir}/claudeops.db", check_same_thread=False)
        return template.render(rows=local.connection.execute(PLAIN_QUERY).fetchall())

    return Litestar([plain])


def serve(kind: str, port: int, state_dir: str) -> None:
    """A baseline's server process: the plain page, or a bare Litestar app with one static-string handler."""
    import uvicorn
    from litestar import Litestar, get

    if kind == "bare":
        @get("/hello", sync_to_thread=False)
        def hello() -> str:
            return "hello"

        asgi = Litestar([hello])
    else:
        asgi = _plain_app(state_dir)
    uvicorn.run(asgi, host="127.0.0.1", port=port, access_log=False, log_level="warning")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(kind: str, state_dir: Path) -> tuple[subprocess.Popen[bytes], int]:
    """A server on a free port: ``bare``, ``plain``, or ``dashboard-N`` (``claudeops web --workers N``)."""
    port = free_port()
    if kind.startswith("dashboard"):
        command = [sys.executable, "-m", "claudeops", "--state-dir", str(state_dir), "web", "--port", str(port),
                   "--workers", kind.removeprefix("dashboard-")]
    else:
        command = [sys.executable, __file__, "--serve", kind, "--port", str(port), "--state-dir", str(state_dir)]
    process = subprocess.Popen(command, cwd=state_dir, stderr=subprocess.DEVNULL,
                               env={name: value for name, value in os.environ.items()
                                    if not name.startswith("CLAUDEOPS_")})
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process, port
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"the {kind} server did not start")


def measure(port: int, path: str, headers: dict[str, str] | None = None,
            before_each: Callable[[], None] | None = None) -> list[float]:
    """Milliseconds per request, sequential, one keep-alive connection; ``before_each`` runs untimed."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    timings = []
    for index in range(WARM_UP + REQUESTS):
        if before_each is not None:
            before_each()
        began = time.perf_counter()
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        body = response.read()
        elapsed = (time.perf_counter() - began) * 1000
        if response.status != 200 or not body:
            raise SystemExit(f"GET {path} answered {response.status}")
        if index >= WARM_UP:
            timings.append(elapsed)
    connection.close()
    return timings


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def throughput(port: int, path: str, headers: dict[str, str] | None = None) -> float:
    """Requests per second at concurrency 16 (``wrk``, 2 threads, 10 s)."""
    command = ["wrk", "-t2", "-c16", "-d10s", *(arg for name, value in (headers or {}).items()
                                                 for arg in ("-H", f"{name}: {value}")), f"http://127.0.0.1:{port}{path}"]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    return float(next(line for line in output.splitlines() if line.startswith("Requests/sec")).split()[1])


ENDPOINTS = {"/memories (full page)": ("/memories", None),
             "/memories (htmx poll)": ("/memories", {"HX-Request": "true"}),
             "/api/v1/memories": ("/api/v1/memories", None)}


class Writer:
    """Commits a write from this process before each request: to a table of its own (every answer kept by
    the whole-database stamp is stale), or to a memory on the first page (what the table shows is stale)."""

    def __init__(self, state_dir: Path) -> None:
        self.connection = sqlite3.connect(state_dir / "claudeops.db", isolation_level=None, timeout=10)
        self.connection.execute("CREATE TABLE IF NOT EXISTS bench_writes (at REAL)")
        self.shown = [row[0] for row in self.connection.execute(
            "SELECT id FROM memories ORDER BY confidence DESC, id DESC LIMIT 50")]
        self.edits = 0

    def other_table(self) -> None:
        self.connection.execute("INSERT INTO bench_writes VALUES (?)", (time.time(),))

    def memory(self) -> None:
        """Edit the observation of the next memory shown (adding or taking back a suffix)."""
        memory_id = self.shown[self.edits % len(self.shown)]
        self.edits += 1
        self.connection.execute("UPDATE memories SET observation = CASE WHEN observation LIKE '% (edited)' "
                                "THEN substr(observation, 1, length(observation) - 9) "
                                "ELSE observation || ' (edited)' END WHERE id = ?", (memory_id,))

    def close(self) -> None:
        self.connection.execute("DROP TABLE bench_writes")
        self.connection.close()


CASES = ("hit", "miss, other table", "miss, memory")


def one_size(rows: int, with_wrk: bool) -> tuple[bool, bool]:
    """Measure every endpoint over ``rows`` memories; (p99 target met, 2x-the-plain-page target met)."""
    from memory_data import copy_database, size_label

    with tempfile.TemporaryDirectory(prefix="claudeops-bench-") as temporary:
        state_dir = Path(temporary)
        if rows == MEMORIES:
            fill(state_dir)
        else:
            copy_database(rows, state_dir)
        kinds = ("bare", "plain", "dashboard-1", *(("dashboard-2",) if with_wrk else ()))
        servers = {kind: start(kind, state_dir) for kind in kinds}
        writer = Writer(state_dir)
        try:
            baseline = measure(servers["bare"][1], "/hello")
            plain = measure(servers["plain"][1], "/plain")
            port = servers["dashboard-1"][1]
            before = {"hit": None, "miss, other table": writer.other_table, "miss, memory": writer.memory}
            results = {f"{name} {case}": measure(port, path, headers, before[case])
                       for name, (path, headers) in ENDPOINTS.items() for case in CASES}
            rates = {}
            if with_wrk:
                rates = {"plain page (1 worker)": throughput(servers["plain"][1], "/plain"),
                         **{f"{name}, {workers} worker{'s' if workers > 1 else ''}":
                            throughput(servers[f"dashboard-{workers}"][1], path, headers)
                            for name, (path, headers) in ENDPOINTS.items() for workers in (1, 2)}}
        finally:
            writer.close()
            for process, _ in servers.values():
                process.terminate()
                process.wait(timeout=10)
    base_p50, base_p99 = percentile(baseline, 0.5), percentile(baseline, 0.99)
    plain_p50 = percentile(plain, 0.5)
    print(f"\n{size_label(rows)} memories: {REQUESTS} sequential requests each after {WARM_UP} warm-up, one keep-alive "
          f"connection; load average {os.getloadavg()[0]:.1f}")
    print(f"{'endpoint':40} {'p50 ms':>8} {'p99 ms':>8} {'p50 ×bare':>10} {'p99 ×bare':>10} {'p50 ×plain':>11}")
    print(f"{'bare Litestar /hello':40} {base_p50:8.2f} {base_p99:8.2f} {1:10.1f} {1:10.1f}")
    print(f"{'plain Litestar+Jinja page':40} {plain_p50:8.2f} {percentile(plain, 0.99):8.2f} "
          f"{plain_p50 / base_p50:10.1f} {percentile(plain, 0.99) / base_p99:10.1f} {1:11.2f}")
    within_plain = dict.fromkeys(CASES, True)
    for name, timings in results.items():
        p50, p99 = percentile(timings, 0.5), percentile(timings, 0.99)
        case = next(case for case in CASES if name.endswith(case))
        within_plain[case] = within_plain[case] and p50 <= 2 * plain_p50
        print(f"{name:40} {p50:8.2f} {p99:8.2f} {p50 / base_p50:10.1f} {p99 / base_p99:10.1f} {p50 / plain_p50:11.2f}")
    for name, rate in rates.items():
        print(f"  wrk, 16 connections: {name:36} {rate:8.0f} req/s")
    memories_p99 = max(percentile(results[f"/memories (full page) {case}"], 0.99) for case in CASES)
    verdict = "meets" if memories_p99 < TARGET_P99_MS else "MISSES"
    print(f"/memories p99 {memories_p99:.1f} ms {verdict} the target of {TARGET_P99_MS:.0f} ms; every endpoint "
          "<= 2x the plain page (p50): " + ", ".join(f"{case} {'met' if met else 'NOT met'}"
                                                      for case, met in within_plain.items()))
    return memories_p99 < TARGET_P99_MS, all(within_plain.values())


def main(sizes: tuple[int, ...], with_wrk: bool) -> int:
    verdicts = [one_size(rows, with_wrk) for rows in sizes]
    return 0 if all(p99 for p99, _ in verdicts) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", choices=["bare", "plain"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--state-dir", help=argparse.SUPPRESS)
    parser.add_argument("--sizes", default="10k", help="numbers of memories, e.g. 1k,100k (default 10k)")
    parser.add_argument("--wrk", action="store_true", help="also measure throughput at concurrency 16 with wrk")
    arguments = parser.parse_args()
    if arguments.serve:
        serve(arguments.serve, arguments.port, arguments.state_dir)
    else:
        from memory_data import parse_sizes

        sys.exit(main(parse_sizes(arguments.sizes), arguments.wrk))
