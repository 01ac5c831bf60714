"""Dry run: which tool calls would change something, so the runner can refuse them.

The agent is told it is a dry run (environment section), but telling is not enforcing: the
runner's tool gate asks :func:`mutating_reason` before every call of a dry-run session, and of
every tier-1 session (tier 1 observes). The check is deliberately conservative: file-writing
tools, and shell command lines any of whose simple commands is a known state change (restarts,
compose, service managers, package managers, git writes, HTTP writes, downloads into files,
file changes, redirection into a file, firewall and network changes, notifications, database
queries and admin commands that are not known to only read) or runs commands it cannot see (a
shell reading standard input, a script run by an interpreter or by its path) — found through
wrappers, chains, ``sh -c``, ``eval``, ``find -exec``, ``docker exec`` and ``ssh host …`` by
:mod:`claudeops.shell`, sub-commands after the program's global options (:mod:`claudeops.argv`).
Inline code (``python3 -c``, ``perl -e``, ``ruby -e``, ``node -e``, ``php -r``, an awk program) is
refused when it shows a way to run commands or change files (:mod:`claudeops.inline_code`).
Read-only diagnostics stay allowed, so a dry run still shows what the agent would have looked at.

The judgement of inline code is a heuristic against accidents and an agent that means no harm,
not a sandbox: code can always hide what it calls. Tier 1's guarantees are the deny rules, the
prompt, and this gate refusing everything it knows to change state.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from claudeops.toolgate.argv import Syntax, read_options, subcommand, values
from claudeops.toolgate.inline_code import awk_changes, code_changes
from claudeops.toolgate.queries import mongo_reads, psql_meta_reads, redis_reads, sql_reads, sqlite_dot_reads
from claudeops.toolgate.shell import SHELLS, commands_as_written

WRITING_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit"})


_COMPOSE_WRITES = frozenset({"up", "down", "restart", "start", "stop", "kill", "rm", "pull", "create", "run",
                             "pause", "unpause", "build", "push"})
_OBJECT_WRITES = frozenset({"rm", "create", "prune", "connect", "disconnect", "update", "scale", "rollback"})
_CONTAINER_WRITES = _OBJECT_WRITES | {"restart", "start", "stop", "kill", "run"}
_DOCKER_WRITES: dict[str, frozenset[str] | None] = {
    **dict.fromkeys(("restart", "start", "stop", "kill", "rm", "rmi", "pause", "unpause", "run", "update", "prune",
                     "cp", "commit", "tag", "push", "pull", "rename", "load", "import", "create", "swarm", "plugin"),
                    None),
    "compose": _COMPOSE_WRITES, "network": _OBJECT_WRITES, "volume": _OBJECT_WRITES, "service": _OBJECT_WRITES,
    "stack": frozenset({"deploy", "rm"}), "system": frozenset({"prune"}), "container": _CONTAINER_WRITES,
    "image": _OBJECT_WRITES | {"pull", "push", "tag", "load"}}

# program -> its state-changing sub-commands (found after the options it reads first, see
# claudeops.argv.SUBCOMMAND_OPTIONS); a nested set is checked one level further (``docker compose
# up``, ``docker network rm``). ``exec`` is not here: claudeops.shell judges the command it runs.
_MUTATING: dict[str, dict[str, frozenset[str] | None]] = {
    "docker": _DOCKER_WRITES,
    "podman": _DOCKER_WRITES | {"pod": _CONTAINER_WRITES, "kube": frozenset({"play", "down", "apply"}),
                                "play": frozenset({"kube"})},
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
    "ntfy": {**dict.fromkeys(("publish", "pub", "send", "trigger", "serve", "access"), None),
             "user": frozenset({"add", "del", "remove", "change-pass", "change-role", "change-tier"}),
             "token": frozenset({"add", "del", "remove"})},
}
_SERVICE_WRITES = frozenset({"start", "stop", "restart", "reload", "force-reload", "try-restart"})
_ALWAYS_MUTATING = frozenset({
    "rm", "rmdir", "mv", "cp", "touch", "mkdir", "chmod", "chown", "ln", "tee", "truncate", "dd", "install",
    "kill", "pkill", "killall", "reboot", "shutdown", "poweroff", "halt", "apprise", "ansible-playbook",
    "crontab", "useradd", "userdel", "usermod", "pip", "npm", "rsync", "scp", "umount",
    # notifications (logger too: a line in syslog is a message to whoever watches it)
    "mail", "mailx", "sendmail", "msmtp", "notify-send", "wall", "logger",
    # databases and firewalls created, dropped, rebuilt or replaced
    "createdb", "dropdb", "createuser", "dropuser", "vacuumdb", "reindexdb", "clusterdb", "pg_createcluster",
    "pg_dropcluster", *(f"{tables}{variant}-restore" for tables in ("iptables", "ip6tables")
                        for variant in ("", "-legacy", "-nft")),
})

_WRITES = "would change the system and is not run"
_UNSEEN = ("is not run: it reads its commands from standard input or a file, which cannot be checked "
           "(give read-only ones as arguments: psql -c, mysql -e, sqlite3 DB SQL, redis-cli COMMAND)")
_SCRIPT = "is not run: it runs a script this check cannot see (run its read-only commands directly)"
_CODE = ("is not run: its code can run commands or change files, which this check does not follow "
         "(run the commands directly, or use code that only reads and prints)")
"""What a refusal says: the command changes something, or it runs commands, a script or code the check
cannot see or follow (then the agent is told how to show them, so a read-only check is one rephrasing away)."""


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
    ``env``, ``timeout``, ``xargs``, ``eval``), chains, sub-shells, ``sh -c`` scripts, ``find -exec``,
    ``docker exec`` and ``ssh host …`` hide nothing.
    """
    found = _first_refused(command)
    return None if found is None else found[0]


