"""Checks of the read-only programs whose options alone do not tell whether a call only reads.

Each judge runs after :func:`claudeops.toolgate.rules.read_args` has read the call's options and
raises :class:`~claudeops.toolgate.rules.Refusing` when the call is not known to only read: a URL
that is not HTTP, an output file that is not ``/dev/null``, a query that is not known to read, a
firewall listing that is not one. The ``runs_*`` functions give the command a wrapper runs, for
the gate to judge in its turn.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from claudeops.toolgate.inline_code import awk_changes, sed_reads
from claudeops.toolgate.queries import mongo_reads, psql_meta_reads, redis_reads, sql_reads, sqlite_dot_reads
from claudeops.toolgate.rules import Args, Context, Refusing, Rule, read_args
from claudeops.toolgate.syntax import Word

DISCARDED = frozenset({"/dev/null", "-"})
"""Output "files" that are not files: standard output, or nowhere."""
_HTTP = re.compile(r"https?://", re.IGNORECASE)
_QUERY_INSTEAD = "give read-only SQL as an argument (psql -c, mysql -e, sqlite3 -readonly DB 'SELECT …')"


def curl(args: Args, context: Context) -> None:
    """curl reads when it fetches an HTTP(S) URL to standard output with GET or HEAD.

    ``-o`` only to ``/dev/null`` or ``-``; no ``%output{file}`` in ``-w`` (curl 8.3 writes it); only
    ``http://`` and ``https://`` URLs, because ``dict://``, ``gopher://`` and ``telnet://`` send what
    they are given to any TCP port (a redis ``FLUSHALL``, a mail), and a URL without a scheme
    makes curl guess one from the host name.
    """
    if not DISCARDED.issuperset(args.values("-o", "--output")):
        raise Refusing("curl writes a file with -o", "curl -o /dev/null, or print to standard output")
    methods = {method.upper() for method in args.values("-X", "--request")}
    if not methods <= {"GET", "HEAD"}:
        raise Refusing(f"curl -X {', '.join(sorted(methods))} may change something", "GET or HEAD only")
    for format in args.values("-w", "--write-out"):
        if "%output{" in format.lower():
            raise Refusing("curl -w %output{…} writes a file", "leave %output{} out of -w")
        if format.startswith("@"):
            raise Refusing("curl -w @FILE reads a format the gate cannot see (it may hold %output{…})",
                           "give the format itself: -w '%{http_code}'")
    _http_urls([*args.texts, *args.values("--url")], "curl")


def wget(args: Args, context: Context) -> None:
    """wget reads when it prints what it fetches (``-O -``), discards it (``-O /dev/null``) or only checks
    that it exists (``--spider``); otherwise it saves a file.

    ``-O FILE`` opens (creates, truncates) its file before wget fetches anything, ``--spider`` or not,
    so every ``-O`` must name standard output or ``/dev/null``. The options that write a log, cookies,
    headers or an archive (``-o``, ``-a``, ``--save-cookies``, ``-P``…) are not on wget's rule at all.
    """
    outputs = args.values("-O", "--output-document")
    if not DISCARDED.issuperset(outputs):
        raise Refusing("wget -O writes a file (with --spider too)", "wget -qO- URL, or wget --spider URL")
    if not args.has("--spider") and not outputs:
        raise Refusing("wget saves what it fetches into a file", "wget -qO- URL, or wget --spider URL")
    _http_urls(args.texts, "wget")


def _http_urls(urls: list[str], program: str) -> None:
    if not urls:
        raise Refusing(f"{program} without a URL", f"{program} https://HOST/PATH")
    for url in urls:
        if not _HTTP.match(url):
            raise Refusing(f"`{url}` is not an http:// or https:// URL", "write the URL with http:// or https://")


def psql(args: Args, context: Context) -> None:
    """psql reads when every ``-c`` is reading SQL or a reading meta-command (``\\l``, ``\\dt``).

    Without ``-c`` it runs SQL from standard input or a file, which the gate cannot see.
    """
    if args.has("-l", "--list", "-V", "--version"):
        return
    commands = args.values("-c", "--command")
    if not commands:
        raise Refusing("psql without -c reads SQL the gate cannot see", _QUERY_INSTEAD)
    for text in commands:
        if not (psql_meta_reads(text) if text.startswith("\\") else sql_reads(text)):
            raise Refusing(f"`{_short(text)}` is not known to only read", "SELECT, SHOW, EXPLAIN, \\l, \\d…")


def mysql(args: Args, context: Context) -> None:
    """mysql (and mariadb) read when every ``-e`` is reading SQL; without it SQL comes from standard input."""
    if args.has("-V", "--version"):
        return
    statements = args.values("-e", "--execute")
    if not statements:
        raise Refusing("mysql without -e reads SQL the gate cannot see", _QUERY_INSTEAD)
    for text in statements:
        if not sql_reads(text):
            raise Refusing(f"`{_short(text)}` is not known to only read", "SELECT, SHOW, EXPLAIN, DESCRIBE")


_MYSQLADMIN_READS = frozenset({"status", "ping", "version", "variables", "processlist", "extended-status"})


def mysqladmin(args: Args, context: Context) -> None:
    """mysqladmin reads when every command does (``ping``, ``status``…); not ``shutdown``, ``flush-*``, ``kill``…"""
    commands = [text.lower() for text in args.texts]
    if not commands or not _MYSQLADMIN_READS.issuperset(commands):
        raise Refusing("mysqladmin may change the server", "mysqladmin " + ", ".join(sorted(_MYSQLADMIN_READS)))


_SQLITE_URI_MODE = re.compile(r"(?:^|[?&])mode=([^&#]*)", re.IGNORECASE)


def sqlite3(args: Args, context: Context) -> None:
    """``sqlite3 -readonly DB 'SQL' '.dot'`` reads when each SQL argument, ``-cmd`` and dot command reads.

    Without ``-readonly`` sqlite3 creates the database file it is given, even for ``SELECT 1``
    (``sqlite3 /etc/nologin 'select 1'``); a ``file:`` URI may ask for ``mode=rwc`` itself, so only
    ``mode=ro`` (or ``memory``) is allowed there, its parameters read with their ``%HH`` escapes
    decoded as SQLite does. With no SQL after the database, sqlite3 reads standard input (after any
    ``-cmd``), which the gate cannot see: a piped ``.shell`` runs a command even with ``-readonly``.
    """
    if args.has("-version"):
        return
    if not args.has("-readonly"):
        raise Refusing("sqlite3 without -readonly creates the database file it is given",
                       "sqlite3 -readonly DB 'SELECT …'")
    database = args.texts[0] if args.texts else ""
    if database.lower().startswith("file:"):
        modes = _SQLITE_URI_MODE.findall(unquote(database.partition("?")[2]))
        if any(mode.lower() not in ("ro", "memory") for mode in modes):
            raise Refusing(f"the URI `{_short(database)}` opens the database for writing", "use ?mode=ro, or no mode")
    if not args.texts[1:]:
        raise Refusing("sqlite3 without SQL after the database reads what the gate cannot see", _QUERY_INSTEAD)
    for text in args.texts[1:] + args.values("-cmd"):
        if not (sqlite_dot_reads(text) if text.startswith(".") else sql_reads(text)):
            raise Refusing(f"`{_short(text)}` is not known to only read", "SELECT, PRAGMA NAME, .tables, .schema")


_REDIS_READING_MODES = ("--scan", "--bigkeys", "--memkeys", "--hotkeys", "--stat", "--latency", "--latency-history",
                        "--latency-dist", "--intrinsic-latency")


def redis_cli(args: Args, context: Context) -> None:
    """``redis-cli [options] COMMAND …`` reads when its command does (:func:`claudeops.toolgate.queries.redis_reads`);
    without a command, outside a reading mode, it reads commands from standard input."""
    if args.has("-v", "--version"):
        return
    cluster = args.values("--cluster")
    if cluster:
        if cluster[-1].lower() not in ("check", "info", "help"):
            raise Refusing(f"redis-cli --cluster {cluster[-1]} changes the cluster", "--cluster check or info")
        return
    if not args.operands:
        if args.has(*_REDIS_READING_MODES):
            return
        raise Refusing("redis-cli without a command reads commands the gate cannot see", "redis-cli -h HOST ping")
    if not redis_reads(args.texts):
        raise Refusing(f"`{_short(' '.join(args.texts))}` is not a read-only redis command", "PING, INFO, GET…")


def mongosh(args: Args, context: Context) -> None:
    """mongosh reads when every ``--eval`` is a known status call; without one it runs a shell or a script."""
    if args.has("--version"):
        return
    evals = args.values("--eval")
    if not evals or not all(map(mongo_reads, evals)):
        raise Refusing("mongosh runs JavaScript the gate cannot judge",
                       "mongosh --eval \"db.adminCommand('ping')\" or rs.status()")


def iptables(args: Args, context: Context) -> None:
    """iptables (and ip6tables) read when listing (``-L``, ``-S``) or checking a rule (``-C``)."""
    if not args.has("-L", "--list", "-S", "--list-rules", "-C", "--check", "-V", "--version"):
        raise Refusing("iptables without -L, -S or -C", "iptables -L -n -v, or -S")


def nft(args: Args, context: Context) -> None:
    """``nft list …`` reads; several commands may share one argument (``'list ruleset; flush ruleset'``)."""
    commands = [command.split() for command in re.split(r"[;\n]", " ".join(args.texts))]
    if not args.has("-v", "--version") and not all(words and words[0] == "list" for words in commands):
        raise Refusing("nft other than list changes the firewall", "nft list ruleset")


_IP_READS = frozenset({"show", "list", "lst", "ls", "get"})


def ip(args: Args, context: Context) -> None:
    """``ip OBJECT`` alone or with ``show``/``list``/``get`` reads (full words only: ip also takes prefixes)."""
    texts = args.texts
    if len(texts) > 1 and texts[1] not in _IP_READS:
        raise Refusing(f"ip {texts[0]} {texts[1]} may change the network", f"ip {texts[0]} show")


def date(args: Args, context: Context) -> None:
    """date prints; an operand other than ``+FORMAT`` sets the clock."""
    if any(not text.startswith("+") for text in args.texts):
        raise Refusing("date with a time sets the clock", "date, date -u, date +FORMAT")


def awk(args: Args, context: Context) -> None:
    """awk's program (its first operand) is judged by :func:`claudeops.toolgate.inline_code.awk_changes`."""
    if not args.operands or not args.operands[0].fixed:
        raise Refusing("awk without a program on the command line", "awk '{print $1}' FILE")
    if awk_changes(args.operands[0].text):
        raise Refusing("its program can run a command or write a file (system, getline, >, |, @)",
                       "awk that only prints, or grep/cut")


