"""Dry run: which tool calls would change something, so the runner can refuse them.

The agent is told it is a dry run (environment section), but telling is not enforcing: the
runner's tool gate asks :func:`mutating_reason` before every call of a dry-run session, and of
every tier-1 session (tier 1 observes). The check is deliberately conservative: file-writing
tools, and shell command lines any of whose simple commands is a known state change (restarts,
compose, service managers, package managers, git writes, HTTP writes, file changes,
redirection into a file) — found through wrappers, chains, ``sh -c`` and ``ssh host …`` by
:mod:`claudeops.shell`. Read-only diagnostics stay allowed, so a dry run still shows what the
agent would have looked at.
"""

from __future__ import annotations

import re
from typing import Any

from claudeops.shell import simple_commands

WRITING_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})

_FILE_REDIRECT = re.compile(r"(?<![0-9&])>{1,2}\s*(?!&|/dev/null\b)\S")

_COMPOSE_WRITES = frozenset({"up", "down", "restart", "start", "stop", "kill", "rm", "pull", "create", "run",
                             "exec", "pause", "unpause", "build", "push"})
_OBJECT_WRITES = frozenset({"rm", "create", "prune", "connect", "disconnect", "update", "scale", "rollback"})
_CONTAINER_WRITES = _OBJECT_WRITES | {"restart", "start", "stop", "kill", "run", "exec"}

# program -> its state-changing sub-commands (the first word that is not an option); a nested
# mapping is checked one level further (``docker compose up``, ``docker network rm``).
_MUTATING: dict[str, dict[str, frozenset[str] | None]] = {
    "docker": {**dict.fromkeys(("restart", "start", "stop", "kill", "rm", "rmi", "pause", "unpause", "run",
                                "update", "prune", "exec", "cp", "commit", "tag", "push", "pull", "rename",
                                "load", "import", "create", "swarm", "plugin"), None),
               "compose": _COMPOSE_WRITES, "network": _OBJECT_WRITES, "volume": _OBJECT_WRITES,
               "service": _OBJECT_WRITES, "stack": frozenset({"deploy", "rm"}), "system": frozenset({"prune"}),
               "container": _CONTAINER_WRITES,
               "image": _OBJECT_WRITES | {"pull", "push", "tag", "load"}},
    "podman": dict.fromkeys(("restart", "start", "stop", "kill", "rm", "rmi", "run", "exec", "pull"), None)
    | {"compose": _COMPOSE_WRITES, "container": _CONTAINER_WRITES},
    "docker-compose": dict.fromkeys(_COMPOSE_WRITES, None),
    "podman-compose": dict.fromkeys(_COMPOSE_WRITES, None),
    "systemctl": dict.fromkeys(("start", "stop", "restart", "reload", "enable", "disable", "kill", "mask",
                                "unmask", "daemon-reload", "reboot", "poweroff", "try-restart",
                                "reload-or-restart", "try-reload-or-restart", "isolate", "edit", "set-property"), None),
    "git": dict.fromkeys(("push", "commit", "reset", "checkout", "merge", "rebase", "pull", "stash", "tag",
                          "clean", "restore", "switch", "apply", "am", "cherry-pick", "revert", "rm", "mv",
                          "add", "init", "clone", "fetch"), None),
    "kubectl": dict.fromkeys(("apply", "delete", "rollout", "scale", "patch", "edit", "create", "replace",
                              "set", "drain", "cordon", "uncordon", "annotate", "label", "exec", "cp",
                              "run", "expose", "autoscale", "taint"), None),
    "helm": dict.fromkeys(("install", "upgrade", "uninstall", "rollback", "delete"), None),
    "apt": dict.fromkeys(("install", "remove", "purge", "upgrade", "full-upgrade", "autoremove"), None),
    "apt-get": dict.fromkeys(("install", "remove", "purge", "upgrade", "dist-upgrade", "autoremove"), None),
}
_SERVICE_WRITES = frozenset({"start", "stop", "restart", "reload", "force-reload", "try-restart"})
_ALWAYS_MUTATING = frozenset({
    "rm", "rmdir", "mv", "cp", "touch", "mkdir", "chmod", "chown", "ln", "tee", "truncate", "dd", "install",
    "kill", "pkill", "killall", "reboot", "shutdown", "poweroff", "halt", "apprise", "ansible-playbook",
    "crontab", "useradd", "userdel", "usermod", "pip", "npm", "rsync", "scp", "mount", "umount",
})
_HTTP_WRITE = re.compile(r"(?:-X|--request)\s*['\"]?(?:POST|PUT|PATCH|DELETE)\b|\s(?:-d|--data\S*|-F|--form)\b",
                         re.IGNORECASE)


