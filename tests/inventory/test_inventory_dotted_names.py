"""A service whose name has a dot (``home.assistant``) is declared, listed, shown, paused and
guarded like any other: the inventory follows the one service-name rule (``claudeops.service_name``
with dots, as events, pauses and cooldowns do), so such a service is never "not in the inventory"."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest

from claudeops import pause_service

INVENTORY = """\
[services."home.assistant"]
kind = "container"
container = "homeassistant"

[services.zigbee2mqtt]
kind = "container"
after = ["home.assistant"]
"""


@pytest.fixture
def config_text() -> str:
    return INVENTORY


def test_a_dotted_service_is_in_the_inventory_and_its_findings_are_not_flagged(app, make_session, feed_text,
                                                                               invoke_cli):
    assert app.config.inventory.names == ["home.assistant", "zigbee2mqtt"]
    assert app.config.inventory.get("zigbee2mqtt").after == ("home.assistant",)
    feed_text(make_session(), "[EVENT:critical:home.assistant] HTTP 502")
    listed = invoke_cli("services", "list").output
    assert "home.assistant" in listed and "NOT IN THE INVENTORY" not in listed
    shown = json.loads(invoke_cli("services", "show", "home.assistant", "--json").output)
    assert (shown["name"], shown["status"], shown["needed_by"]) == ("home.assistant", "down", ["zigbee2mqtt"])


def test_a_paused_dotted_service_is_guarded(app, make_session, claudeops_clock):
    pause_service("Home.Assistant", claudeops_clock() + timedelta(hours=1), "", "cli", now=claudeops_clock())
    command = "docker restart homeassistant"
    reason = app.hook.check_tool_use(session=make_session(tier=3), tool_name="Bash", tool_input={"command": command})
    assert reason is not None and "would change home.assistant, which is in maintenance until" in reason
