"""Fixtures and helpers shared by the memory plugin's tests (``tests/test_memory_*.py``).

The app loads only the core built-ins and the memory plugin, so these tests do not depend on
the other plugins; each test gets its own SQLite database in its temporary state dir.
Test modules import the ``*_fixture`` functions, which pytest then offers under their names
(``memory_app``, ``load_memory_app``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from claudeops_memory import repository
from claudeops_memory.models import Memory

import claudeops.clock
from claudeops.app import App
from claudeops.clock import to_timestamp
from claudeops.session import Session
from claudeops.session_rows import SessionRow
from claudeops.store import close_store

MEMORY_BUILTINS = ("claudeops.environment", "claudeops.escalation", "claudeops_memory")
START = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)


@dataclass
class FakeClock(claudeops.clock.FakeClock):
    """The shared fake clock, starting at this suite's ``START``."""

    moment: datetime = START


@dataclass
class LoadedApp:
    """What a memory test needs: the app, the clock every session shares, and helpers."""

    app: App
    clock: FakeClock = field(default_factory=FakeClock)

    @property
    def settings(self) -> Any:
        return self.app.config.section("memory")

    def session(self, tier: int = 1, session_id: int | None = None, **fields: Any) -> Session:
        """A session with a real ``sessions`` row (id chosen by the database unless given)."""
        chosen = {} if session_id is None else {"id": session_id}
        row = SessionRow.create(**chosen, tier=tier, model="haiku", trigger="test", status="running",
                                started_at=to_timestamp(self.clock()))
        return Session(id=row.id, tier=tier, model="haiku", trigger="test", config=self.app.config,
                       hook=self.app.hook, clock=self.clock, **fields)

    def emit(self, session: Session, text: str) -> None:
        """Dispatch one assistant text block's markers exactly as the runner's stream does."""
        for candidate in self.app.markers.candidates(text):
            marker = candidate.parse()
            if marker is None:
                if candidate.marker_type.on_malformed is not None:
                    candidate.marker_type.on_malformed(session, candidate.text)
            else:
                candidate.marker_type.handler(session, marker)

    def handle(self, session: Session, text: str) -> object:
        """The memory handler's answer for the one marker in ``text``; ``False`` means nothing was
        recorded, and the runner then does not count the marker."""
        [candidate] = self.app.markers.candidates(text)
        marker = candidate.parse()
        assert marker is not None, text
        return candidate.marker_type.handler(session, marker)

    def remember(self, observation: str, *, category: str = "timing", service: str | None = None,
                 confidence: float = 0.7, days_ago: float = 0, active: bool | None = None) -> repository.MemoryRecord:
        """Store a memory as if last reinforced ``days_ago`` days before the clock's now."""
        stamp = self.clock.stamp(days=days_ago)
        memory = repository.create_memory(category=category, observation=observation, service=service,
                                          confidence=confidence, now=stamp)
        if active is not None:
            Memory.update({Memory.active: active}).where(Memory.id == memory.id).execute()
        return repository.get_memory(memory.id)  # type: ignore[return-value]


def load_app(**environ: str) -> App:
    """A fresh app with the memory plugin; ``environ`` adds variables (e.g. the budget)."""
    import os

    env = {key: value for key, value in os.environ.items() if key.startswith("CLAUDEOPS_")} | environ
    app = App.load(None, env, entry_points=False, builtins=MEMORY_BUILTINS)
    app.open_store()
    return app


@pytest.fixture(name="memory_app")
def memory_app_fixture() -> Iterator[LoadedApp]:
    """The memory plugin loaded over a fresh, migrated SQLite database."""
    yield LoadedApp(load_app())
    close_store()


@pytest.fixture(name="load_memory_app")
def load_memory_app_fixture() -> Iterator[Callable[..., LoadedApp]]:
    """Factory for tests that need their own environment: ``load_memory_app(CLAUDEOPS_X="1")``."""
    yield lambda **environ: LoadedApp(load_app(**environ))
    close_store()
