"""``web.workers``: several uvicorn processes serve one dashboard, and what guards a promise is shared.

The attack first: guesses of the token sent at once on many connections (which the kernel hands
to whichever worker accepts first) are limited to five a minute in all, not five per process.
Then: a bad value is one line and exit 2; the plugins' background tasks run in one process only;
a memory another process writes shows on the cached pages at once.
"""

from __future__ import annotations

import fcntl
import http.client
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from web_helpers import TOKEN, child_environment, running_dashboard

ALERT_TOKEN = "alert-token-for-worker-tests-0123"


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    state_dir: Path = tmp_path_factory.mktemp("workers")
    with running_dashboard(state_dir, {"CLAUDEOPS_WEB_TOKEN": TOKEN, "CLAUDEOPS_WEB_ALERT_TOKEN": ALERT_TOKEN,
                                       "CLAUDEOPS_WEB_WORKERS": "2"}) as url:
        yield url, state_dir


def _guess(url: str, path: str, address: str, token: str) -> int:
    """One token on a fresh connection (so any worker may take it); the alerts webhook is posted to."""
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(base_url=url, transport=transport, timeout=20) as client:
        method = "POST" if path == "/api/v1/alerts" else "GET"
        return client.request(method, path, headers={"Authorization": f"Bearer {token}"},
                              json={"name": "disk full"} if method == "POST" else None).status_code


def _log_in(url: str, address: str, token: str) -> int:
    transport = httpx.HTTPTransport(local_address=address)
    with httpx.Client(base_url=url, transport=transport, timeout=20) as client:
        page = client.get("/login")
        csrf = page.text.split('name="_csrf_token" value="', 1)[1].split('"', 1)[0]
        return client.post("/login", data={"token": token, "next": "/", "_csrf_token": csrf}).status_code


def test_guesses_spread_over_the_workers_are_still_five_a_minute(two_workers: tuple[str, Path]) -> None:
    url, _ = two_workers
    with ThreadPoolExecutor(max_workers=16) as pool:
        statuses = list(pool.map(lambda number: _guess(url, "/api/v1/memories", "127.0.0.31",
                                                        f"wrong-token-number-{number:04d}-x"), range(24)))
    assert statuses.count(401) == 5, statuses
    assert statuses.count(429) == 19, statuses
    assert _log_in(url, "127.0.0.31", TOKEN) == 429  # even the right token is not checked now


def test_login_form_webhook_and_bearer_guesses_count_together_across_workers(two_workers: tuple[str, Path]) -> None:
    url, _ = two_workers
    address = "127.0.0.32"
    with ThreadPoolExecutor(max_workers=9) as pool:
        statuses = list(pool.map(lambda number: (
            _log_in(url, address, f"wrong-login-{number:04d}-abcdef") if number % 3 == 0
            else _guess(url, "/api/v1/alerts" if number % 3 == 1 else "/memories", address,
                        f"wrong-bearer-{number:04d}-abcdef")), range(18)))
    assert sum(status in (401, 303) for status in statuses) == 5, statuses
    assert statuses.count(429) == 13, statuses


def test_the_right_token_is_never_counted(two_workers: tuple[str, Path]) -> None:
    url, _ = two_workers
    with ThreadPoolExecutor(max_workers=8) as pool:
        statuses = list(pool.map(lambda _: _guess(url, "/api/v1/memories", "127.0.0.33", TOKEN), range(20)))
    assert statuses == [200] * 20


def test_a_memory_written_by_another_process_shows_at_once(two_workers: tuple[str, Path]) -> None:
    """The pages are cached until the data changes: a write by the CLI (another process) is seen by
    every worker on its next request, the page, its poll and the JSON list alike."""
    url, state_dir = two_workers
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=url, headers=headers, timeout=20) as client:
        for _ in range(4):  # fill the caches of both workers
            client.get("/memories"), client.get("/memories", headers={"HX-Request": "true"})
            client.get("/api/v1/memories")
        subprocess.run([sys.executable, "-m", "claudeops", "memories", "add", "--service", "jellyfin",
                        "--category", "behavior", "Cached pages still show a write of another process"],
                       env=child_environment(state_dir), cwd=state_dir, check=True, capture_output=True)
        for _ in range(4):
            assert "Cached pages still show a write of another process" in client.get("/memories").text
            assert "Cached pages still show a write of another process" in client.get(
                "/memories", headers={"HX-Request": "true"}).text
            assert "Cached pages still show a write of another process" in client.get("/api/v1/memories").text


