"""What an operator types into memory (command line, dashboard, API): secrets out, and a warning saying so.

The repository redacts every observation it stores whoever calls it; these callers redact first
so they know what was removed and can record the one warning event a redaction gets (the kinds,
never the value) once the memory is stored. Operators' text is not checked for instructions to
the agent: curating memory is the operator's job, and their words are the ones that count.
"""

from __future__ import annotations

from collections.abc import Callable

from claudeops import NotableEvent, now_timestamp, redact_secrets, redaction_warning

RecordEvent = Callable[[NotableEvent], object]
"""``lambda event: app.hook.record_event(event=event)``, or the dashboard's ``web.record_event``."""


def without_secrets(text: str | None) -> tuple[str | None, tuple[str, ...]]:
    """``text`` redacted and the kinds of secret found (``None`` stays ``None``: nothing to change)."""
    if text is None:
        return None, ()
    redaction = redact_secrets(text)
    return redaction.text, redaction.kinds


def warn_if_redacted(record_event: RecordEvent | None, kinds: tuple[str, ...], what: str) -> None:
    """Record the warning event for secrets redacted from ``what`` (nothing when none were)."""
    if kinds and record_event is not None:
        record_event(NotableEvent("warning", redaction_warning(what, kinds), now_timestamp()))
