"""What a changing command may reach, read from the argv words of the parsed command line.

The maintenance check asks this module one question per command: which closed service does it
name, or why can it not be known that it names none? The words come from the tool gate's own
parse (:func:`claudeops.shell_commands`): quoting is removed the way Bash removes it, wrappers
(``sudo``, ``sh -c``, ``ssh HOST``, ``xargs``, ``docker exec``) are seen through, and a word Bash
computes when it runs is a :class:`claudeops.ComputedWord`. A split of the raw text, what this
replaced, read ``j''ellyfin`` as two words and ``$(docker ps -q)`` as a harmless one.

Deny by default, while anything is closed: a command is refused when it names a closed service
(its name, container, unit or host, anywhere in a word or a redirection's file), when what it acts
on is computed or fed in (``$(…)``, ``$s``, ``jelly*``, ``xargs``), when it runs code no parse of the
line shows (an interpreter's program, a script, a playbook), when a word may be a container id the
inventory cannot map, or when it acts on a whole host or container engine. A program named without its path
counts as a script when it is installed outside the distribution's directories (``/usr/local/bin``, ``/opt``,
a home directory), unless it is one this module reads by its arguments (docker, systemctl, kill...).
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Iterator
from dataclasses import dataclass

from claudeops import ComputedWord, Inventory, ShellCommand, command_refusal, without_global_options

CONTAINER_PROGRAMS = frozenset({"docker", "podman"})
COMPOSE_PROGRAMS = frozenset({"docker-compose", "podman-compose"})
HOST_PROGRAMS = frozenset({"reboot", "poweroff", "shutdown", "halt", "init", "telinit", "kexec"})
"""Programs that stop or restart the whole machine they run on."""
HOST_SYSTEMCTL = frozenset({"reboot", "poweroff", "halt", "kexec", "soft-reboot", "suspend", "hibernate",
                            "hybrid-sleep", "suspend-then-hibernate", "rescue", "emergency", "isolate", "default"})
"""``systemctl`` sub-commands that change the state of the whole machine."""
ENGINES = frozenset({"docker", "containerd", "podman", "libvirtd", "k3s", "kubelet", "incus", "lxd"})
"""Units whose restart restarts every container or VM they run."""
SERVICE_MANAGERS = frozenset({"systemctl", "service", "rc-service"})
INTERPRETER = re.compile(r"(python|pypy|perl|ruby|node|nodejs|php|lua|deno|bun|tclsh|Rscript)[0-9.]*")
CODE_RUNNERS = frozenset({"sh", "bash", "zsh", "dash", "ash", "ksh", "source", ".", "ansible", "ansible-playbook",
                          "salt", "make", "just"})
"""Programs that run code from a file, their input or an argument: a shell here runs a file or its input
(``sh -c`` scripts are followed by the parse), the others whatever their program or playbook says."""
SYSTEM_BIN = ("/bin/", "/sbin/", "/usr/bin/", "/usr/sbin/")
"""The distribution's programs; ``/usr/local/bin`` holds the site's own scripts, which the check cannot read."""
PROCESS_KILLERS = frozenset({"kill"})
"""Programs whose operands are process ids, which no inventory maps to a service."""
PATTERN_KILLERS = frozenset({"pkill", "killall", "pgrep"})
"""Programs that pick processes by a name or pattern (``pkill -f jelly``): any process may match."""
READ_BY_ARGUMENTS = (CONTAINER_PROGRAMS | COMPOSE_PROGRAMS | HOST_PROGRAMS | SERVICE_MANAGERS | PROCESS_KILLERS
                     | PATTERN_KILLERS | {"kubectl"})
"""Programs whose reach this module reads from their arguments, wherever they are installed (docker is often
in ``/usr/local/bin``)."""

_TOKEN_SPLIT = re.compile(r"[^a-z0-9_.-]+")
_NAME_PIECES = re.compile(r"[-_.]")
_CONTAINER_ID = re.compile(r"[0-9a-f]{4,64}")
_DECIMAL = re.compile(r"[0-9]{1,11}")


@dataclass(frozen=True)
class Reach:
    """Why a command may change a closed service: the service it names (``None``: it may change any) and how
    (empty when it simply names it)."""

    service: str | None
    how: str


def changes(command: ShellCommand) -> bool:
    """Whether the tool gate judges this one command (with its redirections) to change anything."""
    line = shlex.join(command.words)
    for operator, target in command.redirects:
        line += f" {operator} {shlex.quote(target)}"
    return command_refusal(line) is not None


def reach(command: ShellCommand, inventory: Inventory, closed: set[str]) -> Reach | None:
    """Why ``command`` (one that changes something) may change a service in ``closed``, or ``None``."""
    named = _named(command, inventory, closed)
    if named is not None:
        return named
    computed = [word for word in _targets(command) if isinstance(word, ComputedWord)]
    if computed:
        return Reach(None, f"acts on what the shell computes when it runs ({', '.join(computed[:3])})")
    if command.fed:
        return Reach(None, f"acts on what {_feeder(command)} reads from its input")
    if "" in command.containers:
        return Reach(None, "runs in a container it does not name (--latest)")
    code = _code_it_cannot_read(command)
    if code is not None:
        return Reach(None, code)
    if without_global_options(list(command.words))[0] in PATTERN_KILLERS:
        return Reach(None, "picks its processes by a name or pattern, which may match any service's")
    whole = _whole_host_or_engine(command)
    if whole is not None:
        return Reach(None, whole)
    unknown = _unmapped_ids(command, inventory)
    if unknown:
        return Reach(None, f"acts on {unknown[0]}, which the inventory cannot map to a service")
    return None


def closed_hosts(inventory: Inventory, closed: set[str]) -> dict[str, str]:
    """The hosts of closed services (not ``local``), each with its closed service."""
    hosts: dict[str, str] = {}
    for service in inventory:
        if service.name in closed and not service.is_local:
            hosts.setdefault(host_name(service.host), service.name)
    return hosts


def host_name(destination: str) -> str:
    """``admin@nas.lan:2222`` → ``nas.lan``: the machine an ssh destination or a host setting names."""
    return destination.lower().rpartition("@")[2].removeprefix("ssh://").split(":")[0].strip("[]")


def named_services(text: str, inventory: Inventory, closed: set[str]) -> Iterator[str]:
    """The closed services a word or a path names: by name, container, unit (``x.service``) or host."""
    hosts = closed_hosts(inventory, closed)
    for token in _TOKEN_SPLIT.split(text.lower()):
        token = token.strip(".")
        if not token:
            continue
        known = inventory.named_by(token)
        name = known.name if known is not None else token.removesuffix(".service")
        if name in closed:
            yield name
        elif token in hosts:
            yield hosts[token]
        else:  # compose's media-jellyfin-1, media_jellyfin_1, jellyfin.1, jellyfin.home.lan
            yield from (piece for piece in _NAME_PIECES.split(token) if piece in closed)


def _named(command: ShellCommand, inventory: Inventory, closed: set[str]) -> Reach | None:
    hosts = closed_hosts(inventory, closed)
    for host in command.hosts:
        if host_name(host) in hosts:
            return Reach(hosts[host_name(host)], f"it runs on {host_name(host)}, its host")
    for container in command.containers:
        for service in named_services(container, inventory, closed):
            return Reach(service, f"it runs in {container}")
    for word in [*command.words, *(target for _, target in command.redirects)]:
        for service in named_services(word, inventory, closed):
            return Reach(service, "")
    return None


def _targets(command: ShellCommand) -> list[str]:
    """Every word that may say what the command acts on: the program, its arguments, redirected files, the
    containers it runs in."""
    return [*command.words, *(target for _, target in command.redirects), *command.containers]


def _feeder(command: ShellCommand) -> str:
    return "ssh's login shell" if command.words[:1] == ["ssh"] else "xargs"


def _code_it_cannot_read(command: ShellCommand) -> str | None:
    """How the command runs code whose targets no parse of the line shows (``python3 -c``, ``./fix.sh``)."""
    program = command.words[0]
    if INTERPRETER.fullmatch(program) or program in CODE_RUNNERS:
        return f"runs code the check cannot read ({program})"
    if "/" in command.program and not command.program.startswith(SYSTEM_BIN):
        return f"runs {command.program}, a program the check cannot read"
    installed = _site_program(command)
    if installed is not None:
        return f"runs {installed}, a program the check cannot read"
    return None


def _site_program(command: ShellCommand) -> str | None:
    """Where a program named without its path is installed, when that is outside the distribution's directories
    (``restart-media`` found in ``/usr/local/bin``): a site's script, as unreadable as one run by its path.
    Only on this host: on an ``ssh`` host the program's place cannot be looked up."""
    if "/" in command.program or command.hosts or command.words[0] in READ_BY_ARGUMENTS:
        return None
    found = shutil.which(command.words[0])
    return found if found is not None and not found.startswith(SYSTEM_BIN) else None