def sed(args: Args, context: Context) -> None:
    """Every sed script (``-e``, or the first operand) must pass :func:`claudeops.toolgate.inline_code.sed_reads`."""
    scripts = args.values("-e", "--expression")
    if not scripts:
        if not args.operands or not args.operands[0].fixed:
            raise Refusing("sed without a script on the command line", "sed -n '/error/p' FILE")
        scripts = [args.operands[0].text]
    for script in scripts:
        if not sed_reads(script):
            raise Refusing(f"sed script `{_short(script)}` may run a command or write a file (e, w, r…)",
                           "sed -n 'ADDRESSp' or 's/a/b/g' without the e and w flags")


def printf(args: Args, context: Context) -> None:
    """printf prints, unless ``-v NAME`` stores into a shell variable (``PATH``, say)."""
    if args.operands and args.operands[0].text.startswith("-v"):
        raise Refusing("printf -v sets a shell variable", "printf FORMAT ARGS")


def command_lookup(args: Args, context: Context) -> None:
    """``command -v NAME`` looks a program up; without ``-v``/``-V`` ``command`` runs it."""
    if not args.has("-v", "-V"):
        raise Refusing("command without -v runs the command", "command -v NAME, or the command itself")


def dpkg(args: Args, context: Context) -> None:
    """dpkg lists with ``-l``, ``-L``, ``-s``, ``-S``; without one of them it would act on packages."""
    if not args.options:
        raise Refusing("dpkg without -l, -L, -s or -S", "dpkg -l NAME")