def test_answers_of_the_workers_do_not_wait_for_a_delayed_ack(two_workers: tuple[str, Path]) -> None:
    """uvicorn's socket for workers is not known as TCP, so no TCP_NODELAY: each JSON answer (headers, then
    body) waited 40 ms for the client's delayed ACK, 22 requests/s. On a kept-alive connection a cached
    answer takes about a millisecond."""
    url, _ = two_workers
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=20)
    timings = []
    for _ in range(25):
        began = time.perf_counter()
        connection.request("GET", "/api/v1/memories", headers={"Authorization": f"Bearer {TOKEN}"})
        response = connection.getresponse()
        response.read()
        timings.append(time.perf_counter() - began)
        assert response.status == 200
    connection.close()
    assert statistics.median(timings) < 0.030, timings


@pytest.mark.parametrize(("given", "message"), [
    (["--workers", "-1"], "web.workers must be between 0 (one per CPU core) and 64, not -1"),
    (["--workers", "65"], "web.workers must be between 0 (one per CPU core) and 64, not 65"),
])
def test_a_bad_number_of_workers_is_one_line(tmp_path: Path, given: list[str], message: str) -> None:
    result = subprocess.run([sys.executable, "-m", "claudeops", "web", *given], env=child_environment(tmp_path),
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip() == f"Error: {message}"


def test_background_tasks_run_in_one_worker_at_a_time(tmp_path: Path) -> None:
    """Two processes want the tasks lock: one runs the tasks; the other takes over when it ends."""
    program = ("import asyncio, os, sys, pathlib\n"
               "from claudeops_web.app import _when_locked\n"
               "async def task():\n"
               "    with open(sys.argv[2], 'a') as log: log.write(f'{os.getpid()}\\n')\n"
               "    await asyncio.sleep(3600)\n"
               "asyncio.run(_when_locked(pathlib.Path(sys.argv[1]), [task]))\n")
    lock, log = tmp_path / "web-tasks.lock", tmp_path / "ran"
    first, second = (subprocess.Popen([sys.executable, "-c", program, str(lock), str(log)]) for _ in range(2))
    try:
        _wait_for(lambda: log.is_file() and len(log.read_text().split()) >= 1)
        time.sleep(2.5)  # the other asks for the lock every second
        runners = log.read_text().split()
        assert len(runners) == 1
        holder = first if runners[0] == str(first.pid) else second
        holder.kill()
        holder.wait()
        _wait_for(lambda: len(log.read_text().split()) == 2)
        assert log.read_text().split()[1] != runners[0]
    finally:
        for process in (first, second):
            process.kill()
            process.wait()


def test_a_failing_background_task_keeps_the_lock_while_the_others_run(tmp_path: Path) -> None:
    """Were the lock freed when one task fails, another worker would start the others a second time."""
    program = ("import asyncio, logging, sys, pathlib\n"
               "from claudeops_web.app import _when_locked\n"
               "logging.basicConfig()\n"
               "async def failing():\n"
               "    raise RuntimeError('boom')\n"
               "async def queue():\n"
               "    await asyncio.sleep(3600)\n"
               "asyncio.run(_when_locked(pathlib.Path(sys.argv[1]), [failing, queue]))\n")
    lock = tmp_path / "web-tasks.lock"
    holder = subprocess.Popen([sys.executable, "-c", program, str(lock)], stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(lock.is_file)
        time.sleep(1.5)  # the failing task has failed by now
        with lock.open("a") as handle, pytest.raises(BlockingIOError):
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert holder.poll() is None
    finally:
        holder.kill()
        holder.wait()
    assert "a background task of the dashboard failed: RuntimeError: boom" in holder.stderr.read()  # type: ignore[union-attr]


def _wait_for(condition: object, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)
