"""Whether a database query only reads: SQL statements, psql and sqlite3 meta-commands, redis commands.

A database client is not a program with a fixed set of sub-commands: it runs a language whose
writing vocabulary is open-ended (every vendor's statements, redis modules' commands), while
what a health check reads with is small and stable (``SELECT``, ``SHOW``, ``\\l``, ``.tables``,
``PING``, ``INFO``, ``GET``). So, unlike the rest of the read-only check, these tables list what
is known to only *read*, and anything else counts as a change: at tier 1 and in a dry run a
wrongly refused query costs the agent one rephrasing, a wrongly allowed one costs data.

SQL is judged statement by statement on its leading keyword, after comments are dropped and
quoted text is blanked, then on the words inside it (a data-modifying ``WITH``, ``EXPLAIN
ANALYZE DELETE``, ``SELECT … INTO``, ``SELECT pg_terminate_backend(…)``). Wherever PostgreSQL,
MySQL and SQLite read the same text differently, the scan takes the reading that shows *more*
code: ``--`` starts a comment only before a blank, ``#`` never does, MySQL's executable
``/*! … */`` comments are read as SQL, dollar quotes are not recognised, and a quoted string
holding a backslash (an escape in one dialect, a plain character in another) makes its
statement count as a change.
"""

from __future__ import annotations

import re

_SQL_TOKEN = re.compile(r"""
    (?P<comment>--(?=\s|$)[^\n]*|/\*(?!!)[\s\S]*?\*/)
  | (?P<quoted>'[^']*'|"[^"]*"|`[^`]*`)
  | (?P<meta>\\.)
  | (?P<word>\w+)
  | (?P<other>\S)
""", re.VERBOSE)

_READING_STATEMENTS = frozenset({"select", "show", "explain", "describe", "desc", "values", "table", "with", "use"})
"""Leading keywords of statements that only read (``use`` picks MySQL's default database for the session)."""

_WRITING_WORDS = frozenset({
    # statements that can hide inside a reading one: WITH x AS (DELETE …), EXPLAIN ANALYZE UPDATE …,
    # SELECT … INTO new_table / OUTFILE, EXPLAIN ANALYZE CREATE TABLE … AS, EXPLAIN ANALYZE EXECUTE
    "insert", "update", "delete", "merge", "into", "create", "execute", "call",
    # functions that change the server or the file system when a SELECT calls them
    "pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile", "pg_switch_wal",
    "pg_promote", "pg_create_restore_point", "pg_stat_reset", "pg_stat_reset_shared",
    "pg_stat_reset_single_table_counters", "pg_stat_statements_reset", "pg_drop_replication_slot",
    "pg_create_physical_replication_slot", "pg_create_logical_replication_slot", "pg_replication_slot_advance",
    "pg_logical_slot_get_changes", "pg_wal_replay_pause", "pg_wal_replay_resume", "pg_backup_start",
    "pg_backup_stop", "setval", "nextval", "set_config", "lo_import", "lo_export", "lo_unlink", "lo_create",
    "lo_put", "pg_file_write", "pg_file_unlink", "pg_file_rename", "dblink_exec", "pg_notify",
    "writefile", "edit", "load_extension",
    # functions that run the SQL text they are given, which the scan sees only as a quoted string
    "dblink", "dblink_send_query", "query_to_xml", "query_to_xml_and_xmlschema", "query_to_xmlschema",
})

_REPORTING_PRAGMAS = frozenset({
    "integrity_check", "quick_check", "table_info", "table_xinfo", "table_list", "index_list", "index_info",
    "index_xinfo", "foreign_key_list", "foreign_key_check", "database_list", "collation_list", "compile_options",
    "function_list", "module_list", "pragma_list", "page_count", "freelist_count", "data_version",
})
"""SQLite pragmas that only report, whatever their argument; any other pragma reads only when given no value."""

_MYSQL_STATEMENT_ENDS = frozenset({"\\g", "\\G"})
"""The mysql client's ``\\g`` / ``\\G`` end a statement like ``;`` (``SHOW REPLICA STATUS\\G``)."""

