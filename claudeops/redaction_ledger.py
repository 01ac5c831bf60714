"""What one session redacted, so each kind of secret is reported once and its value never.

A secret the model copies into a marker would otherwise be counted on every path it takes: the
marker's store, the events it causes, the transcript frame it sits in, the final report, the
handoff. The session keeps one ledger instead:

* a marker that carried a secret is reported at once, one warning event per marker (the core
  redacts every marker before any handler sees it, see :mod:`claudeops.runner.stream`), and its
  kinds count as reported;
* everything else the session redacts (its transcript, final report and failure reason, event
  messages, text a plugin passes to :meth:`claudeops.session.Session.redact`) is noted here,
  and the session's end reports, in one warning, the kinds no marker warning already named.

So a marker with a key is one warning, and a tool that printed a token is one warning for the
session, however many places the text reached.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from claudeops.redaction import may_hold_secret, redact_secrets


def redaction_warning(what: str, kinds: tuple[str, ...] | list[str]) -> str:
    """The message of the warning event for secrets redacted from ``what``: the kinds, never the values."""
    return f"secret redacted from {what}: {', '.join(kinds)} (the value was not kept)"


@dataclass
class RedactionLedger:
    """The runner's credential values to redact verbatim, and the kinds redacted so far, by where."""

    literals: tuple[str, ...] = ()
    reported: set[str] = field(default_factory=set)
    noted: dict[str, set[str]] = field(default_factory=dict)

    def redact(self, text: str, where: str) -> str:
        """``text`` without secrets; what was found is noted under ``where`` (``transcript``, ``events``…)."""
        if not text or not may_hold_secret(text, self.literals):
            return text
        redaction = redact_secrets(text, self.literals)
        self.note(where, redaction.kinds)
        return redaction.text

    def note(self, where: str, kinds: tuple[str, ...] | set[str]) -> None:
        if kinds:
            self.noted.setdefault(where, set()).update(kinds)

    def unreported(self) -> dict[str, tuple[str, ...]]:
        """Where the session redacted kinds no warning named yet, each with those kinds (sorted)."""
        pending = {where: tuple(sorted(kinds - self.reported)) for where, kinds in self.noted.items()}
        return {where: kinds for where, kinds in pending.items() if kinds}

    def mark_reported(self, kinds: tuple[str, ...] | set[str]) -> None:
        self.reported.update(kinds)