def crontab(args: Args, context: Context) -> None:
    """``crontab -l`` lists; without ``-l`` crontab installs what it reads on standard input."""
    if not args.has("-l"):
        raise Refusing("crontab without -l installs a crontab from its input", "crontab -l")


_WG_SECRETS = frozenset({"private-key", "preshared-keys"})


def wg_show(args: Args, context: Context) -> None:
    """``wg show`` reads; its ``private-key`` and ``preshared-keys`` fields are secrets, never to be printed."""
    if _WG_SECRETS.intersection(args.texts):
        raise Refusing("wg show would print a secret key", "wg show INTERFACE (public fields)")


def operand_required(args: Args, context: Context) -> None:
    """A program that, given nothing to look up, reads its commands from standard input (``nslookup``)."""
    if not args.operands:
        raise Refusing(f"{args.path} without a name reads commands from its input", f"{args.path} NAME")


def smartctl(args: Args, context: Context) -> None:
    """``smartctl -l NAME`` shows a log; ``-l scterc,70,70`` (a value with commas) sets the drive's timers."""
    if any("," in value for value in args.values("-l", "--log")):
        raise Refusing("smartctl -l with settings changes the drive", "smartctl -l error, -l selftest, -H, -a")


def s_client(args: Args, context: Context) -> None:
    """``openssl s_client`` sends its standard input to the server: only with nothing to send (``echo |``,
    ``< /dev/null``) is it a read."""
    if context.fed:
        raise Refusing("openssl s_client sends its standard input to the server",
                       "echo | openssl s_client -connect HOST:443")