def _first_refused(command: str) -> tuple[str, str] | None:
    """The first refused simple command of ``command`` (shortened to a line) and why it is refused."""
    for words in commands_as_written(command):
        if ">" in words[0]:  # a redirection into a file, at any depth (shell.py reports it as its own command)
            return "output redirection into a file", _WRITES
        why = _refusal(words)
        if why is not None:
            text = " ".join(words)
            return (text if len(text) <= 80 else text[:77] + "..."), why
    return None


def _refusal(words: list[str]) -> str | None:
    """Why one simple command is refused, or ``None``; ``words[0]`` is as written (:func:`commands_as_written`)."""
    program = words[0]
    if "/" in program:
        resolved = _program(program)
        if resolved is None:
            return _SCRIPT
        program = resolved
    if program in _ALWAYS_MUTATING:
        return _WRITES
    judge = _JUDGES.get(program)
    if judge is not None:
        return judge(words[1:])
    subcommands = _MUTATING.get(program)
    if subcommands is None:  # most diagnostics (cat, grep, df, journalctl): no need to look further
        return None
    found = subcommand(words[1:], program)
    if found is None or found[0] not in subcommands:
        return None
    nested = subcommands[found[0]]
    if nested is None:
        return _WRITES
    inner = subcommand(found[1], f"{program} {found[0]}")
    return _WRITES if inner is not None and inner[0] in nested else None


_SYSTEM_DIRECTORIES = frozenset({"/bin", "/sbin", "/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin",
                                  "/snap/bin"})
"""Where the programs a name finds live: ``/usr/bin/curl`` is ``curl``, and ``/bin/cat`` just ``cat``."""


def _program(path: str) -> str | None:
    """The program a path runs, judged by its name, or ``None`` for a script this check cannot see.

    A program the check knows (``/opt/venv/bin/python3``, ``/usr/local/bin/docker``) or one in a
    system directory is judged as its name would be; anything else run by a path (``./fix.sh``,
    ``~/bin/heal``, ``/srv/scripts/check.sh``) is local code, which may do anything.
    """
    directory, _, name = path.rpartition("/")
    return name if name in _KNOWN or directory in _SYSTEM_DIRECTORIES else None


def _sed(arguments: list[str]) -> str | None:
    """``sed -i`` edits files in place; any other sed only prints."""
    return _WRITES if any(word.startswith("-i") or word == "--in-place" for word in arguments) else None


