"""The ``[COOLDOWN:<restart|redeployment>:<service>] <success|failure> — message`` marker.

Each one is stored the moment it is seen, so an action counts against the limit even if the
session crashes right after it. Models vary the spelling, so the action, the outcome and the
separator are read leniently, but only words listed here match; anything else is reported and
ignored rather than guessed at.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

from claudeops import MARKER_SERVICE, MAX_SERVICE_LENGTH, Marker, MarkerType, Session
from claudeops_cooldowns.names import service_name
from claudeops_cooldowns.repository import record_action
from claudeops_cooldowns.settings import REDEPLOYMENT, RESTART, patterns_from
from claudeops_cooldowns.targets import EVERY_SERVICE, find_targets

log = logging.getLogger(__name__)

PLUGIN_STATE = "claudeops_cooldowns"
"""This plugin's key in ``Session.plugin_state``: how many records of each (action, service) counted."""

ACTION_WORDS = {
    "restart": RESTART, "restarted": RESTART,
    "redeployment": REDEPLOYMENT, "redeploy": REDEPLOYMENT, "redeployed": REDEPLOYMENT,
}
OUTCOME_WORDS = {
    "success": True, "succeeded": True, "successful": True, "successfully": True, "ok": True,
    "failure": False, "failed": False, "fail": False, "error": False,
}


def _one_of(words: Iterable[str]) -> str:
    """An alternation of ``words``, longest first so ``successfully`` is not read as ``success``."""
    return "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))


COOLDOWN_PATTERN = re.compile(
    r"\[COOLDOWN:[ \t]*(?P<action>" + _one_of(ACTION_WORDS) + r")[ \t]*"
    r":(?P<service>" + MARKER_SERVICE + r")\][ \t]*(?P<outcome>" + _one_of(OUTCOME_WORDS) + r")"
    r"(?:[ \t]*(?:—|–|--|-|:)[ \t]*|[ \t]+|$)(?P<message>.*)",
    re.IGNORECASE,
)
"""Only known actions and outcomes and a service name (see ``MARKER_SERVICE``) match, so anything else
takes the core's malformed path: warned about, stored nowhere and not counted as a recorded marker."""

PROMPT_SECTION = """\
## Remediation records (cooldowns)

Every restart or redeployment of a service counts towards that service's remediation limit;
starting a stopped service (`docker start`, `systemctl start`) counts as a restart. Right after
each one you perform, whether it worked or not, record it on a line of its own in your reply
(never inside a tool call):

    [COOLDOWN:restart:<service>] success — <what you did and what you saw>
    [COOLDOWN:redeployment:<service>] failure — <what you did and what went wrong>

`<service>` is the name your command acted on, spelled as the command spelled it: the container
of `docker restart`, the compose service of `docker compose up` or `restart`, the unit of
`systemctl restart`. Limits are counted and checked under that name, so never shorten it or use
the application's name instead (`docker restart nextcloud-app` is recorded as `nextcloud-app`,
not `nextcloud`).

Examples:

    [COOLDOWN:restart:nextcloud-app] success — docker restart nextcloud-app; status.php 200 after 40 s
    [COOLDOWN:restart:caddy] success — systemctl restart caddy; HTTPS answers again
    [COOLDOWN:redeployment:nextcloud] failure — docker compose up -d nextcloud; migration failed

Commands that would exceed a limit are refused before they run; the refusal says when the
service may be touched again. Do not try to work around it: report the service with an event
instead. Tier 1 never restarts or redeploys anything."""


def cooldown_marker_type() -> MarkerType:
    return MarkerType("COOLDOWN", COOLDOWN_PATTERN, PROMPT_SECTION, handle_cooldown, on_malformed=warn_malformed)


def handle_cooldown(session: Session, marker: Marker) -> bool:
    """Store the action at the time the marker was seen (the pattern admits known words only).

    Returns False, so the marker is not counted as recorded, when the session could not have
    performed the action: the runner's read-only gate refuses every restart and redeployment at
    tier 1 and in a dry run, so such a record describes something that did not happen, and
    counting it would put the service into cooldown for nothing.
    """
    read_only = session.read_only
    if read_only is not None:
        log.warning("session #%s: cooldown marker not counted (%s: the runner refuses every restart and "
                    "redeployment, so it records an action that did not happen): %.200s", session.id, read_only,
                    marker.text.strip())
        return False
    action_word, service, outcome_word, message = marker.groups
    name = service_name(service or "")
    if not name:  # ``.service``: a unit suffix with no unit in front of it
        warn_malformed(session, marker.text)
        return False
    action = ACTION_WORDS[(action_word or "").lower()]
    refused = refused_claim(session, action, name)
    if refused is not None:
        session.record_event("warning", f"cooldown record not counted: the {action} of {name} it claims was "
                             f"refused in this session ({refused})", name)
        return False
    record_action(service=service or "", action=action,
                  success=OUTCOME_WORDS[(outcome_word or "").lower()], message=message or "", tier=session.tier,
                  session_id=session.id, created_at=session.now())
    return True


def refused_claim(session: Session, action: str, service: str) -> str | None:
    """The refused command a record claims the work of, or ``None`` when the record may count.

    The runner's tool gate (the cooldowns' own check among others) refused that command, so the
    action the record claims did not happen: counting it would put the service into cooldown, or
    move the end of its window, for nothing. Records are matched to the session's commands that
    the cooldown patterns find for the same action and service: as many records count as such
    commands ran, and one beyond that is dropped only when such a command was refused. A record of
    an action the patterns do not see (an API call) counts as before, as does every doubtful one:
    a limit that counts too little protects less.
    """
    patterns = patterns_from(session.config.section("cooldowns"))
    ran, refused = 0, None
    for judged in session.judged_commands:
        if any(target.action == action and target.service in (service, EVERY_SERVICE)
               for target in find_targets(judged.command, patterns)):
            if judged.refused:
                refused = refused or judged.command
            else:
                ran += 1
    counted = session.plugin_state.setdefault(PLUGIN_STATE, {})
    if refused is None or counted.get((action, service), 0) < ran:
        counted[(action, service)] = counted.get((action, service), 0) + 1
        return None
    return refused


def warn_malformed(session: Session, text: str) -> None:
    """A line that starts like a cooldown record but is not one: say so, store nothing."""
    log.warning("session #%s: ignored malformed cooldown marker (expected [COOLDOWN:restart|redeployment:"
                "<service>] success|failure — message, the service up to %d letters, digits, '_', '.' or '-'): "
                "%.200s", session.id, MAX_SERVICE_LENGTH, text.strip())
