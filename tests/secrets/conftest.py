"""Fixtures of the "no secret anywhere" tests: an app of every built-in plugin plus the example
third-party plugin (``claudeops_ticket``, whose handler does nothing about secrets) and a recorder
of the system prompt each session was given (see ``secrets_helpers`` for the secrets)."""

from __future__ import annotations

from typing import Any

import claudeops_ticket
import pytest
from secrets_helpers import PromptRecorder

from claudeops.app import App
from claudeops.plugins import DEFAULT_PLUGINS


@pytest.fixture
def prompts() -> PromptRecorder:
    return PromptRecorder()


@pytest.fixture
def claudeops_builtins() -> tuple[str, ...]:
    return DEFAULT_PLUGINS


@pytest.fixture
def claudeops_plugins(prompts: PromptRecorder) -> list[Any]:
    return [claudeops_ticket, prompts]


@pytest.fixture
def secrets_app(claudeops_app: App) -> App:
    """Every built-in plugin, the ticket plugin and the prompt recorder, store migrated."""
    return claudeops_app