_NO_OPTIONS = Syntax()
_DISCARDED = frozenset({"-", "/dev/null"})
"""Output files that are not files: standard output, or nowhere."""


def _service(arguments: list[str]) -> str | None:
    """``service NAME restart`` (the action comes second)."""
    _, operands = read_options(arguments, _NO_OPTIONS)
    return _WRITES if len(operands) >= 2 and operands[1] in _SERVICE_WRITES else None


def _unseen_script(arguments: list[str]) -> str | None:
    """A shell, ``source`` or ``ssh host`` that reaches this check runs a script file or standard input.

    :mod:`claudeops.shell` follows every command line it can see (``sh -c``, ``ssh host cmd``,
    ``docker exec db sh -c …``), so what is left (``echo 'cmd' | ssh nas``, ``bash fix.sh``,
    ``docker exec -it db sh``) is refused as unseen, as :func:`_psql` refuses SQL from stdin.
    """
    return None if arguments[:1] in (["--version"], ["--help"]) else _UNSEEN


_FIND_WRITES = frozenset({"-delete", "-fprint", "-fprint0", "-fprintf", "-fls"})


def _find(arguments: list[str]) -> str | None:
    """find deletes with ``-delete`` and writes files with ``-fprint…``/``-fls``.

    The commands of its ``-exec``/``-ok`` are judged on their own (:mod:`claudeops.shell` takes them out).
    """
    return _WRITES if _FIND_WRITES.intersection(arguments) else None


def _interpreter(options: list[tuple[str, str]], language: str, code_options: tuple[str, ...],
                 information: frozenset[str]) -> str | None:
    """An interpreter given inline code reads unless the code shows a signal (:mod:`claudeops.inline_code`).

    Without code it runs a script file, a module or standard input, none of which is seen,
    unless it only prints its version or help.
    """
    codes = values(options, *code_options)
    if codes:
        return _CODE if any(code_changes(language, code) for code in codes) else None
    return None if information.intersection(name for name, _ in options) else _SCRIPT


_PYTHON = Syntax(short_values="cmWX", long_values=frozenset({"--check-hash-based-pycs"}), permute=False,
                 ends_options="cm")
_PYTHON_INFORMATION = frozenset({"-V", "--version", "-h", "-?", "--help", "--help-env", "--help-xoptions",
                                 "--help-all"})
_READING_MODULES = frozenset({"json.tool", "json", "platform", "sysconfig", "site"})
"""Standard-library modules that only print (``python3 -m json.tool``); ``json.tool IN OUT`` writes OUT."""
_JSON_TOOL = Syntax(long_values=frozenset({"--indent"}))


def _python(arguments: list[str]) -> str | None:
    """``python3 -c CODE`` is judged by its code; ``-m`` reads only for :data:`_READING_MODULES`.

    A script, another module, ``-i`` or standard input (``python3 <<EOF``) is code this check cannot see.
    """
    options, operands = read_options(arguments, _PYTHON)
    module = values(options, "-m")
    if "-i" in (name for name, _ in options):
        return _SCRIPT
    if not module:
        return _interpreter(options, "python", ("-c",), _PYTHON_INFORMATION)
    if module[0] not in _READING_MODULES:
        return _SCRIPT
    if module[0].startswith("json"):
        _, files = read_options(operands, _JSON_TOOL)
        return _WRITES if len(files) > 1 and files[1] not in _DISCARDED else None
    return None


_PERL = Syntax(short_values="eEI", short_attached="iMmxFVdD", permute=False)
"""perl's switches up to the script (``-l``, ``-0`` and ``-C`` take digits, read here as more switches)."""
_PERL_INFORMATION = frozenset({"-v", "-V", "-h", "--version", "--help"})


def _perl(arguments: list[str]) -> str | None:
    """``perl -i`` (``-pi -e``, ``-i.bak``) edits files in place; ``-e``/``-E`` code is judged, a script is not seen."""
    options, _ = read_options(arguments, _PERL)
    if any(name == "-i" for name, _ in options):
        return _WRITES
    return _interpreter(options, "perl", ("-e", "-E"), _PERL_INFORMATION)


