"""Isolation for the whole suite: no test sees the developer's config, state or plugins."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs in an empty working directory with its own state dir and no CLAUDEOPS_*."""
    for name in list(os.environ):
        if name.startswith("CLAUDEOPS_") or name.startswith("ANTHROPIC_"):
            monkeypatch.delenv(name)
    state = tmp_path / "state"
    monkeypatch.setenv("CLAUDEOPS_STATE_DIR", str(state))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
