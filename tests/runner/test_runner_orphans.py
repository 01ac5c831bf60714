"""A runner killed with SIGKILL takes its Claude Code CLI with it; the next run reaps what is left.

The real command line (``runner_driver.py``) starts the real bundled CLI against the fake API,
whose first answer comes only after a delay: a CLI that outlived its runner would receive it,
run the tool it asks for and call the API again.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_api import bash, text

from claudeops.runner.chain import RunRequest, execute
from claudeops.runner.orphans import CLI_PID_FILE, reap_stale_cli, record_cli

TESTS = Path(__file__).resolve().parent
EXAMPLES = TESTS.parents[1] / "examples" / "sessions"


def alive(pid: int) -> bool:
    """Whether ``pid`` is a process that still runs (a zombie waiting for its reaper does not)."""
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def start_run(state_dir: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "CLAUDEOPS_STATE_DIR": str(state_dir), "PYTHONPATH": str(TESTS)}
    return subprocess.Popen([sys.executable, str(TESTS / "runner_driver.py"), "run", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


@pytest.mark.e2e
def test_sigkill_of_the_runner_kills_its_cli_and_the_api_hears_no_more(runner_app, state_dir, fake_api):
    delayed = bash("echo still-here")
    delayed.delay = 3.0  # answered after the runner is dead: a surviving CLI would run it and ask again
    fake_api.script(delayed, text("done"))
    runner = start_run(state_dir, "--tier", "2", "--no-escalate")
    try:
        assert fake_api.wait_for_requests(1, timeout=60), "the CLI never reached the API"
        cli = int((state_dir / CLI_PID_FILE).read_text().split()[0])
        assert alive(cli)
        runner.send_signal(signal.SIGKILL)
        runner.wait(timeout=10)
        assert gone_within(cli, 5), "the CLI outlived its runner"
        time.sleep(4)  # past the delayed answer: a live CLI would have sent its second request by now
    finally:
        runner.kill()
        runner.communicate()
    assert len(fake_api.messages()) == 1


def test_the_next_run_kills_what_a_dead_runs_cli_left_running(runner_app, state_dir):
    """A tool command the CLI started (here: ``sleep``) shares the CLI's session and is reaped with it."""
    stray = subprocess.Popen(["sleep", "60"], start_new_session=True)  # a session of its own, as the CLI's
    try:
        record_cli(state_dir, stray.pid)
        result = execute(runner_app, RunRequest.replaying([EXAMPLES / "healthy-tier1.jsonl"]))
        assert result.exit_code == 0
        assert stray.wait(timeout=5) == -signal.SIGKILL
        assert not (state_dir / CLI_PID_FILE).exists()
    finally:
        stray.kill()


def test_a_pid_now_held_by_another_process_is_left_alone(state_dir):
    """The trail names a pid and its start time: a process that reused the pid is not the CLI."""
    bystander = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        (state_dir / CLI_PID_FILE).write_text(f"{bystander.pid} 1\n")  # started at tick 1: long before it
        assert reap_stale_cli(state_dir) == 0
        assert bystander.poll() is None and not (state_dir / CLI_PID_FILE).exists()
    finally:
        bystander.kill()
        bystander.wait()


@pytest.mark.e2e
def test_a_session_that_ends_leaves_no_trail(runner_app, state_dir, fake_api):
    fake_api.script(text("All healthy."))
    result = execute(runner_app, RunRequest(tier=2))
    assert [report.status for report in result.sessions] == ["completed"]
    assert not (state_dir / CLI_PID_FILE).exists()
