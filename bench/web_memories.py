"""How fast is the first page of /memories with 10,000 memories, next to a bare Litestar handler?

Run: ``.venv/bin/python bench/web_memories.py`` (about half a minute). It fills a temporary
state dir with 10,000 memories, serves the real dashboard and a one-handler Litestar app with
uvicorn (one worker each, access log off, in their own processes, as ``claudeops web`` runs),
and sends each endpoint sequentially over one keep-alive connection: 30 warm-up requests, then
200 timed ones. It prints p50 and p99 in milliseconds and as a ratio to the bare handler measured
in the same run, and exits 1 if the /memories p99 misses the target (50 ms).

Timings are wall-clock on a shared 2-core machine, client and server included, so read the
ratios first; single-user latency is what the dashboard's polling needs.
"""

from __future__ import annotations

import argparse
import http.client
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
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


def serve(kind: str, port: int, state_dir: str) -> None:
    """The server process: the dashboard, or a bare Litestar app with one static-string handler."""
    import uvicorn
    from litestar import Litestar, get

    if kind == "bare":
        @get("/hello", sync_to_thread=False)
        def hello() -> str:
            return "hello"

        asgi = Litestar([hello])
    else:
        from claudeops_web import create_app

        from claudeops.app import App
        from claudeops.store import close_store

        app = App.load(None, {"CLAUDEOPS_STATE_DIR": state_dir}, entry_points=False)
        app.open_store()
        close_store()
        asgi = create_app(app)
    uvicorn.run(asgi, host="127.0.0.1", port=port, access_log=False, log_level="warning")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(kind: str, state_dir: Path) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    process = subprocess.Popen([sys.executable, __file__, "--serve", kind, "--port", str(port),
                                "--state-dir", str(state_dir)])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return process, port
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"the {kind} server did not start")


def measure(port: int, path: str, headers: dict[str, str] | None = None) -> list[float]:
    """Milliseconds per request, sequential, one keep-alive connection."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    timings = []
    for index in range(WARM_UP + REQUESTS):
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


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="claudeops-bench-") as temporary:
        state_dir = Path(temporary)
        began = time.perf_counter()
        fill(state_dir)
        print(f"filled {MEMORIES:,} memories in {time.perf_counter() - began:.1f} s")
        bare, bare_port = start("bare", state_dir)
        dashboard, port = start("dashboard", state_dir)
        try:
            baseline = measure(bare_port, "/hello")
            results = {
                "/memories (full page)": measure(port, "/memories"),
                "/memories (htmx poll)": measure(port, "/memories", {"HX-Request": "true"}),
                "/api/v1/memories": measure(port, "/api/v1/memories"),
            }
        finally:
            for process in (bare, dashboard):
                process.terminate()
                process.wait(timeout=10)
    base_p50, base_p99 = percentile(baseline, 0.5), percentile(baseline, 0.99)
    print(f"{REQUESTS} sequential requests each after {WARM_UP} warm-up, one keep-alive connection")
    print(f"{'endpoint':26} {'p50 ms':>8} {'p99 ms':>8} {'p50 ×bare':>10} {'p99 ×bare':>10}")
    print(f"{'bare Litestar /hello':26} {base_p50:8.2f} {base_p99:8.2f} {1:10.1f} {1:10.1f}")
    for name, timings in results.items():
        p50, p99 = percentile(timings, 0.5), percentile(timings, 0.99)
        print(f"{name:26} {p50:8.2f} {p99:8.2f} {p50 / base_p50:10.1f} {p99 / base_p99:10.1f}")
    memories_p99 = percentile(results["/memories (full page)"], 0.99)
    verdict = "meets" if memories_p99 < TARGET_P99_MS else "MISSES"
    print(f"/memories p99 {memories_p99:.1f} ms {verdict} the target of {TARGET_P99_MS:.0f} ms")
    print(f"(mean {statistics.fmean(results['/memories (full page)']):.2f} ms)")
    return 0 if memories_p99 < TARGET_P99_MS else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--serve", choices=["bare", "dashboard"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--state-dir", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.serve:
        serve(arguments.serve, arguments.port, arguments.state_dir)
    else:
        sys.exit(main())