_RUBY = Syntax(short_values="eIrCFE", short_attached="ixWKT0", long_values=frozenset({
    "--encoding", "--external-encoding", "--internal-encoding"}), permute=False)
_RUBY_INFORMATION = frozenset({"-v", "--version", "-h", "--help", "-c"})


def _ruby(arguments: list[str]) -> str | None:
    """``ruby -i`` edits files in place; ``-e`` code is judged, a script is not seen (``-c`` only checks syntax)."""
    options, _ = read_options(arguments, _RUBY)
    if any(name == "-i" for name, _ in options):
        return _WRITES
    return _interpreter(options, "ruby", ("-e",), _RUBY_INFORMATION)


_NODE = Syntax(clusters=False, long_values=frozenset({
    "-e", "-eval", "-p", "-print", "-pe", "-r", "-require", "-import", "-loader", "-experimental-loader",
    "-input-type", "-conditions", "-C", "-title"}), permute=False)
"""node spells options like ``--eval`` and ``-pe`` (print and eval) whole; read with one dash (``-eval``)."""
_NODE_INFORMATION = frozenset({"-v", "-version", "-h", "-help", "-c", "-check", "-V8-options"})


def _node(arguments: list[str]) -> str | None:
    """``node -e``/``-p`` code is judged; a script, standard input and preloaded modules (``-r``) are not seen."""
    options, _ = read_options(arguments, _NODE)
    if {"-r", "-require", "-import", "-loader", "-experimental-loader"}.intersection(name for name, _ in options):
        return _SCRIPT
    return _interpreter(options, "node", ("-e", "-eval", "-p", "-print", "-pe"), _NODE_INFORMATION)


_PHP = Syntax(short_values="rfBRFEdcztS", permute=False)
_PHP_INFORMATION = frozenset({"-v", "--version", "-h", "--help", "-m", "-i", "-l", "-s", "-w"})
"""Besides version and help: modules, phpinfo, and ``-l``/``-s``/``-w`` (lint, highlight, strip) read a script."""


def _php(arguments: list[str]) -> str | None:
    """``php -r`` code (also ``-B``/``-R``/``-E``) is judged; a script or the built-in server (``-S``) is not seen."""
    options, _ = read_options(arguments, _PHP)
    if {"-f", "-F", "-S"}.intersection(name for name, _ in options):
        return _SCRIPT
    return _interpreter(options, "php", ("-r", "-B", "-R", "-E"), _PHP_INFORMATION)


_AWK = Syntax(short_values="fFveEilW", short_attached="opdDL", long_values=frozenset({
    "--field-separator", "--assign", "--file", "--source", "--exec", "--include", "--load"}), permute=False)
_AWK_WRITES = frozenset({"-o", "-p", "-d", "--pretty-print", "--profile", "--dump-variables"})
"""gawk options that write a file (a pretty-printed program, a profile, the variables)."""
_AWK_UNSEEN = frozenset({"-f", "--file", "-E", "--exec", "-l", "--load", "-D", "--debug"})
"""A program file, an extension, or the debugger reading its commands."""


def _awk(arguments: list[str]) -> str | None:
    """awk's program (its first operand, or gawk's ``-e``) is judged (:func:`claudeops.inline_code.awk_changes`).

    A program file (``-f``), an included file or extension is not seen, and ``-i inplace`` edits files.
    """
    options, operands = read_options(arguments, _AWK)
    names = {name for name, _ in options}
    included = values(options, "-i", "--include")
    if names & _AWK_WRITES or "inplace" in included:
        return _WRITES
    if names & _AWK_UNSEEN or included or any(value.startswith("e") for value in values(options, "-W")):
        return _SCRIPT
    programs = values(options, "-e", "--source") or operands[:1]
    return _CODE if any(map(awk_changes, programs)) else None


