"""The ``[MEMORY:category(:service)] observation`` marker: its regex, prompt section and handlers.

The core finds marker candidates in assistant text only (never in tool results, user messages
or system events), one line at a time, and calls :func:`handle_memory_marker` for each match;
a line that starts like a memory marker but does not match goes to :func:`warn_malformed`.
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from typing import Literal

from claudeops import REVIEW_ITEM, Marker, MarkerType, Session, directive_reason, find_directives, redact
from claudeops_memory import ledger, repository, upsert_store
from claudeops_memory.citation import Citation, read_citation
from claudeops_memory.judging import Judges
from claudeops_memory.models import CATEGORIES, MemoryRecord
from claudeops_memory.settings import SECTION, MemorySettings
from claudeops_memory.upsert import (
    Observation,
    UpsertResult,
    hold_back_observation,
    record_observation,
    same_text,
)

log = logging.getLogger(__name__)

MEMORY_PATTERN = re.compile(
    r"\[MEMORY:(timing|dependency|behavior|remediation|maintenance)(?::([a-zA-Z0-9_-]+))?\]\s*(.+)")
"""SPEC-0015 "Memory Marker Regex", verbatim: category, optional service, observation."""

_CATEGORY_SLOT = re.compile(r"\[MEMORY(?::([^\]:\s]*))?")

PROMPT_SECTION = """\
## Memory Recording

You have an operational memory that persists across sessions; what it holds is shown to you
under "Operational Memory". When you confirm something about this environment that should
change what a future session does, record it on a line of its own in your reply (not inside a
tool call or a code block):

    [MEMORY:<category>] <observation>
    [MEMORY:<category>:<service>] <observation>

<category> is exactly one of:

- timing: startup delays, timeouts, how long operations take
- dependency: start order between services, prerequisites, what breaks when something else is down
- behavior: quirks and responses that look wrong but are normal, known issues
- remediation: what fixed a problem, and what did not
- maintenance: periodic care a service needs (cleanups, renewals, vacuums)

<service> is the service's name (letters, digits, "-" and "_"); leave it out for knowledge about
the environment as a whole. The observation is one line: the fact, then what to do about it.

Examples:

    [MEMORY:timing:jellyfin] Takes 60s to start after restart -- wait before checking health
    [MEMORY:dependency:caddy] Must be started after WireGuard -- fails with "no route to host" otherwise
    [MEMORY:behavior:adguard] Returns HTTP 302 redirect when healthy, not 200
    [MEMORY:remediation] DNS checks fail briefly during WireGuard reconnects -- retry once before escalating

When to record: you verified the fact yourself in this session (a check, a log line, the result
of a fix), and a future session would act differently knowing it.

