"""Dry run: which tool calls would change something, so the runner can refuse them.

The agent is told it is a dry run (environment section), but telling is not enforcing: the
runner's tool gate asks :func:`mutating_reason` before every call of a dry-run session, and of
every tier-1 session (tier 1 observes). The check is deliberately conservative: file-writing
tools, and shell command lines any of whose simple commands is a known state change (restarts,
compose, service managers, package managers, git writes, HTTP writes, downloads into files,
file changes, redirection into a file, database queries that are not known to only read) — found
through wrappers, chains, ``sh -c`` and ``ssh host …`` by :mod:`claudeops.shell`. Read-only
diagnostics stay allowed, so a dry run still shows what the agent would have looked at.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from claudeops.queries import psql_meta_reads, redis_reads, sql_reads, sqlite_dot_reads
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
    "crontab", "useradd", "userdel", "usermod", "pip", "npm", "rsync", "scp", "umount",
})
_CURL_HTTP_WRITE = re.compile(r"(?:-X|--request)\s*['\"]?(?:POST|PUT|PATCH|DELETE)\b|\s(?:-d|--data\S*|-F|--form)\b",
                              re.IGNORECASE)

_WRITES = "would change the system and is not run"
_UNSEEN = ("is not run: it reads its commands from standard input or a file, which cannot be checked "
           "(give read-only ones as arguments: psql -c, mysql -e, sqlite3 DB SQL, redis-cli COMMAND)")
"""What a refusal says: the command changes something, or it runs commands the check cannot see
(then the agent is told how to show them, so a read-only query is one rephrasing away)."""


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
    found = _first_refused(str(tool_input.get("command", "")))
    if found is None:
        return None
    text, why = found
    return f"{mode}: `{text}` {why}; report what you would do instead"


def mutating_command(command: str) -> str | None:
    """The first state-changing simple command of a shell command line, or ``None``.

    The line is taken apart by :func:`claudeops.shell.simple_commands`, so wrappers (``sudo``,
    ``env``, ``timeout``), chains, sub-shells, ``sh -c`` scripts and ``ssh host …`` hide nothing.
    """
    found = _first_refused(command)
    return None if found is None else found[0]


def _first_refused(command: str) -> tuple[str, str] | None:
    """The first refused simple command of ``command`` (shortened to a line) and why it is refused."""
    if ">" in command and _FILE_REDIRECT.search(command):  # one memchr settles most commands
        return "output redirection into a file", _WRITES
    for words in simple_commands(command):
        why = _refusal(words)
        if why is not None:
            text = " ".join(words)
            return (text if len(text) <= 80 else text[:77] + "..."), why
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


def _refusal(words: list[str]) -> str | None:
    """Why one simple command is refused, or ``None``; ``words[0]`` is a base name (:func:`simple_commands`)."""
    program = words[0]
    if program in _ALWAYS_MUTATING:
        return _WRITES
    judge = _JUDGES.get(program)
    if judge is not None:
        return judge(words[1:])
    subcommands = _MUTATING.get(program)
    if subcommands is None:  # most diagnostics (cat, grep, df, journalctl): no need to look further
        return None
    arguments = _positional(words[1:])
    if not arguments or arguments[0] not in subcommands:
        return None
    nested = subcommands[arguments[0]]
    return _WRITES if nested is None or (len(arguments) > 1 and arguments[1] in nested) else None


@dataclass(frozen=True)
class _Syntax:
    """How a program spells its options: enough to find each option's value and the operands."""

    short_values: str = ""
    """Short options that take a value, attached (``-cSQL``) or as the next word (``-c SQL``)."""
    short_attached: str = ""
    """Short options whose value can only be attached (mysql's ``-pSECRET``; a bare ``-p`` prompts)."""
    long_values: frozenset[str] = frozenset()
    """Long options that take the next word as their value unless written ``--name=value``."""
    clusters: bool = True
    """``-Atc`` is ``-A -t -c``; sqlite3 instead spells whole options with one dash (``-readonly``)."""
    permute: bool = True
    """Options may follow operands (GNU style); redis-cli's command ends its options instead."""


def _read_options(words: list[str], syntax: _Syntax) -> tuple[list[tuple[str, str]], list[str]]:
    """``(option, value)`` pairs (value ``""`` for a flag) and the operands, as the program would read them."""
    options: list[tuple[str, str]] = []
    operands: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word == "--":
            operands.extend(words[index:])
            break
        if word == "-" or not word.startswith("-"):
            if not syntax.permute:
                operands.extend(words[index - 1:])
                break
            operands.append(word)
            continue
        if word.startswith("--") or not syntax.clusters:
            name, equals, value = word.partition("=")
            name = name if syntax.clusters else "-" + name.lstrip("-")
            if not equals and name in syntax.long_values and index < len(words):
                value, index = words[index], index + 1
            options.append((name, value))
            continue
        for position, letter in enumerate(word[1:], start=2):
            value = word[position:]
            if letter in syntax.short_attached or letter in syntax.short_values:
                if not value and letter in syntax.short_values and index < len(words):
                    value, index = words[index], index + 1
                options.append(("-" + letter, value))
                break
            options.append(("-" + letter, ""))
    return options, operands