_PSQL_READING_META = frozenset({
    "l", "list", "conninfo", "x", "timing", "echo", "qecho", "encoding", "pset", "a", "t", "H", "f", "C", "z",
    "sf", "sv", "errverbose", "q", "quit", "?", "h", "help", "c", "connect", "set", "unset", "lo_list",
})
"""psql meta-commands that only show or set display options; every ``\\d…`` (describe) command reads too."""

_SQLITE_READING_DOT = frozenset({
    "tables", "schema", "fullschema", "indexes", "indices", "databases", "dbinfo", "show", "help", "mode",
    "headers", "header", "width", "timer", "stats", "eqp", "explain", "lint", "dump", "print", "echo",
    "nullvalue", "separator", "changes", "bail", "version", "quit", "exit", "prompt", "scanstats",
})
"""sqlite3 dot commands that only show or set display options (not ``.output``, ``.import``, ``.shell``…)."""

_CONTAINER_READS = frozenset({"help"})
_REDIS_READS: dict[str, frozenset[str] | None] = {
    **dict.fromkeys((
        "ping", "echo", "info", "time", "dbsize", "lastsave", "role", "hello", "auth", "select", "monitor",
        "get", "mget", "getrange", "substr", "strlen", "exists", "type", "ttl", "pttl", "expiretime",
        "pexpiretime", "keys", "scan", "randomkey", "dump", "lcs",
        "hget", "hmget", "hgetall", "hkeys", "hvals", "hlen", "hexists", "hstrlen", "hrandfield", "hscan",
        "lrange", "llen", "lindex", "lpos",
        "smembers", "scard", "sismember", "smismember", "srandmember", "sinter", "sintercard", "sunion", "sdiff",
        "sscan",
        "zrange", "zrangebyscore", "zrangebylex", "zrevrange", "zrevrangebyscore", "zrevrangebylex", "zscore",
        "zmscore", "zcard", "zcount", "zlexcount", "zrank", "zrevrank", "zrandmember", "zscan", "zunion",
        "zinter", "zintercard", "zdiff",
        "xlen", "xrange", "xrevrange", "xread", "xpending",
        "getbit", "bitcount", "bitpos", "bitfield_ro", "pfcount", "geopos", "geodist", "geohash", "georadius_ro",
        "georadiusbymember_ro", "geosearch", "sort_ro",
    ), None),
    # container commands: the sub-commands that only read
    "config": _CONTAINER_READS | {"get"},
    "client": _CONTAINER_READS | {"list", "info", "getname", "id", "getredir", "trackinginfo"},
    "slowlog": _CONTAINER_READS | {"get", "len"},
    "latency": _CONTAINER_READS | {"latest", "history", "doctor", "graph", "histogram"},
    "memory": _CONTAINER_READS | {"usage", "stats", "doctor", "malloc-stats"},
    "cluster": _CONTAINER_READS | {"info", "nodes", "slots", "shards", "myid", "myshardid", "keyslot",
                                   "countkeysinslot", "getkeysinslot", "links", "replicas", "slaves"},
    "acl": _CONTAINER_READS | {"whoami", "list", "users", "getuser", "cat"},
    "xinfo": _CONTAINER_READS | {"stream", "groups", "consumers"},
    "object": _CONTAINER_READS | {"encoding", "freq", "idletime", "refcount"},
    "pubsub": _CONTAINER_READS | {"channels", "numsub", "numpat", "shardchannels", "shardnumsub"},
    "command": _CONTAINER_READS | {"count", "info", "docs", "list", "getkeys", "getkeysandflags"},
    "script": _CONTAINER_READS | {"exists"},
    "function": _CONTAINER_READS | {"list", "dump", "stats"},
    "module": _CONTAINER_READS | {"list"},
    "sentinel": _CONTAINER_READS | {"masters", "master", "replicas", "slaves", "sentinels",
                                    "get-master-addr-by-name", "ckquorum", "myid", "info-cache"},
}
"""Redis commands that only read; a container command (``CONFIG``, ``CLIENT``…) maps to its reading sub-commands."""

