"""Fixtures of the alerts plugin's tests: an app with an inventory and the alerts, events, inventory
and web plugins (the example bodies are in ``alert_payloads``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from claudeops.app import App

INVENTORY = """\
[services.jellyfin]
kind = "container"
[services.nextcloud]
kind = "container"
health_url = "https://cloud.example.net/status.php"
[services.postgres]
kind = "container"
"""

@pytest.fixture
def claudeops_builtins() -> tuple[str, ...]:
    return ("claudeops.environment", "claudeops.escalation", "claudeops_events", "claudeops_inventory",
            "claudeops_alerts", "claudeops_web")


@pytest.fixture
def config_text() -> str:
    """The configuration the app loads; a test module overrides this fixture to test another."""
    return INVENTORY


@pytest.fixture
def config_file(tmp_path: Path, config_text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(config_text)
    return path


@pytest.fixture
def claudeops_environ(config_file: Path) -> dict[str, str]:
    return {"CLAUDEOPS_CONFIG": str(config_file)}


@pytest.fixture
def app(claudeops_app: App) -> App:
    return claudeops_app
