"""Helpers for the runner's tests: a recording test plugin, and reading back what a run stored.

The fixtures built on them are in ``conftest.py`` next to this module. The test plugin stands in
for the feature plugins, so runner tests do not depend on how memories or events are stored:

* marker ``[NOTE] text`` → a row in ``test_notes`` (committed by its handler, like real markers);
* ``record_event`` → a row in ``test_events``;
* every session hook call is appended to ``plugin.calls`` as ``(hook, detail)``, and the system
  prompt text appended for each session (as the SDK options carry it) to ``plugin.appended``;
* ``before_session`` adds a "Test context" prompt section (order 40, after environment and handoff);
* ``plugin.deny`` maps a tool name to the reason ``check_tool_use`` returns.
"""

from __future__ import annotations

import re
from typing import Any

import peewee

from claudeops import hookimpl
from claudeops.app import App
from claudeops.markers import Marker, MarkerType
from claudeops.runner.chain import RunRequest, run_chain
from claudeops.runner.options import system_prompt_append
from claudeops.session import Outcome, Session
from claudeops.session_rows import SessionRow
from claudeops.store import BaseModel, Migration, db

CORE_ONLY = ("claudeops.environment", "claudeops.escalation")
NOTE_SECTION = "## Notes\n\nWrite `[NOTE] text` on a line of its own to leave a note for the operator."
TEST_CONTEXT = "## Test context\n\nTEST-CONTEXT-SECTION-42"


class Note(BaseModel):
    session_id = peewee.IntegerField()
    text = peewee.TextField()

    class Meta:
        table_name = "test_notes"


class EventRow(BaseModel):
    session_id = peewee.IntegerField(null=True)
    level = peewee.TextField()
    message = peewee.TextField()
    service = peewee.TextField(null=True)

    class Meta:
        table_name = "test_events"


def store_note(session: Session, marker: Marker) -> None:
    with db.atomic():
        Note.create(session_id=session.id, text=marker.groups[0])


class RecordingPlugin:
    """A third-party-style plugin that stores notes and events and records every hook call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.deny: dict[str, str] = {}
        self.sections: dict[int, list[str]] = {}
        self.appended: dict[int, str] = {}

    @hookimpl
    def register_migrations(self, register):
        register("runner_tests", [Migration("0001_tables", lambda database: database.create_tables([Note, EventRow]))])

    @hookimpl
    def register_marker_types(self, register):
        register(MarkerType("NOTE", re.compile(r"\[NOTE\][ \t]*(.+)"), NOTE_SECTION, store_note))

    @hookimpl
    def before_session(self, session: Session) -> None:
        self.calls.append(("before_session", session.id))
        session.add_prompt_section("test", TEST_CONTEXT, 40)

    @hookimpl
    def on_message(self, session: Session, message: Any) -> None:
        self.calls.append(("on_message", type(message).__name__))
        self.sections.setdefault(session.id, [section.name for section in session.ordered_sections()])
        self.appended.setdefault(session.id, system_prompt_append(session))

    @hookimpl
    def on_assistant_text(self, session: Session, text: str) -> None:
        self.calls.append(("on_assistant_text", text))

    @hookimpl
    def on_marker(self, session: Session, marker: Marker) -> None:
        self.calls.append(("on_marker", marker.text))

    @hookimpl
    def check_tool_use(self, tool_name: str, tool_input: dict[str, Any]) -> str | None:
        self.calls.append(("check_tool_use", tool_name))
        return self.deny.get(tool_name)

    @hookimpl
    def after_session(self, session: Session, outcome: Outcome) -> None:
        self.calls.append(("after_session", outcome.status))

    @hookimpl
    def record_event(self, event: Any) -> None:
        with db.atomic():
            EventRow.create(session_id=event.session_id, level=event.level, message=event.message,
                            service=event.service)

    def hooks_called(self) -> list[str]:
        return [name for name, _ in self.calls]


def replay(app: App, *recordings: Any, **fields: Any):
    """Run recordings (frame lists or paths) through the whole runner; the session reports."""
    return run_chain(app, RunRequest.replaying(list(recordings), **fields))


def notes() -> list[str]:
    return [note.text for note in Note.select().order_by(Note.id)]


def events(session_id: int | None = None) -> list[tuple[str, str]]:
    query = EventRow.select().order_by(EventRow.id)
    if session_id is not None:
        query = query.where(EventRow.session_id == session_id)
    return [(event.level, event.message) for event in query]


def row(session_id: int) -> SessionRow:
    return SessionRow.get_by_id(session_id)