_CURL = Syntax(short_values="AbcCdDeEFHKmoPQrTtuUwxXyYz", long_values=frozenset({
    "--output", "--dump-header", "--cookie-jar", "--trace", "--trace-ascii", "--libcurl", "--etag-save", "--stderr",
    "--request", "--data", "--data-ascii", "--data-binary", "--data-raw", "--data-urlencode", "--json", "--form",
    "--form-string", "--upload-file", "--header", "--user", "--user-agent", "--max-time", "--connect-timeout",
    "--write-out", "--url", "--cookie", "--referer", "--proxy", "--resolve", "--connect-to", "--retry",
    "--retry-delay", "--retry-max-time", "--cacert", "--capath", "--cert", "--key", "--cert-type", "--key-type",
    "--output-dir", "--config", "--interface", "--range", "--continue-at", "--max-filesize", "--limit-rate",
    "--unix-socket", "--abstract-unix-socket", "--oauth2-bearer", "--proto", "--proto-redir", "--noproxy",
    "--proxy-user", "--dns-servers", "--pinnedpubkey", "--ciphers", "--tls-max", "--variable", "--aws-sigv4",
    "--expect100-timeout", "--happy-eyeballs-timeout-ms", "--max-redirs", "--speed-time", "--speed-limit"}))
_CURL_SENDS = frozenset({"-d", "--data", "--data-ascii", "--data-binary", "--data-raw", "--data-urlencode", "--json",
                         "-F", "--form", "--form-string", "-T", "--upload-file"})
_CURL_SAVES = ("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii",
               "--libcurl", "--etag-save", "--stderr")
"""Options that write what curl fetches, or a log of it, into the file they name."""
_CURL_REMOTE_NAMES = frozenset({"-O", "--remote-name", "--remote-name-all"})


def _curl(arguments: list[str]) -> str | None:
    """curl writes over HTTP when it sends a body (``-d``, ``--json``, ``-F``, ``-T``) or a writing method,
    and writes a file with ``-o FILE``/``-O`` (not ``-o /dev/null`` or ``-o -``), a header dump, a cookie jar
    or a trace."""
    options, _ = read_options(arguments, _CURL)
    names = {name for name, _ in options}
    methods = {method.upper() for method in values(options, "-X", "--request")}
    if names & _CURL_SENDS or names & _CURL_REMOTE_NAMES or not methods <= {"GET", "HEAD"}:
        return _WRITES
    return None if _DISCARDED.issuperset(values(options, *_CURL_SAVES)) else _WRITES


_IPTABLES = Syntax(short_values="tsdiopjgm", long_values=frozenset({
    "--table", "--source", "--destination", "--in-interface", "--out-interface", "--protocol", "--jump", "--goto",
    "--match"}))
_IPTABLES_READS = frozenset({"-L", "--list", "-S", "--list-rules", "-C", "--check", "-V", "--version", "-h",
                             "--help"})
_IPTABLES_WRITES = frozenset({"-A", "-D", "-I", "-R", "-F", "-Z", "-N", "-X", "-P", "-E"})
_IPTABLES_LONG_WRITES = ("--append", "--delete", "--insert", "--replace", "--flush", "--zero", "--new-chain",
                         "--delete-chain", "--policy", "--rename-chain")


def _iptables(arguments: list[str]) -> str | None:
    """iptables reads only when listing (``-L``, ``-S``, ``-nvL``) or checking a rule (``-C``), and zeroes
    nothing (``-L -Z``); long options count in any abbreviation getopt accepts (``--fl`` is ``--flush``)."""
    options, _ = read_options(arguments, _IPTABLES)
    names = {name for name, _ in options}
    writes = names & _IPTABLES_WRITES or any(
        name.startswith("--") and len(name) > 2 and option.startswith(name)
        for name in names for option in _IPTABLES_LONG_WRITES)
    return None if names & _IPTABLES_READS and not writes else _WRITES


_NFT = Syntax(short_values="fIDd", long_values=frozenset({"--file", "--includepath", "--define", "--debug"}),
              permute=False)
_NFT_READS = frozenset({"list", "describe"})


