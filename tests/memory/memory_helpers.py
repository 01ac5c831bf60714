"""Helpers of the memory plugin's tests (``tests/memory/``); their fixtures are in ``conftest.py``.

:class:`LoadedApp` bundles what a memory test works with — the app, the clock its sessions
share, and the ``claudeops.testing`` session and text helpers bound to both — so a test reads
``memory_app.emit(memory_app.session(), "[MEMORY:timing] ...")``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from claudeops_memory import repository
from claudeops_memory.models import Memory

from claudeops.app import App
from claudeops.clock import FakeClock
from claudeops.session import Session


@dataclass
class LoadedApp:
    """What a memory test needs: the app, the clock every session shares, and helpers."""

    app: App
    clock: FakeClock
    make_session: Callable[..., Session]
    feed_text: Callable[..., None]

    @property
    def settings(self) -> Any:
        return self.app.config.section("memory")

    def session(self, tier: int = 1, session_id: int | None = None, **fields: Any) -> Session:
        """A session with a real ``sessions`` row (id chosen by the database unless given)."""
        return self.make_session(tier, "haiku", app=self.app, clock=self.clock, session_id=session_id, **fields)

    def started(self, tier: int = 1, **fields: Any) -> Session:
        """A session whose start has run (decay, its memory block, its injection ledger), as the runner does."""
        session = self.session(tier, **fields)
        self.app.hook.before_session(session=session)
        return session

    def emit(self, session: Session, text: str) -> None:
        """One assistant text block through the runner's own stream dispatcher (``feed_text``)."""
        self.feed_text(session, text, app=self.app)

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