def _values(options: list[tuple[str, str]], *names: str) -> list[str]:
    """The values given to any of ``names``, in order."""
    return [value for name, value in options if name in names]


def _sed(arguments: list[str]) -> str | None:
    """``sed -i`` edits files in place; any other sed only prints."""
    return _WRITES if any(word.startswith("-i") or word == "--in-place" for word in arguments) else None


def _curl(arguments: list[str]) -> str | None:
    """curl writes over HTTP when it sends a body or a writing method."""
    return _WRITES if _CURL_HTTP_WRITE.search(" " + " ".join(arguments)) else None


def _service(arguments: list[str]) -> str | None:
    """``service NAME restart`` (the action comes second)."""
    positional = _positional(arguments)
    return _WRITES if len(positional) >= 2 and positional[1] in _SERVICE_WRITES else None


_MOUNT = _Syntax(short_values="tOoLUN", long_values=frozenset({
    "--types", "--test-opts", "--options", "--label", "--uuid", "--namespace", "--target", "--source"}))
_MOUNT_SOURCES = frozenset({"-a", "--all", "--target", "--source", "-L", "--label", "-U", "--uuid"})
"""mount options that name what to mount, where an operand would."""


def _mount(arguments: list[str]) -> str | None:
    """``mount`` with nothing to mount (``mount``, ``mount -t nfs4``) only lists what is mounted."""
    options, operands = _read_options(arguments, _MOUNT)
    return _WRITES if operands or any(name in _MOUNT_SOURCES for name, _ in options) else None


_WGET = _Syntax(short_values="oaiBtOTwQPUlARDIXe", long_values=frozenset({
    "--output-document", "--output-file", "--append-output", "--input-file", "--method", "--post-data",
    "--post-file", "--body-data", "--body-file", "--save-cookies", "--load-cookies", "--warc-file", "--header",
    "--user", "--password", "--user-agent", "--tries", "--timeout", "--wait", "--directory-prefix", "--level",
    "--base", "--execute"}))
_WGET_SENDS_BODY = frozenset({"--post-data", "--post-file", "--body-data", "--body-file"})
_WGET_WRITES_FILE = frozenset({"-b", "--background", "--save-cookies", "--warc-file"})
_DISCARDED = frozenset({"-", "/dev/null"})
"""Output files that are not files: standard output, or nowhere."""


def _wget(arguments: list[str]) -> str | None:
    """wget saves what it fetches into a file unless told ``-O -`` (stdout), ``-O /dev/null`` or ``--spider``.

    It also writes when it sends a body or a writing method, keeps a log (``-o``, ``-a``, ``-b``),
    or saves cookies or a WARC archive.
    """
    options, _ = _read_options(arguments, _WGET)
    names = {name for name, _ in options}
    if names & {"-V", "--version", "-h", "--help"}:
        return None
    methods = {method.upper() for method in _values(options, "--method")}
    if names & _WGET_SENDS_BODY or not methods <= {"GET", "HEAD"}:
        return _WRITES
    logs = _values(options, "-o", "--output-file", "-a", "--append-output")
    if names & _WGET_WRITES_FILE or not _DISCARDED.issuperset(logs):
        return _WRITES
    output = _values(options, "-O", "--output-document")
    return None if "--spider" in names or (output and output[-1] in _DISCARDED) else _WRITES


_PSQL = _Syntax(short_values="cdfFhLopPRTUv", long_values=frozenset({
    "--command", "--dbname", "--file", "--field-separator", "--host", "--log-file", "--output", "--port",
    "--pset", "--record-separator", "--table-attr", "--username", "--set", "--variable"}))


def _psql(arguments: list[str]) -> str | None:
    """psql reads when every ``-c`` is a reading SQL text or meta-command.

    Without ``-c``, or with ``-f``, psql runs SQL this check cannot see (a heredoc, a pipe,
    ``< file.sql``, a script file): that is refused rather than guessed, because at tier 1 and
    in a dry run a refused read costs one rephrasing (``psql -c '…'``) and an allowed write
    cannot be undone. ``-o``/``-L`` write the results or a log into a file.
    """
    options, _ = _read_options(arguments, _PSQL)
    names = {name for name, _ in options}
    if names & {"-V", "--version", "-?", "--help"}:
        return None
    if names & {"-o", "--output", "-L", "--log-file"}:
        return _WRITES
    if names & {"-l", "--list"}:
        return None
    commands = _values(options, "-c", "--command")
    if not commands or names & {"-f", "--file"}:
        return _UNSEEN
    reads = all(psql_meta_reads(text) if text.startswith("\\") else sql_reads(text) for text in commands)
    return None if reads else _WRITES