def netcat(args: Args, context: Context) -> None:
    """nc only checks a port with ``-z``: otherwise it listens or sends its standard input."""
    if not args.has("-z"):
        raise Refusing("nc without -z sends or listens", "nc -zv HOST PORT")


def service(args: Args, context: Context) -> None:
    """``service NAME status`` reads."""
    texts = args.texts
    if args.has("--status-all") and not texts:
        return
    if len(texts) != 2 or texts[1] != "status":
        raise Refusing("service other than status may change the service", "service NAME status")


def json_tool(args: Args, context: Context) -> None:
    """``python3 -m json.tool [FILE]`` pretty-prints (a second operand is a file it writes); ``-V`` prints the
    version. Any other use of python runs code the gate cannot see."""
    texts = args.texts
    if texts in (["-V"], ["--version"]):
        return
    if texts[:2] != ["-m", "json.tool"] or not all(word.fixed for word in args.operands):
        raise Refusing("python runs code the gate cannot see", "python3 -m json.tool FILE, or jq")
    read_args(args.operands[2:], JSON_TOOL, "python3 -m json.tool")


JSON_TOOL = Rule(flags=frozenset({"--sort-keys", "--compact", "--tab", "--no-ensure-ascii", "--json-lines"}),
                 values=frozenset({"--indent"}), operands=1)


_SSH_OPTIONS = frozenset({
    "connecttimeout", "batchmode", "serveraliveinterval", "serveralivecountmax", "connectionattempts",
    "loglevel", "port", "user", "identityfile", "identitiesonly", "passwordauthentication",
    "preferredauthentications", "addressfamily", "compression", "stricthostkeychecking"})
"""``ssh -o`` settings that only shape the connection; ``ProxyCommand``, ``LocalCommand``,
``KnownHostsCommand`` and the like run local commands, so no other is allowed."""


def ssh(args: Args, context: Context) -> None:
    """ssh's ``-o`` settings must be in :data:`_SSH_OPTIONS`; StrictHostKeyChecking only as ``yes``, because
    ``no`` and ``accept-new`` write the known-hosts file."""
    for setting in args.values("-o"):
        name, _, value = setting.replace(" ", "=", 1).partition("=")
        if name.lower() not in _SSH_OPTIONS or (name.lower() == "stricthostkeychecking" and value.lower() != "yes"):
            raise Refusing(f"ssh -o {name} is not allowed", "ssh -o ConnectTimeout=5 -o BatchMode=yes HOST COMMAND")


def runs_ssh(args: Args, ssh_rule: Rule) -> str:
    """The command line ``ssh HOST …`` hands the remote shell: its words after the host, joined by blanks.

    ssh reads options after the host too (``ssh nas -t cmd``); the first word that is not one
    starts the command. Without a command, ssh runs a login shell reading standard input.
    """
    if not args.operands or args.operands[0].text.startswith("-"):
        raise Refusing("ssh without a host", "ssh HOST COMMAND")
    after, _ = read_args(args.operands[1:], ssh_rule, "ssh")
    ssh(after, Context(False, lambda words: None))
    if not after.operands:
        raise Refusing("ssh without a command runs a shell that reads commands the gate cannot see",
                       "ssh HOST COMMAND")
    for word in after.operands:
        if not word.fixed:
            raise Refusing(f"`{word.text}` is a file-name pattern, expanded before ssh sends it", "quote it")
    return " ".join(word.text for word in after.operands)


