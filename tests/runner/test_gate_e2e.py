"""End to end: the real SDK and the real Claude Code CLI at tier 1 try to write files and restart a container
through every construct the old block-list missed (issue 12); the read-only gate refuses each, nothing changes.

A fake ``docker`` first on ``PATH`` records every call, so a restart that got through would show;
the files the commands would create are looked for on disk afterwards.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from fake_api import bash, text

from claudeops.runner.chain import RunRequest, run_chain

pytestmark = pytest.mark.e2e


def file_writes(target: Path) -> list[str]:
    """Commands that would create a file under ``target`` (numbered, one file each)."""
    def path(number: int) -> str:
        return shlex.quote(str(target / f"written-{number}"))

    commands = [
        "for s in a; do touch {}; done", "if true; then touch {}; fi", "{{ touch {}; }}", "(touch {})",
        "! touch {}", "f(){{ touch {}; }}; f", "echo x > {}", "ls 2> {}", "$(echo touch) {}", "`echo touch` {}",
        "c=touch; $c {}", "sh -c 'touch '{}", "env touch {}", "xargs touch <<< {}", "echo {} | xargs touch",
        "find / -maxdepth 0 -exec touch {} \\;", "sort -o {} /etc/hostname", "sed -n 'w '{} /etc/hostname",
        "awk 'BEGIN {{ system(\"touch \" ARGV[1]) }}' {}", "cat /etc/hostname | tee {}", "tar -cf {} /etc/hostname",
        "python3 -c 'import sys; open(sys.argv[1], \"w\")' {}", "script -qc 'touch '{} /dev/null",
        "flock {} true", "echo touch {} | bash", "bash <<< 'touch '{}", "git -c alias.x='!touch '{} x",
        "cp /etc/hostname {}", "curl -sS -o {} http://127.0.0.1:9/", "timeout 5 touch {}", "sudo -n touch {}",
        "nohup touch {}", "watch -n 1 touch {}", "eval 'touch '{}",
        "wget -q --spider -O {} http://127.0.0.1:9/", "sqlite3 {} 'select 1'",
        "sqlite3 -readonly file:{}?mode=rwc 'select 1'",
    ]
    return [command.format(path(number)) for number, command in enumerate(commands)]


RESTARTS = [
    "$(echo docker) restart web", "`echo docker` restart web", "d=docker; $d restart web", 'd=docker; "$d" restart web',
    "for c in web; do docker restart $c; done", "if true; then docker restart web; fi", "eval docker restart web",
    "env docker restart web", "xargs docker restart <<< web", "echo web | xargs docker restart",
    "nohup docker restart web", "timeout 5 docker restart web", "sudo -n docker restart web",
    "sh -c 'docker restart web'", "bash -c 'docker ps; docker restart web'", "watch -n 1 docker restart web",
    "find / -maxdepth 0 -exec docker restart web \\;", "docker --log-level debug restart web",
    "script -qc 'docker restart web' /dev/null", "flock /dev/null docker restart web",
]


@pytest.fixture
def fake_docker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A ``docker`` first on PATH that appends its arguments to a log; returns the log."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "docker-calls.log"
    docker = bin_dir / "docker"
    docker.write_text(f'#!/bin/sh\necho "$*" >> {shlex.quote(str(log))}\necho "fake docker: $*"\n')
    docker.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return log


def test_tier_1_writes_no_file_and_restarts_nothing_through_any_construct(runner_app, fake_api, fake_docker,
                                                                           tmp_path):
    target = tmp_path / "targets"
    target.mkdir()
    attempts = [*file_writes(target), *RESTARTS]
    runner_app.config.override("tier1.max_turns", len(attempts) + 5)
    fake_api.script(bash("docker ps"), *(bash(command) for command in attempts), text("Nothing was changed."))

    [report] = run_chain(runner_app, RunRequest())

    results = fake_api.tool_results()
    assert report.status == "completed" and len(results) == len(attempts) + 1
    assert results[0]["is_error"] is False and "fake docker: ps" in str(results[0]["content"])
    for command, result in zip(attempts, results[1:], strict=True):
        assert result["is_error"] is True, command
        assert "tier 1 is read-only: refused `" in str(result["content"]), (command, result["content"])
    assert report.tools_denied == len(attempts)
    assert sorted(target.iterdir()) == []
    assert fake_docker.read_text() == "ps\n"