def _whole_host_or_engine(command: ShellCommand) -> str | None:
    """How the command acts on a whole machine or container engine (every service on it), or ``None``."""
    words = without_global_options(list(command.words))
    program, rest = words[0], words[1:]
    if program in HOST_PROGRAMS:
        return "stops or restarts a whole host"
    if program in SERVICE_MANAGERS:
        if program == "systemctl" and rest and rest[0] in HOST_SYSTEMCTL:
            return "stops or restarts a whole host"
        if any(word.removesuffix(".service").removesuffix(".socket") in ENGINES for word in rest):
            return "restarts a container engine and every container on it"
    if program in CONTAINER_PROGRAMS and "prune" in rest[:2]:
        return f"prunes the whole {program} engine"
    compose = _compose_arguments(program, rest)
    if compose is not None and not _names_any(compose[1:]):
        return "acts on every service of the project (name the services to change)"
    return None


def _compose_arguments(program: str, rest: list[str]) -> list[str] | None:
    """The arguments of a compose sub-command (``up -d web``), or ``None`` for another command."""
    if program in CONTAINER_PROGRAMS and rest[:1] == ["compose"]:
        return rest[1:] or None
    if program in COMPOSE_PROGRAMS:
        return rest or None
    return None


def _names_any(arguments: list[str]) -> bool:
    """Whether a compose sub-command's arguments name services (options and their numbers do not)."""
    return any(not argument.startswith("-") and not argument.replace(".", "").isdigit() and "=" not in argument
               for argument in arguments)


def _unmapped_ids(command: ShellCommand, inventory: Inventory) -> list[str]:
    """Operands that may be a container id (hex) or a process id the inventory knows nothing of."""
    words = without_global_options(list(command.words))
    program, operands = words[0], [word for word in words[1:] if not word.startswith("-")]
    if program in PROCESS_KILLERS:
        return [word for word in operands if _DECIMAL.fullmatch(word)]
    if program not in CONTAINER_PROGRAMS:
        return []
    return [word for word in operands[1:] if _CONTAINER_ID.fullmatch(word.lower()) and not _DECIMAL.fullmatch(word)
            and inventory.named_by(word) is None]