def _nft(arguments: list[str]) -> str | None:
    """``nft list …`` reads, and so does anything under ``-c`` (check only); a file or ``-i`` is not seen.

    Several commands may share one argument (``nft 'list ruleset; flush ruleset'``): each must read.
    """
    options, operands = read_options(arguments, _NFT)
    names = {name for name, _ in options}
    if names & {"-c", "--check", "-v", "-V", "--version", "-h", "--help"}:
        return None
    if names & {"-f", "--file", "-i", "--interactive"}:
        return _UNSEEN
    commands = [command.split() for command in re.split(r"[;\n]", " ".join(operands))]
    return None if all(not words or words[0] in _NFT_READS for words in commands) else _WRITES


_IP = Syntax(clusters=False, long_values=frozenset({
    "-n", "-netns", "-b", "-batch", "-f", "-family", "-l", "-loops", "-rc", "-rcvbuf"}), permute=False)
_IP_READS = frozenset({"show", "list", "lst", "ls", "get", "help"})


def _ip(arguments: list[str]) -> str | None:
    """``ip OBJECT`` alone or with ``show``/``list``/``get`` reads; ``set``, ``add``, ``del``, ``flush``… write.

    ip also accepts any prefix of a command (``ip a s``): only the full reading words are let through.
    ``-batch`` (any prefix of it) runs commands from a file, which is not seen.
    """
    options, operands = read_options(arguments, _IP)
    if any(len(name) > 1 and "-batch".startswith(name) for name, _ in options):
        return _UNSEEN
    return None if len(operands) < 2 or operands[1] in _IP_READS else _WRITES


_MYSQLADMIN = Syntax(short_values="hPuSci", short_attached="p", long_values=frozenset({
    "--host", "--port", "--user", "--socket", "--count", "--sleep", "--defaults-file", "--defaults-extra-file",
    "--login-path", "--protocol", "--default-character-set", "--connect-timeout", "--shutdown-timeout",
    "--character-sets-dir", "--plugin-dir", "--default-auth"}))
_MYSQLADMIN_READS = frozenset({"status", "ping", "version", "variables", "processlist", "extended-status"})


def _mysqladmin(arguments: list[str]) -> str | None:
    """mysqladmin reads when every command does (``ping``, ``status``…); not ``shutdown``, ``flush-*``, ``kill``…"""
    _, commands = read_options(arguments, _MYSQLADMIN)
    return None if _MYSQLADMIN_READS.issuperset(command.lower() for command in commands) else _WRITES


_PG_CTL = Syntax(short_values="DlmoptNPSUe", long_values=frozenset({"--pgdata", "--log", "--mode", "--options",
                                                                    "--timeout"}))


def _pg_ctl(arguments: list[str]) -> str | None:
    """``pg_ctl status`` reads; start, stop, restart, reload, promote, kill, init… do not."""
    _, operands = read_options(arguments, _PG_CTL)
    return None if operands[:1] in ([], ["status"]) else _WRITES


_MONGOSH = Syntax(short_values="upf", long_values=frozenset({
    "--eval", "--host", "--port", "--username", "--password", "--authenticationDatabase",
    "--authenticationMechanism", "--file", "--tlsCAFile", "--tlsCertificateKeyFile", "--apiVersion"}))


def _mongosh(arguments: list[str]) -> str | None:
    """mongosh (and mongo) read when every ``--eval`` is a known status call (:func:`claudeops.queries.mongo_reads`).

    Anything else is JavaScript this check cannot judge, and without ``--eval`` the shell reads
    standard input or a script file: all refused as unseen, as :func:`_psql` explains.
    """
    options, operands = read_options(arguments, _MONGOSH)
    names = {name for name, _ in options}
    if names & {"--version", "-h", "--help"}:
        return None
    evals = values(options, "--eval")
    if not evals or names & {"-f", "--file", "--shell"} or any(operand.endswith(".js") for operand in operands):
        return _UNSEEN
    return None if all(map(mongo_reads, evals)) else _UNSEEN


_MOUNT = Syntax(short_values="tOoLUN", long_values=frozenset({
    "--types", "--test-opts", "--options", "--label", "--uuid", "--namespace", "--target", "--source"}))
