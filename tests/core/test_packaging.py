"""The distribution: the same imports and resources from the editable install and a built wheel.

The wheel is built and installed into a fresh virtual environment from uv's cache only
(``--offline``): .ci/setup has already downloaded everything, and tests never reach the network.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

PROBE = r"""
import importlib, json, pathlib, sys
from click.testing import CliRunner
from claudeops.app import App
from claudeops.cli.group import build_cli
from claudeops.runner.prompts import load_tier_prompt

report = {}
for name in ("claudeops", "claudeops_memory", "claudeops_events", "claudeops_cooldowns", "claudeops_inventory",
             "claudeops_alerts", "claudeops_health", "claudeops_notify", "claudeops_budget", "claudeops_metrics",
             "claudeops_web"):
    root = pathlib.Path(importlib.import_module(name).__file__).parent
    report[name] = sorted(str(path.relative_to(root)) for path in root.rglob("*")
                          if path.suffix in {".html", ".css", ".js"})
app = App.load(None, {"CLAUDEOPS_STATE_DIR": sys.argv[1]}, entry_points=False)
report["plugins"] = json.loads(CliRunner().invoke(build_cli(app), ["plugins", "--json"]).output)
report["prompts"] = {tier: len(load_tier_prompt(app.config, tier, app.markers)) for tier in (1, 2, 3)}
print(json.dumps(report, sort_keys=True))
"""


def resources(python: Path, state: Path) -> dict:
    """What ``python`` sees of our packages, run outside the source tree."""
    result = subprocess.run([str(python), "-c", PROBE, str(state)], capture_output=True, text=True,
                            cwd=state.parent, timeout=300, env={**os.environ, "PYTHONPATH": ""})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def uv() -> str:
    """The uv .ci/setup installed into the venv, else one on PATH."""
    beside = Path(sys.executable).parent / "uv"
    found = str(beside) if beside.is_file() else shutil.which("uv")
    if found is None:
        pytest.fail("uv is not installed; run .ci/setup")
    return found


@pytest.mark.slow
def test_wheel_in_a_fresh_venv_imports_like_the_editable_install(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([uv(), "build", "--offline", "--wheel", "--out-dir", str(dist), str(REPO)], check=True,
                   capture_output=True, timeout=300)
    (wheel,) = dist.glob("claudeops-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([uv(), "venv", "--quiet", str(venv), "--python", sys.executable], check=True, timeout=120)
    python = venv / "bin" / "python"
    for args in (["--require-hashes", "-r", str(REPO / "requirements.lock")], ["--no-deps", str(wheel)]):
        subprocess.run([uv(), "pip", "install", "--quiet", "--offline", "--python", str(python), *args],
                       check=True, capture_output=True, timeout=600)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    from_wheel = resources(python, tmp_path / "a" / "state")
    from_editable = resources(Path(sys.executable), tmp_path / "b" / "state")
    assert from_wheel == from_editable
    assert {plugin["name"] for plugin in from_wheel["plugins"]} >= {
        "claudeops_memory", "claudeops_events", "claudeops_cooldowns", "claudeops_inventory", "claudeops_alerts",
        "claudeops_health", "claudeops_notify", "claudeops_budget", "claudeops_metrics", "claudeops_web"}
    assert all(size > 1000 for size in from_wheel["prompts"].values())
