"""The type check is part of the suite: mypy over the core and every plugin, as pyproject.toml configures it.

Run alone with ``.venv/bin/mypy`` from the repository root (see docs/testing.md). The incremental
cache lives in ``.mypy_cache/``, so a run after a small change takes seconds.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
import typing
from pathlib import Path

from claude_agent_sdk import PermissionMode, SettingSource

from claudeops.config import PERMISSION_MODES, SETTING_SOURCES

REPO = Path(__file__).resolve().parents[2]
PLUGIN_PACKAGES = ("plugins/*/__init__.py", "web/*/__init__.py", "examples/*/*/__init__.py")


def test_mypy_finds_no_errors():
    result = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(REPO / "pyproject.toml"),
                             "--cache-dir", str(REPO / ".mypy_cache")],
                            capture_output=True, text=True, cwd=REPO, timeout=280)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success: no issues found"), result.stdout


def test_mypy_checks_the_core_and_every_plugin_package():
    """A new plugin package must be added to [tool.mypy] packages, or it would go unchecked."""
    configured = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mypy"]["packages"]
    on_disk = {"claudeops"} | {init.parent.name for pattern in PLUGIN_PACKAGES for init in REPO.glob(pattern)}
    assert sorted(configured) == sorted(on_disk)


def test_validated_config_values_are_the_sdks_literals():
    """runner/options.py passes these settings (plain str once validated) where the SDK wants its Literal
    types, under a type: ignore: that is only sound while config accepts exactly the SDK's values."""
    assert set(PERMISSION_MODES) == set(typing.get_args(PermissionMode))
    assert set(SETTING_SOURCES) == set(typing.get_args(SettingSource))