READ_ONLY_TIER = 1
"""Tier 1 observes: the same check refuses its state-changing calls, whatever the allow rules say."""


def read_only_mode(dry_run: bool, tier: int) -> str | None:
    """Why a session may not change anything ("dry run", "tier 1 is read-only"), or ``None``."""
    if dry_run:
        return "dry run"
    if tier == READ_ONLY_TIER:
        return f"tier {tier} is read-only"
    return None


def mutating_reason(tool_name: str, tool_input: dict[str, Any], mode: str = "dry run") -> str | None:
    """Why this call is refused in a read-only ``mode``, or ``None`` when it only reads."""
    if tool_name in WRITING_TOOLS:
        return f"{mode}: {tool_name} is not allowed because it changes files; report what you would change"
    if tool_name != "Bash":
        return None
    command = str(tool_input.get("command", ""))
    found = mutating_command(command)
    if found is None:
        return None
    return (f"{mode}: `{found}` would change the system and is not run; "
            "report what you would do instead")


def mutating_command(command: str) -> str | None:
    """The first state-changing simple command of a shell command line, or ``None``.

    The line is taken apart by :func:`claudeops.shell.simple_commands`, so wrappers (``sudo``,
    ``env``, ``timeout``), chains, sub-shells, ``sh -c`` scripts and ``ssh host …`` hide nothing.
    """
    if ">" in command and _FILE_REDIRECT.search(command):  # one memchr settles most commands
        return "output redirection into a file"
    for words in simple_commands(command):
        if _is_mutating(words):
            text = " ".join(words)
            return text if len(text) <= 80 else text[:77] + "..."
    return None


_OPTIONS_WITH_VALUE = frozenset({"-C", "-c", "-f", "--file", "-p", "--project-name", "-H", "--host", "--context",
                                 "--project-directory", "--env-file", "-n", "--namespace", "--kubeconfig"})


def _positional(words: list[str]) -> list[str]:
    """The first two words that are not options or option values (``docker compose -f x.yml up`` → compose, up).

    Two are all any check looks at (a sub-command and its object or nested sub-command).
    """
    positional, skip = [], False
    for word in words:
        if skip:
            skip = False
        elif word in _OPTIONS_WITH_VALUE:
            skip = True
        elif not word.startswith("-"):
            positional.append(word)
            if len(positional) == 2:
                break
    return positional


def _is_mutating(words: list[str]) -> bool:
    """Whether one simple command changes state; ``words[0]`` is a base name (:func:`simple_commands`)."""
    program = words[0]
    if program in _ALWAYS_MUTATING:
        return True
    if program == "sed":
        return any(word.startswith("-i") or word == "--in-place" for word in words[1:])
    if program in ("curl", "wget"):
        return bool(_HTTP_WRITE.search(" " + " ".join(words[1:])))
    if program == "service":
        arguments = _positional(words[1:])
        return len(arguments) >= 2 and arguments[1] in _SERVICE_WRITES
    subcommands = _MUTATING.get(program)
    if subcommands is None:  # most diagnostics (cat, grep, df, journalctl): no need to look further
        return False
    arguments = _positional(words[1:])
    if not arguments or arguments[0] not in subcommands:
        return False
    nested = subcommands[arguments[0]]
    return nested is None or (len(arguments) > 1 and arguments[1] in nested)
