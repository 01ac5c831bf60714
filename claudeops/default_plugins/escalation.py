"""Built-in plugin: the ``[ESCALATE] reason`` marker and the handoff to the next tier.

The marker only records the request; the runner decides after the session ends whether the
next tier starts (never above ``max_tier``, never in dry run, never with ``--no-escalate``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from claudeops import EscalationRequest, Marker, MarkerType, Session, hookimpl

HANDOFF_ORDER = 20
HANDOFF_TEXT_CHARS = 8_000
"""The previous tier's final report is cut here: the appended sections travel to the CLI as one
command-line argument, which Linux caps at 128 KiB (a 144 KB report made the next tier fail
with "Argument list too long"). The whole text stays in the previous session's row."""
HANDOFF_EVENTS = 50
HANDOFF_EVENT_CHARS = 300
ESCALATE_PATTERN = re.compile(r"\[ESCALATE\][ \t]*(.+)")

PROMPT_SECTION = """\
## Escalation

When a problem needs more than your tier may do and a higher tier is available (see the
highest tier available for escalation in the environment section), ask for the next tier by
writing, on a line of its own in your reply (not inside a tool call):

    [ESCALATE] <one-line reason: what is wrong, what you checked, what the next tier should do>

Example:

    [ESCALATE] jellyfin returns 502 for 3 checks in a row; container is up but the DB is locked

Write it at most once per session. The next tier starts after you finish, with your reason, your
final message and the events you recorded. At the highest tier available (tier 3, or a lower
configured maximum) there is no next tier: the marker is recorded but starts nothing, so say in
your final message what a human must do instead.

Every tier is bound by the same cooldowns. Escalate a service in cooldown only when it needs a
remedy beyond a restart (a configuration change, a redeploy, a rollback), never only so that a
restart the cooldown refused is tried again: it would be refused there too. Do not escalate for
problems you already fixed or for transient blips that cleared on a retry."""


@hookimpl
def register_marker_types(register: Callable[..., None]) -> None:
    register(MarkerType("ESCALATE", ESCALATE_PATTERN, PROMPT_SECTION, handle_escalate))


def handle_escalate(session: Session, marker: Marker) -> None:
    """Remember the first escalation request of the session and say so as an event."""
    if session.escalation is not None:
        return
    reason = marker.groups[0] or "no reason given"
    session.escalation = EscalationRequest(reason)
    session.record_event("warning", f"tier {session.tier} requested escalation: {reason}")


@hookimpl
def before_session(session: Session) -> None:
    if session.handoff is not None:
        session.add_prompt_section("handoff", render_handoff(session), HANDOFF_ORDER)


def render_handoff(session: Session) -> str:
    """The section that tells an escalated session why it exists and what the lower tier saw."""
    handoff = session.handoff
    assert handoff is not None
    source = f"session #{handoff.from_session_id}"
    lines = [
        f"## Escalation from tier {handoff.from_tier} ({source})",
        "",
        f"Reason: {_cut(handoff.reason, HANDOFF_EVENT_CHARS)}",
        "",
        "Final report of the previous tier:",
        "",
        _cut(handoff.final_text.strip(), HANDOFF_TEXT_CHARS, f"; the whole report is in {source}")
        or "(no final text)",
    ]
    if handoff.events:
        lines += ["", "Events it recorded:", ""]
        lines += [f"- {_cut(event, HANDOFF_EVENT_CHARS)}" for event in handoff.events[:HANDOFF_EVENTS]]
        if len(handoff.events) > HANDOFF_EVENTS:
            lines.append(f"- … and {len(handoff.events) - HANDOFF_EVENTS} more (claudeops events list)")
    return "\n".join(lines)


def _cut(text: str, limit: int, where: str = "") -> str:
    """``text``, or its first ``limit`` characters and a note saying how much was left out."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]} … [{len(text) - limit} more characters cut{where}]"
