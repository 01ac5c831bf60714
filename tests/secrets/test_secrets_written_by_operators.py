"""No secret anywhere, when an operator pastes one: a memory added and edited from the command line,
the dashboard's form and the JSON API is stored redacted, answered redacted, and recorded as one
warning event naming the kind (never the value); the raw database file holds none of it.

The dashboard requests carry a bearer token, which (like an API client) needs no CSRF token.
"""

from __future__ import annotations

import secrets as token_source
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from claudeops_events.repository import list_events
from claudeops_memory import repository
from litestar.testing import TestClient
from secrets_helpers import IDS, SECRETS, Secret, leaked, leaks_in_files

from claudeops.app import App
from claudeops.redaction import REDACTED

WARNING = "secret redacted from {what}: "


def warnings_about(what: str) -> list[str]:
    return [event.message for event in list_events(level="warning") if event.message.startswith(
        WARNING.format(what=what))]


@pytest.mark.parametrize("secret", SECRETS, ids=IDS)
def test_the_command_line_stores_and_prints_a_pasted_secret_redacted_and_warns(secret: Secret, secrets_app: App,
                                                                              invoke_cli: Callable[..., Any]):
    added = invoke_cli("memories", "add", "--category", "behavior", "--service", "vault", f"backups use {secret.text}")
    assert added.exit_code == 0 and "removed from the observation" in added.stderr
    [memory] = repository.list_memories()
    edited = invoke_cli("memories", "edit", str(memory.id), "--observation", f"restic reads {secret.text}")
    listed = invoke_cli("memories", "list", "--json")

    for result in (added, edited, listed):
        assert result.exit_code == 0 and leaked(result.output) == [] and leaked(result.stderr) == []
    assert REDACTED in repository.get_memory(memory.id).observation
    assert len(warnings_about(f"memory #{memory.id}, added by an operator")) == 1
    assert len(warnings_about(f"the new text of memory #{memory.id}, edited by an operator")) == 1
    assert leaks_in_files(secrets_app.state_dir) == {}


@pytest.fixture
def dashboard(make_claudeops_app: Callable[..., App]) -> Iterator[tuple[TestClient, App]]:
    """The dashboard of every plugin, behind a token its client sends as a bearer; and its app."""
    from claudeops_web import create_app

    token = token_source.token_urlsafe(32)
    app = make_claudeops_app({"CLAUDEOPS_WEB_TOKEN": token})
    with TestClient(app=create_app(app), base_url="http://127.0.0.1:8080") as client:
        client.headers["Authorization"] = f"Bearer {token}"
        yield client, app


@pytest.mark.parametrize("secret", SECRETS, ids=IDS)
def test_the_dashboard_form_stores_and_shows_a_pasted_secret_redacted_and_warns(
        secret: Secret, dashboard: tuple[TestClient, App]):
    client, app = dashboard
    added = client.post("/memories", data={"category": "behavior", "service": "vault",
                                              "observation": f"backups use {secret.text}"}, follow_redirects=True)
    [memory] = repository.list_memories()
    edited = client.put(f"/memories/{memory.id}", data={"observation": f"restic reads {secret.text}"})
    saved = client.post(f"/memories/{memory.id}/edit", data={"observation": f"restic needs {secret.text}"},
                        follow_redirects=True)  # the edit page's plain form, without JavaScript
    page = client.get("/memories")

    for response in (added, edited, saved, page):
        assert response.status_code == 200 and leaked(response.text) == []
    assert REDACTED in page.text
    assert len(warnings_about(f"memory #{memory.id}, added by an operator in the dashboard")) == 1
    assert len(warnings_about(f"the new text of memory #{memory.id}, edited by an operator in the dashboard")) == 2
    assert leaks_in_files(app.state_dir) == {}


@pytest.mark.parametrize("secret", SECRETS, ids=IDS)
def test_the_api_stores_and_answers_a_pasted_secret_redacted_and_warns(secret: Secret,
                                                                       dashboard: tuple[TestClient, App]):
    client, app = dashboard
    added = client.post("/api/v1/memories", json={"category": "behavior", "service": "vault",
                                                     "observation": f"backups use {secret.text}"})
    memory_id = added.json()["id"]
    edited = client.patch(f"/api/v1/memories/{memory_id}", json={"observation": f"restic reads {secret.text}"})
    listed = client.get("/api/v1/memories")
    events = client.get("/api/v1/events")

    for response in (added, edited, listed, events):
        assert response.status_code in (200, 201) and leaked(response.text) == []
    assert REDACTED in edited.json()["observation"]
    assert len(warnings_about(f"memory #{memory_id}, added by an operator through the API")) == 1
    assert len(warnings_about(f"the new text of memory #{memory_id}, edited by an operator through the API")) == 1
    assert leaks_in_files(app.state_dir) == {}