_MONGO_CALL = re.compile(r"""\s*(?:print(?:json)?\(\s*)?
    (?:db\.(?:adminCommand|runCommand)\(\s*(?:(?P<quote>['"])(?P<command>\w+)(?P=quote)
                                         |\{\s*['"]?(?P<document>\w+)['"]?\s*:\s*1\s*\})\s*\)
      |(?P<object>db|rs)\.(?P<method>\w+)\(\s*\))
    (?:\.\w+)*\s*\)?\s*;?\s*""", re.VERBOSE)
_MONGO_READING_COMMANDS = frozenset({
    "ping", "serverStatus", "buildInfo", "hello", "isMaster", "ismaster", "listDatabases", "dbStats",
    "replSetGetStatus", "connectionStatus", "hostInfo", "getCmdLineOpts", "whatsmyuri"})
_MONGO_READING_METHODS = {
    "db": frozenset({"serverStatus", "stats", "version", "getName", "hostInfo", "isMaster", "hello",
                     "getCollectionNames", "serverBuildInfo", "getReplicationInfo", "printReplicationInfo"}),
    "rs": frozenset({"status", "conf", "config", "isMaster", "hello", "printReplicationInfo",
                     "printSecondaryReplicationInfo"}),
}
"""MongoDB shell calls a health check reads with; JavaScript is a language, so anything else is not judged."""


def sql_reads(sql: str) -> bool:
    """Whether every statement of ``sql`` only reads (see the module docstring for how it is read)."""
    statement: list[str] = []
    for match in _SQL_TOKEN.finditer(sql):
        kind, text = match.lastgroup, match.group()
        if kind == "comment":
            continue
        if kind == "quoted":
            if "\\" in text:
                return False
            statement.append("''")
        elif text == ";" or text in _MYSQL_STATEMENT_ENDS:
            if not _statement_reads(statement):
                return False
            statement = []
        elif kind == "meta":  # a client command inside SQL (mysql's \! shell, \. source, \T tee …)
            return False
        else:
            statement.append(text.lower())
    return _statement_reads(statement)


def _statement_reads(tokens: list[str]) -> bool:
    """Whether one statement (lower-cased tokens, quoted text blanked) only reads; an empty one does."""
    if not tokens:
        return True
    if tokens[0] == "pragma":
        return _pragma_reads(tokens[1:])
    return tokens[0] in _READING_STATEMENTS and _WRITING_WORDS.isdisjoint(tokens)


def _pragma_reads(tokens: list[str]) -> bool:
    """``PRAGMA [schema.]name`` reads; so does a reporting pragma with an argument, not ``journal_mode = WAL``."""
    if len(tokens) > 2 and tokens[1] == ".":
        tokens = tokens[2:]
    return bool(tokens) and (tokens[0] in _REPORTING_PRAGMAS or len(tokens) == 1)


def psql_meta_reads(command: str) -> bool:
    """Whether every backslash command of a psql ``-c '\\…'`` argument only reads.

    psql runs one meta-command per ``-c``, but ``\\x \\dt`` chains several, so each backslash
    is looked at; ``\\\\`` (psql's separator), ``\\!``, ``\\copy``, ``\\o``, ``\\i`` and the like do not read.
    """
    names = re.findall(r"\\([A-Za-z_]+|\W)", command)
    return bool(names) and all(name.startswith("d") or name in _PSQL_READING_META for name in names)


def sqlite_dot_reads(command: str) -> bool:
    """Whether a sqlite3 dot command (``.tables``, ``.schema t``) only reads."""
    words = command[1:].split(maxsplit=1)
    return bool(words) and words[0] in _SQLITE_READING_DOT


def mongo_reads(expression: str) -> bool:
    """Whether a mongosh ``--eval`` is one known status call (``db.adminCommand('ping').ok``, ``rs.status()``)."""
    match = _MONGO_CALL.fullmatch(expression)
    if match is None:
        return False
    command = match.group("command") or match.group("document")
    if command is not None:
        return command in _MONGO_READING_COMMANDS
    return match.group("method") in _MONGO_READING_METHODS[match.group("object")]


def redis_reads(words: list[str]) -> bool:
    """Whether a redis command (``GET a``, ``config get maxmemory``) only reads; names are case-insensitive."""
    if not words:
        return False
    subcommands = _REDIS_READS.get(words[0].lower(), frozenset())
    if subcommands is None:
        return True
    return len(words) > 1 and words[1].lower() in subcommands