_MOUNT_SOURCES = frozenset({"-a", "--all", "--target", "--source", "-L", "--label", "-U", "--uuid"})
"""mount options that name what to mount, where an operand would."""


def _mount(arguments: list[str]) -> str | None:
    """``mount`` with nothing to mount (``mount``, ``mount -t nfs4``) only lists what is mounted."""
    options, operands = read_options(arguments, _MOUNT)
    return _WRITES if operands or any(name in _MOUNT_SOURCES for name, _ in options) else None


_WGET = Syntax(short_values="oaiBtOTwQPUlARDIXe", long_values=frozenset({
    "--output-document", "--output-file", "--append-output", "--input-file", "--method", "--post-data",
    "--post-file", "--body-data", "--body-file", "--save-cookies", "--load-cookies", "--warc-file", "--header",
    "--user", "--password", "--user-agent", "--tries", "--timeout", "--wait", "--directory-prefix", "--level",
    "--base", "--execute"}))
_WGET_SENDS_BODY = frozenset({"--post-data", "--post-file", "--body-data", "--body-file"})
_WGET_WRITES_FILE = frozenset({"-b", "--background", "--save-cookies", "--warc-file"})


def _wget(arguments: list[str]) -> str | None:
    """wget saves what it fetches into a file unless told ``-O -`` (stdout), ``-O /dev/null`` or ``--spider``.

    It also writes when it sends a body or a writing method, keeps a log (``-o``, ``-a``, ``-b``),
    or saves cookies or a WARC archive.
    """
    options, _ = read_options(arguments, _WGET)
    names = {name for name, _ in options}
    if names & {"-V", "--version", "-h", "--help"}:
        return None
    methods = {method.upper() for method in values(options, "--method")}
    if names & _WGET_SENDS_BODY or not methods <= {"GET", "HEAD"}:
        return _WRITES
    logs = values(options, "-o", "--output-file", "-a", "--append-output")
    if names & _WGET_WRITES_FILE or not _DISCARDED.issuperset(logs):
        return _WRITES
    output = values(options, "-O", "--output-document")
    return None if "--spider" in names or (output and output[-1] in _DISCARDED) else _WRITES


_PSQL = Syntax(short_values="cdfFhLopPRTUv", long_values=frozenset({
    "--command", "--dbname", "--file", "--field-separator", "--host", "--log-file", "--output", "--port",
    "--pset", "--record-separator", "--table-attr", "--username", "--set", "--variable"}))


def _psql(arguments: list[str]) -> str | None:
    """psql reads when every ``-c`` is a reading SQL text or meta-command.

    Without ``-c``, or with ``-f``, psql runs SQL this check cannot see (a heredoc, a pipe,
    ``< file.sql``, a script file): that is refused rather than guessed, because at tier 1 and
    in a dry run a refused read costs one rephrasing (``psql -c '…'``) and an allowed write
    cannot be undone. ``-o``/``-L`` write the results or a log into a file.
    """
    options, _ = read_options(arguments, _PSQL)
    names = {name for name, _ in options}
    if names & {"-V", "--version", "-?", "--help"}:
        return None
    if names & {"-o", "--output", "-L", "--log-file"}:
        return _WRITES
    if names & {"-l", "--list"}:
        return None
    commands = values(options, "-c", "--command")
    if not commands or names & {"-f", "--file"}:
        return _UNSEEN
    reads = all(psql_meta_reads(text) if text.startswith("\\") else sql_reads(text) for text in commands)
    return None if reads else _WRITES


_MYSQL = Syntax(short_values="eDhPSu", short_attached="p", long_values=frozenset({
    "--execute", "--database", "--host", "--port", "--socket", "--user", "--init-command", "--tee",
    "--defaults-file", "--defaults-extra-file", "--login-path", "--protocol", "--default-character-set"}))