def runs_script(args: Args) -> str:
    """The script of ``sh -c 'script'`` (also ``bash -ec``); a shell without ``-c`` runs a file or standard input."""
    if not args.has("-c") or not args.operands:
        raise Refusing("a shell without -c runs a script the gate cannot see", "sh -c 'COMMAND', or the command itself")
    if any(value != "pipefail" for value in args.values("-o")):
        raise Refusing("only -o pipefail is allowed for a shell", "sh -c 'COMMAND'")
    return args.operands[0].text


def runs_operands(args: Args) -> list[Word]:
    """What ``sudo`` or ``nice`` run: all of their operands."""
    if not args.operands:
        raise Refusing(f"{args.path} without a command", f"{args.path} COMMAND")
    return args.operands


_DURATION = re.compile(r"[0-9]+(?:\.[0-9]+)?[smhd]?")


def runs_after_duration(args: Args) -> list[Word]:
    """What ``timeout DURATION command…`` runs."""
    if len(args.operands) < 2 or not _DURATION.fullmatch(args.operands[0].text):
        raise Refusing("timeout without a duration and a command", "timeout 10 COMMAND")
    return args.operands[1:]


def runs_in_container(args: Args) -> list[Word]:
    """What ``docker exec CONTAINER command…`` (or ``docker compose exec SERVICE …``) runs."""
    if len(args.operands) < 2:
        raise Refusing(f"{args.path} without a container and a command", f"{args.path} CONTAINER COMMAND")
    return args.operands[1:]


_FIND_FLAGS = frozenset({
    "-print", "-print0", "-ls", "-prune", "-quit", "-true", "-false", "-empty", "-readable", "-writable",
    "-executable", "-nouser", "-nogroup", "-depth", "-mount", "-xdev", "-follow", "-noleaf", "-daystart", "-not",
    "-a", "-and", "-o", "-or", "!", "(", ")", ",", "-ignore_readdir_race", "-noignore_readdir_race", "-warn",
    "-nowarn"})
_FIND_VALUES = frozenset({
    "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-regextype", "-type",
    "-xtype", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-newer", "-anewer", "-cnewer", "-used",
    "-size", "-user", "-group", "-uid", "-gid", "-perm", "-links", "-inum", "-samefile", "-maxdepth", "-mindepth",
    "-lname", "-ilname", "-fstype", "-printf"})
_FIND_NEWER = re.compile(r"-newer[amctB][amctBt]")
_FIND_OPTIONS = frozenset({"-H", "-L", "-P"})


def find(args: Args, context: Context) -> None:
    """find's expression read primary by primary: tests and printing pass, ``-exec``/``-execdir COMMAND ;``
    pass when the gate allows COMMAND, and ``-delete``, ``-fprint…``, ``-fls``, ``-ok`` are refused."""
    words = args.operands
    index = 0
    while index < len(words) and words[index].text in _FIND_OPTIONS:
        index += 1
    while index < len(words) and not words[index].text.startswith("-") and words[index].text not in "()!,":
        _plain(words[index], "find")
        index += 1
    while index < len(words):
        word = words[index]
        _plain(word, "find")
        text = word.text
        index += 1
        if text in _FIND_FLAGS:
            continue
        if text in _FIND_VALUES or _FIND_NEWER.fullmatch(text):
            if index >= len(words):
                raise Refusing(f"find {text} is missing its value", "give it its value")
            _plain(words[index], "find")
            index += 1
        elif text in ("-exec", "-execdir"):
            end = index
            while end < len(words) and words[end].text != ";" and not (
                    words[end].text == "+" and words[end - 1].text == "{}"):
                end += 1
            if end == len(words) or end == index:
                raise Refusing(f"find {text} without a command ended by ; or +", "find … -exec grep -l x {} +")
            context.check_argv(words[index:end])
            index = end + 1
        else:
            raise Refusing(f"`{text}` is not a read-only part of a find expression",
                           "tests (-name, -type, -mtime…) with -print, -printf or -ls")


def _plain(word: Word, program: str) -> None:
    if not word.fixed and (word.pattern == 0 or word.text.startswith("-")):
        raise Refusing(f"`{word.text}` is a pattern that could expand to an option of {program}", "quote it")


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 60 else line[:57] + "..."