Each memory in your Operational Memory ends with its id, like #12. When what you verified is
about one of those memories, say so at the end of the observation, naming exactly one id:

    [MEMORY:timing:jellyfin] Takes about a minute to start after a restart (confirms #12)
    [MEMORY:timing:jellyfin] Takes 3 minutes to start since the 10.9 upgrade (replaces #12)

- (confirms #12): you checked memory #12 again and it still holds; its confidence goes up.
- (replaces #12): you found memory #12 wrong or out of date; write what is true now. #12 loses
  confidence and your observation becomes its successor.
- No citation: the fact is new, or not about any one memory shown to you.

Cite only ids shown in your Operational Memory for the same service; another id is ignored.

When not to record: routine results ("all services healthy"), one-off incidents that teach
nothing lasting, guesses you did not verify, what your instructions already say, or the same
fact twice in one session. A few memories per session at most.

Never record secrets: no passwords, tokens, API keys, private keys, credentials inside URLs or
personal data, not even partially."""


def prepare_observation(text: str, max_chars: int, cut_chars: int = 0) -> str:
    """One trimmed line without secrets, cut to ``max_chars`` (with a warning) so it cannot break the
    injected block. The core redacted the marker already (and warned); this is the store's own guard.

    ``cut_chars`` are the characters the marker parser already cut off the line
    (:attr:`claudeops.Marker.cut_chars`): the warning gives the length the agent wrote.
    """
    observation = repository.normalise_observation(redact(text))
    if len(observation) + cut_chars > max_chars:
        log.warning("memory observation cut from %d to %d characters (memory.max_observation_chars): %.60s…",
                    len(observation) + cut_chars, max_chars, observation)
        observation = observation[:max_chars - 1].rstrip() + "…"
    return observation


def _touched(session: Session) -> set[int]:
    """Memory ids this session created, reinforced or reactivated (one bump per session)."""
    touched: set[int] = session.plugin_state.setdefault("claudeops_memory.touched", set())
    return touched


def _replaced(session: Session) -> set[int]:
    """Memory ids this session replaced (one replacement per memory and session)."""
    replaced: set[int] = session.plugin_state.setdefault("claudeops_memory.replaced", set())
    return replaced


def citation_problem(session: Session, citation: Citation, service: str | None, text: str) -> str | None:
    """Why ``citation`` does not count in this session's marker about ``service``, or None when it does.

    It counts only for a memory injected into this very session (the injection ledger), still
    stored and active, about the marker's service; a replacement must also say something else.
    """
    if not ledger.was_injected(session.id, citation.memory_id):
        return f"memory #{citation.memory_id} was not in this session's Operational Memory"
    cited = upsert_store.get(citation.memory_id)
    if cited is None:
        return f"memory #{citation.memory_id} no longer exists"
    if not cited.active:
        return f"memory #{citation.memory_id} is inactive"
    if cited.service != service:
        return (f"memory #{citation.memory_id} is about {cited.service_label}, "
                f"not {service or 'general'}")
    if citation.verb == "replaces" and same_text(cited.observation, text):
        return f"the observation is the text of memory #{citation.memory_id}"
    return None


def _checked_citation(session: Session, marker: Marker, text: str) -> tuple[str, Citation | None]:
    """The observation without its citation, and the citation when it counts (else a warning says why)."""
    cited = read_citation(text)
    problem = cited.problem
    if cited.citation is not None:
        service = repository.normalise_service(marker.groups[1])
        problem = citation_problem(session, cited.citation, service, cited.text)
    if problem is not None:
        log.warning("ignored the citation in a memory marker (%s); judging it as an uncited observation: %s",
                    problem, marker.text)
        return cited.text, None
    return cited.text, cited.citation


def handle_memory_marker(session: Session, marker: Marker) -> UpsertResult | Literal[False]:
    """Store one memory marker at once, in its own transaction, and report contradictions.

    A citation (``(confirms #12)``, ``(replaces #12)``) is read off the observation first and
    never stored; when it does not count, a warning says why and the marker is judged like an
    uncited one. Returns ``False`` when nothing was written, so the session does not count the
    marker as recorded: an observation that is blank once trimmed (warned about), or a fact this
    session already recorded, reinforced or replaced (``repeated``: restating it is not new evidence).

    An observation that reads as an instruction to the agent is held back: stored inactive and
    flagged (:mod:`claudeops_memory.flags`), with a warning event, until an operator activates it;
    its citation, if any, is ignored.
    """
    settings: MemorySettings = session.config.section(SECTION)
    category, service, text = marker.groups
    assert category is not None  # MEMORY_PATTERN's category group is not optional
    stripped, citation = _checked_citation(session, marker, text or "")
    observation = prepare_observation(stripped, settings.max_observation_chars, marker.cut_chars)
    if not observation:
        log.warning("ignored a memory marker without an observation: %s", marker.text)
        return False
    if citation is not None and citation.verb == "replaces" and citation.memory_id in _replaced(session):
        log.info("memory #%d was already replaced in this session: %s", citation.memory_id, marker.text)
        return False
    stated = Observation(category, repository.normalise_service(service), observation, session.id, session.tier,
                         session.now(), citation)
    if directives := find_directives(observation):
        return _hold_back(session, replace(stated, citation=None), settings, directive_reason(directives))
    result = record_observation(Judges(session.hook, session), stated, settings, frozenset(_touched(session)))
    log.info("memory #%d %s: [%s:%s] %s", result.memory.id, result.action, category,
             result.memory.service_label, observation)
    if result.action == "repeated":
        return False
    _touched(session).add(result.memory.id)
    if result.replaced is not None:
        _replaced(session).add(result.replaced.id)
        _report_weakened(session, result.replaced, result.memory, "replaced by")
    for weakened in result.contradicted:
        _report_weakened(session, weakened, result.memory, "contradicted by")
    if result.unsure_of is not None:
        session.record_event(
            "info", f"memory #{result.memory.id} ({result.memory.observation!r}) stored beside memory "
                    f"#{result.unsure_of.id} ({result.unsure_of.observation!r}): the judge was unsure whether they "
                    "state the same fact", service=result.memory.service, kind=REVIEW_ITEM)
    return result


def _report_weakened(session: Session, weakened: MemoryRecord, by: MemoryRecord, how: str) -> None:
    """A warning event, and a review item: the change waits in the review queue for an operator."""
    state = "" if weakened.active else "; deactivated"
    session.record_event(
        "warning", f"memory #{weakened.id} ({weakened.observation!r}) {how} memory #{by.id} "
                   f"({by.observation!r}): confidence now {weakened.confidence}{state}", service=weakened.service,
        kind=REVIEW_ITEM)


def _hold_back(session: Session, observation: Observation, settings: MemorySettings,
               reason: str) -> UpsertResult | Literal[False]:
    """Store an instruction-like observation inactive and flagged, and say so as a warning event."""
    result = hold_back_observation(observation, settings, reason)
    repeated = result.action == "repeated"
    what = "already held back as" if repeated else "stored inactive as"
    session.record_event("warning", f"memory marker held back for an operator ({reason}): {what} memory "
                                    f"#{result.memory.id}, which no session is shown until an operator activates it",
                         kind=None if repeated else REVIEW_ITEM)
    return False if result.action == "repeated" else result


def warn_malformed(session: Session, candidate: str) -> None:
    """Say why a line that starts like a memory marker was not stored (e.g. an unknown category)."""
    found = _CATEGORY_SLOT.match(candidate)
    category = found.group(1) if found else None
    if category and category not in CATEGORIES:
        log.warning("ignored memory marker with unknown memory category %r (expected one of: %s): %s",
                    category, ", ".join(CATEGORIES), candidate.strip())
    else:
        log.warning("ignored malformed memory marker (expected [MEMORY:category] or "
                    "[MEMORY:category:service] followed by the observation): %s", candidate.strip())


MEMORY_MARKER = MarkerType("MEMORY", MEMORY_PATTERN, PROMPT_SECTION, handle_memory_marker, warn_malformed)
