"""Refusing tiers 2 and 3 any change to a service in maintenance or closed to remediation.

The prompt says such a service is to be left alone; this makes it so, like an exhausted
cooldown: before a tool runs, a call that would change state (the tool gate's own judgement,
:func:`claudeops.command_refusal`, the deny-by-default gate tier 1 and dry runs obey: a command it does
not know to only read counts as a change) is judged command by command on the argv words of the
parsed line (:mod:`claudeops_inventory.reach`), and refused when it may reach a closed service: it
names it (name, container, unit or host, in a word, a path or a redirection), or, deny by default,
what it acts on cannot be seen (a word the shell computes, input fed by ``xargs``, a container id
the inventory cannot map) or is a whole host or engine (``reboot``, ``systemctl restart docker``,
``docker system prune``, a compose command that names no service). A file a Write or Edit call
changes is refused when its path names a closed service. The refusal is one line saying which
pause and until when, and a warning event. Tier 1 and dry runs need no check: they change nothing
at all. Reading is never refused: the agent still checks and reports.

A service in maintenance also gets no notifications: the operator who paused it is working on it.
"""

from __future__ import annotations

import re
from typing import Any

from claudeops import (
    WRITING_TOOLS,
    Config,
    Pause,
    Session,
    command_refusal,
    from_timestamp,
    is_paused,
    paused_services,
    shell_commands,
)
from claudeops_inventory.reach import Reach, changes, named_services, reach

EVERY_SERVICE = "*"
MAX_NAMED = 3
"""Closed services a deny-by-default refusal lists by name before "and N more"."""
AFTER_REFUSAL = ("Do not retry it or work around it (another tool, host or spelling). Check and report the "
                 "service instead; the operator decides.")


ENGINE_ELSEWHERE = re.compile(r"\b(?:DOCKER_HOST|DOCKER_CONTEXT|CONTAINER_HOST|CONTAINER_CONNECTION|KUBECONFIG)\s*=|"
                              r"\bcontext\s+use\b|--context\b|--kubeconfig\b")
"""A line that sends its container or cluster commands to another engine (``DOCKER_HOST=ssh://media.lan``,
``export KUBECONFIG=…``, ``docker context use``): which services it reaches is not on the line."""


def check_tool(session: Session, tool_name: str, tool_input: dict[str, Any]) -> str | None:
    """The refusal for a tool call at tier 2 or 3, or ``None`` when it may run."""
    if session.read_only is not None:
        return None  # tier 1 and dry runs are refused every change by the runner's own gate
    closed = _closed_services(session)
    if not closed:
        return None
    if tool_name in WRITING_TOOLS:
        text = str(tool_input.get("file_path") or tool_input.get("notebook_path") or "")
        found = _file_reach(session, text, closed)
    elif tool_name == "Bash":
        text = str(tool_input.get("command", ""))
        if command_refusal(text) is None:
            return None  # what the gate knows only reads is never refused
        found = _command_reach(session, text, closed)
    else:
        return None
    if found is None:
        return None
    return _refuse(session, text, found, closed)


def _command_reach(session: Session, text: str, closed: dict[str, str]) -> Reach | None:
    """Why a changing command line may change a closed service, judged command by command, or ``None``.

    Each command the line runs (substitutions, loops and wrapped commands included, see
    :func:`claudeops.shell_commands`) is judged on its own: ``docker logs $(docker ps -q)`` only reads,
    since both commands in it only read, while ``docker stop $(docker ps -q)`` stops what it cannot see.
    """
    changing = [command for command in shell_commands(text) if changes(command)]
    if changing and EVERY_SERVICE in closed:
        return Reach(EVERY_SERVICE, "changes something")
    if changing and (engine := ENGINE_ELSEWHERE.search(text)) is not None:
        return Reach(None, f"points its engine elsewhere ({engine.group(0).strip()}), where the check cannot follow")
    for command in changing:
        found = reach(command, session.config.inventory, set(closed))
        if found is not None:
            return found
    return None


def _file_reach(session: Session, path: str, closed: dict[str, str]) -> Reach | None:
    if EVERY_SERVICE in closed:
        return Reach(EVERY_SERVICE, "changes a file")
    for service in named_services(path, session.config.inventory, set(closed)):
        return Reach(service, "")
    return None


def _refuse(session: Session, text: str, found: Reach, closed: dict[str, str]) -> str:
    """Record the refusal as a warning event and say it in one line: which pause, until when."""
    shown = " ".join(text.split())[:200]
    if found.service == EVERY_SERVICE:
        why = f"every service {closed[EVERY_SERVICE]}"
        message = f"`{shown}` {found.how}, while {why}"
    elif found.service is not None:
        why = f"{found.service} {closed[found.service]}"
        how = f" ({found.how})" if found.how else ""
        message = f"`{shown}` would change {found.service}, which {closed[found.service]}{how}"
    else:
        why = _described(closed)
        message = f"`{shown}` {found.how}, so it may change a closed service: {why}"
    service = found.service if found.service not in (None, EVERY_SERVICE) else None
    how = f"{found.how}; " if found.how else ""
    session.record_event("warning", f"maintenance blocked a change ({how}{why}): {shown}", service)
    return f"Refused by claudeops: {message}. {AFTER_REFUSAL}"


def _described(closed: dict[str, str]) -> str:
    names = sorted(closed)
    listed = "; ".join(f"{name} {closed[name]}" for name in names[:MAX_NAMED])
    return listed + (f"; and {len(names) - MAX_NAMED} more" if len(names) > MAX_NAMED else "")


def maintenance_silence(config: Config, service: str | None, now: str) -> str | None:
    """Why a notification about ``service`` is not sent at ``now``: it is in maintenance (or ``None``).

    Only notifications about a service are held back; a session's outcome, the digest or a spend
    cap concern the fleet and still go out during a global pause.
    """
    if service is None:
        return None
    pause = is_paused(config, service, from_timestamp(now))
    return None if pause is None else f"{service} is {pause.describe()}"


def _closed_services(session: Session) -> dict[str, str]:
    """Every service tiers 2 and 3 may not change now, with why (``*``: every service)."""
    closed = {name: _paused_why(pause) for name, pause in paused_services(session.config, session.clock()).items()}
    for service in session.config.inventory:
        if not service.remediate:
            closed.setdefault(service.name, "is closed to remediation (remediate = false)")
    return closed


def _paused_why(pause: Pause) -> str:
    return f"is {pause.describe()}"