def _mysql(arguments: list[str]) -> str | None:
    """mysql (and mariadb) read when every ``-e`` and ``--init-command`` is reading SQL.

    Without ``-e`` the SQL comes from standard input (a heredoc, a pipe, ``< dump.sql``), which
    this check cannot see: refused, for the reason :func:`_psql` gives. ``--tee`` writes a file.
    """
    options, _ = read_options(arguments, _MYSQL)
    names = {name for name, _ in options}
    if names & {"-V", "--version", "-?", "-I", "--help"}:
        return None
    if "--tee" in names:
        return _WRITES
    statements = values(options, "-e", "--execute")
    if not statements:
        return _UNSEEN
    return None if all(map(sql_reads, statements + values(options, "--init-command"))) else _WRITES


_SQLITE = Syntax(clusters=False, long_values=frozenset({
    "-cmd", "-init", "-separator", "-newline", "-nullvalue", "-vfs", "-maxsize", "-mmap", "-escape"}))


def _sqlite3(arguments: list[str]) -> str | None:
    """``sqlite3 DB 'SQL' '.dot'`` reads when each SQL argument, ``-cmd`` and dot command reads.

    With no SQL after the database sqlite3 reads standard input (a heredoc, ``< dump.sql``), and
    ``-init`` runs a file: neither can be seen, so both are refused (see :func:`_psql`).
    ``-A`` (archive mode) writes.
    """
    options, operands = read_options(arguments, _SQLITE)
    names = {name for name, _ in options}
    if names & {"-version", "-help"}:
        return None
    if any(name.startswith("-A") for name in names):
        return _WRITES
    if len(operands) < 2 or "-init" in names:
        return _UNSEEN
    commands = operands[1:] + values(options, "-cmd")
    reads = all(sqlite_dot_reads(text) if text.startswith(".") else sql_reads(text) for text in commands)
    return None if reads else _WRITES


_REDIS = Syntax(short_values="hpstauirnXdD", permute=False, long_values=frozenset({
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
    options, command = read_options(arguments, _REDIS)
    names = {name for name, _ in options}
    if names & {"-v", "--version", "--help"}:
        return None
    if names & {"--rdb", "--functions-rdb", "--lru-test"}:
        return _WRITES
    if names & {"--pipe", "--eval"}:
        return _UNSEEN
    cluster = values(options, "--cluster")
    if cluster:
        return None if cluster[-1].lower() in ("check", "info", "help") else _WRITES
    if not command:
        return None if names & _REDIS_READING_MODES else _UNSEEN
    return None if redis_reads(command) else _WRITES


_JUDGES: dict[str, Callable[[list[str]], str | None]] = {
    "sed": _sed, "curl": _curl, "wget": _wget, "mount": _mount, "service": _service, "psql": _psql, "mysql": _mysql,
    "mariadb": _mysql, "sqlite3": _sqlite3, "redis-cli": _redis_cli, "find": _find, "perl": _perl,
    **{f"{tables}{variant}": _iptables for tables in ("iptables", "ip6tables") for variant in ("", "-legacy", "-nft")},
    "nft": _nft, "ip": _ip, "mysqladmin": _mysqladmin,
    "mariadb-admin": _mysqladmin, "pg_ctl": _pg_ctl, "mongosh": _mongosh, "mongo": _mongosh,
    "ssh": _unseen_script, "source": _unseen_script, ".": _unseen_script, **dict.fromkeys(SHELLS, _unseen_script),
    **dict.fromkeys(("python", "python2", "python3", "python2.7", "pypy", "pypy3",
                     *(f"python3.{minor}" for minor in range(6, 20))), _python),
    "ruby": _ruby, **dict.fromkeys((f"ruby{major}.{minor}" for major in (2, 3) for minor in range(10)), _ruby),
    "node": _node, "nodejs": _node,
    "php": _php, **dict.fromkeys((f"php{major}.{minor}" for major in (7, 8) for minor in range(10)), _php),
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"), _awk),
}
"""Programs whose options and operands decide (the rest are decided by their name or sub-command); interpreters
go by their versioned names too (``python3.11``, ``php8.2``), so the lookup stays one dict access."""

_KNOWN = frozenset(_JUDGES) | _ALWAYS_MUTATING | frozenset(_MUTATING)
"""Programs this check judges, wherever they are installed (:func:`_program`)."""
