"""Fixtures of the inventory plugin's tests: an app with an inventory written to a config file,
the events plugin (refusals are events, statuses come from events) and the inventory plugin, on
a fake clock standing at 2026-05-05 12:00 UTC (a Tuesday) until a test moves it."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from claudeops.app import App
from claudeops.clock import FakeClock

BUILTINS = ("claudeops.environment", "claudeops.escalation", "claudeops_events", "claudeops_inventory",
            "claudeops_web")
INVENTORY = """\
[services.postgres]
kind = "container"
container = "postgres-16"
maintenance = ["0 3 * * sun 2h"]

[services.nextcloud]
kind = "container"
health_url = "https://cloud.example.net/status.php"
after = ["postgres"]

[services.jellyfin]
kind = "systemd"
unit = "jellyfin.service"
host = "media.lan"

[services.nas]
kind = "vm"
host = "admin@nas.lan"
remediate = false
"""


@pytest.fixture
def claudeops_builtins() -> tuple[str, ...]:
    return BUILTINS


@pytest.fixture
def claudeops_clock() -> FakeClock:
    return FakeClock(moment=datetime(2026, 5, 5, 12, 0, 0, tzinfo=UTC))


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


@pytest.fixture
def dashboard(app: App):
    """A test client of the app's dashboard, holding the CSRF cookie and sending it as the pages do."""
    from claudeops_web import create_app
    from litestar.testing import TestClient

    with TestClient(app=create_app(app), base_url="http://127.0.0.1:8080") as client:
        client.get("/login")
        client.headers["x-csrftoken"] = client.cookies["csrftoken"]
        yield client