_MYSQL = _Syntax(short_values="eDhPSu", short_attached="p", long_values=frozenset({
    "--execute", "--database", "--host", "--port", "--socket", "--user", "--init-command", "--tee",
    "--defaults-file", "--defaults-extra-file", "--login-path", "--protocol", "--default-character-set"}))


def _mysql(arguments: list[str]) -> str | None:
    """mysql (and mariadb) read when every ``-e`` and ``--init-command`` is reading SQL.

    Without ``-e`` the SQL comes from standard input (a heredoc, a pipe, ``< dump.sql``), which
    this check cannot see: refused, for the reason :func:`_psql` gives. ``--tee`` writes a file.
    """
    options, _ = _read_options(arguments, _MYSQL)
    names = {name for name, _ in options}
    if names & {"-V", "--version", "-?", "-I", "--help"}:
        return None
    if "--tee" in names:
        return _WRITES
    statements = _values(options, "-e", "--execute")
    if not statements:
        return _UNSEEN
    return None if all(map(sql_reads, statements + _values(options, "--init-command"))) else _WRITES


_SQLITE = _Syntax(clusters=False, long_values=frozenset({
    "-cmd", "-init", "-separator", "-newline", "-nullvalue", "-vfs", "-maxsize", "-mmap", "-escape"}))


def _sqlite3(arguments: list[str]) -> str | None:
    """``sqlite3 DB 'SQL' '.dot'`` reads when each SQL argument, ``-cmd`` and dot command reads.

    With no SQL after the database sqlite3 reads standard input (a heredoc, ``< dump.sql``), and
    ``-init`` runs a file: neither can be seen, so both are refused (see :func:`_psql`).
    ``-A`` (archive mode) writes.
    """
    options, operands = _read_options(arguments, _SQLITE)
    names = {name for name, _ in options}
    if names & {"-version", "-help"}:
        return None
    if any(name.startswith("-A") for name in names):
        return _WRITES
    if len(operands) < 2 or "-init" in names:
        return _UNSEEN
    commands = operands[1:] + _values(options, "-cmd")
    reads = all(sqlite_dot_reads(text) if text.startswith(".") else sql_reads(text) for text in commands)
    return None if reads else _WRITES


_REDIS = _Syntax(short_values="hpstauirnXdD", permute=False, long_values=frozenset({
    "--user", "--pass", "--sni", "--cacert", "--cacertdir", "--cert", "--key", "--tls-ciphers",
    "--tls-ciphersuites", "--rdb", "--functions-rdb", "--pipe-timeout", "--memkeys-samples", "--keystats-samples",
    "--pattern", "--quoted-pattern", "--count", "--intrinsic-latency", "--eval", "--lru-test", "--cluster"}))
_REDIS_READING_MODES = frozenset({"--scan", "--bigkeys", "--memkeys", "--hotkeys", "--keystats", "--stat",
                                  "--latency", "--latency-history", "--latency-dist", "--intrinsic-latency",
                                  "--replica"})
"""redis-cli modes that only read and run no command of their own."""


def _redis_cli(arguments: list[str]) -> str | None:
    """``redis-cli [options] COMMAND …`` reads when its command does (:func:`claudeops.queries.redis_reads`).

    Without a command (and outside a reading mode such as ``--scan``) redis-cli takes commands
    from standard input, as do ``--pipe`` and the ``--eval`` script file: refused, as in
    :func:`_psql`. ``--rdb`` saves a dump file, ``--lru-test`` fills the database, and
    ``--cluster`` does more than ``check`` or ``info``.
    """
    options, command = _read_options(arguments, _REDIS)
    names = {name for name, _ in options}
    if names & {"-v", "--version", "--help"}:
        return None
    if names & {"--rdb", "--functions-rdb", "--lru-test"}:
        return _WRITES
    if names & {"--pipe", "--eval"}:
        return _UNSEEN
    cluster = _values(options, "--cluster")
    if cluster:
        return None if cluster[-1].lower() in ("check", "info", "help") else _WRITES
    if not command:
        return None if names & _REDIS_READING_MODES else _UNSEEN
    return None if redis_reads(command) else _WRITES


_JUDGES: dict[str, Callable[[list[str]], str | None]] = {
    "sed": _sed, "curl": _curl, "wget": _wget, "mount": _mount, "service": _service, "psql": _psql, "mysql": _mysql,
    "mariadb": _mysql, "sqlite3": _sqlite3, "redis-cli": _redis_cli,
}
"""Programs whose options and operands decide (the rest are decided by their name or sub-command)."""
