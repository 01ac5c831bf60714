"""The database: a URL becomes a peewee database, and each owner's migrations are applied once.

SQLite (the default) gets WAL, a busy timeout, foreign keys and ``BEGIN IMMEDIATE``
transactions: the cron runner and the dashboard write to the same file from two processes,
and a deferred read-then-write transaction cannot be retried by the busy handler
(``performance-facts.md`` §6). Other URLs (``postgresql://…``) are passed to peewee as they are.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import shutil
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import peewee
from playhouse.db_url import connect as connect_url

from claudeops.clock import now_timestamp
from claudeops.config import ConfigError
from claudeops.redaction import may_hold_secret, redact
from claudeops.wording import one_line

log = logging.getLogger(__name__)

db = peewee.DatabaseProxy()
"""The one database every model binds to; initialised by :func:`open_store`."""

MAX_ROW_ID = 2**63 - 1
"""The largest id a row can have: SQLite's INTEGER limit (PostgreSQL's columns are narrower still).

A bigger number names no row, and SQLite cannot even bind it as a parameter (``OverflowError``),
so ids typed by an operator (CLI arguments, URLs) are checked with :func:`is_row_id` first.
"""


def is_row_id(value: int) -> bool:
    """Whether ``value`` could be a row's id (1 to :data:`MAX_ROW_ID`); any other number names no row."""
    return 1 <= value <= MAX_ROW_ID


LOCKED_PATIENCE_SECONDS = 60.0
"""How long a run keeps retrying a write SQLite refused as locked, on top of each attempt's own
busy timeout, unless ``lock_patience_seconds`` says otherwise: an unattended run should wait out a
long dashboard edit or an operator's open ``sqlite3`` shell rather than lose a marker or leave its
row ``running``."""

BUSY_TIMEOUT_SECONDS = 5.0
"""How long one SQLite statement waits for another connection's write lock before failing as
locked (SQLite's busy handler). A run then retries for the lock patience; the dashboard answers
503 with ``Retry-After``. Tests shorten it to hold a lock past it without waiting 5 s."""

T = TypeVar("T")

SQLITE_PRAGMAS = {"journal_mode": "wal", "foreign_keys": 1, "synchronous": "normal"}
MIGRATIONS_TABLE = "claudeops_migrations"

_lock_patience = LOCKED_PATIENCE_SECONDS


class StoreError(Exception):
    """A database problem, phrased as one line for the operator."""


class BadDatabaseUrl(StoreError, ConfigError):
    """``database_url`` names no database claudeops can use (an unknown scheme): a configuration error,
    so every command exits with the usage status for it, not the status of a database that failed."""


class NewerDatabase(StoreError):
    """The database has migrations this installation does not know: a newer claudeops (or plugin) wrote it."""


class BaseModel(peewee.Model):
    """Base of every table model, core and plugins alike."""

    class Meta:
        database = db
        legacy_table_names = False


def sqlite_file(url: str) -> Path | None:
    """The file a ``sqlite:///`` URL names; ``None`` for another database or an in-memory one."""
    path = url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else ":memory:"
    return None if path == ":memory:" else Path(path)


class ConnectionPerThread(peewee.SqliteDatabase):
    """An SQLite database whose connection each thread opens once and keeps (a server's worker threads).

    ``db.connection_context()`` then costs no ``open()``, no pragmas and no creation and deletion
    of the ``-wal`` and ``-shm`` files per request (SQLite removes them when the last connection
    closes). Reads stay current: outside a transaction every statement of an SQLite connection
    sees what other connections and processes committed. A connection is opened anew when the file
    at the path is no longer the one it was opened on (a backup restored over it).
    """

    def __init__(self, database: str, **kwargs: Any) -> None:
        super().__init__(database, **kwargs)
        self._kept = threading.local()

    def _connect(self) -> sqlite3.Connection:
        identity = file_identity(self.database)
        kept: sqlite3.Connection | None = getattr(self._kept, "connection", None)
        if kept is not None and self._kept.identity == identity:
            return kept
        if kept is not None:
            kept.close()
        connection: sqlite3.Connection = super()._connect()  # type: ignore[misc]  # not in peewee's stubs
        self._kept.connection, self._kept.identity = connection, identity
        return connection

    def _close(self, conn: sqlite3.Connection) -> None:
        if conn is not getattr(self._kept, "connection", None):
            conn.close()


def file_identity(path: str) -> tuple[int, int] | None:
    """The device and inode of the file at ``path`` (``None``: no such file), which a file put in its place changes."""
    try:
        status = Path(path).stat()
    except OSError:
        return None
    return status.st_dev, status.st_ino


def open_store(url: str, *, lock_patience: float = LOCKED_PATIENCE_SECONDS,
               connection_per_thread: bool = False) -> peewee.Database:
    """Open the database at ``url`` and bind every model to it.

    ``lock_patience`` is how long writes of this process wait out a database another process
    keeps locked (:func:`write_patiently`). ``connection_per_thread`` keeps each thread's SQLite
    connection open between uses (:class:`ConnectionPerThread`: the dashboard's worker threads).
    """
    global _lock_patience
    _lock_patience = lock_patience
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        if (file := sqlite_file(url)) is not None:
            file.parent.mkdir(parents=True, exist_ok=True)
        pragmas = {**SQLITE_PRAGMAS, "busy_timeout": int(BUSY_TIMEOUT_SECONDS * 1000)}
        kind = ConnectionPerThread if connection_per_thread and sqlite_file(url) else peewee.SqliteDatabase
        database: peewee.Database = kind(path, pragmas=pragmas, timeout=BUSY_TIMEOUT_SECONDS, lock_type="IMMEDIATE")
    else:
        try:
            database = connect_url(url)
        except (ValueError, RuntimeError) as exc:
            raise BadDatabaseUrl(one_line(f"cannot use database URL {mask_url(url)}: {exc}")) from None
    db.initialize(database)
    try:
        database.connect(reuse_if_open=True)
    except (peewee.OperationalError, peewee.ImproperlyConfigured, sqlite3.Error) as exc:
        raise StoreError(one_line(f"cannot open database {mask_url(url)}: {storage_problem(exc) or exc}")) from None
    return database


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and what it was raised from: a plugin's failure wraps the database's own error."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def is_locked(exc: BaseException) -> bool:
    """Whether ``exc`` is (or was raised from) SQLite refusing a statement because another connection
    holds the lock."""
    return any(isinstance(cause, peewee.OperationalError | sqlite3.OperationalError) and "locked" in str(cause)
               for cause in _causes(exc))


def is_disk_full(exc: BaseException) -> bool:
    """Whether ``exc`` is (or was raised from) the disk running out of space: SQLite's SQLITE_FULL, the
    system's ENOSPC, PostgreSQL's "No space left on device", or an SQLite I/O error (growing its
    ``-shm`` file fails as ``SQLITE_IOERR_SHMSIZE``) while the database's disk has no space left."""
    for cause in _causes(exc):
        if isinstance(cause, OSError) and cause.errno == errno.ENOSPC:
            return True
        if isinstance(cause, sqlite3.Error) and getattr(cause, "sqlite_errorname", "") == "SQLITE_FULL":
            return True
        if isinstance(cause, peewee.DatabaseError | sqlite3.Error) and (
                "database or disk is full" in str(cause) or "No space left on device" in str(cause)):
            return True
        if isinstance(cause, peewee.OperationalError | sqlite3.OperationalError) and "disk I/O error" in str(cause):
            return _database_disk_is_full()
    return False


FULL_DISK_BYTES = 1024 * 1024
"""Free space under which an SQLite I/O error is taken for what it then almost always is: a full disk."""


def _database_disk_is_full() -> bool:
    """Whether the open SQLite database's folder has (almost) no space left."""
    file = Path(db.obj.database) if is_sqlite() and db.obj.database != ":memory:" else None
    if file is None:
        return False
    try:
        return shutil.disk_usage(file.parent).free < FULL_DISK_BYTES
    except OSError:
        return False


DISK_FULL = "the disk is full (SQLITE_FULL / ENOSPC: no space left on device)"
"""How every command names a full disk, whichever layer noticed it first."""


def storage_problem(exc: BaseException) -> str | None:
    """One line naming why the database refused a write it would otherwise take, or ``None``.

    A full disk and a lock held too long are the two an operator fixes outside claudeops, so
    they are named as such instead of as a driver's message.
    """
    if is_disk_full(exc):
        return DISK_FULL
    if is_locked(exc):
        return "the database is locked by another process"
    return None


def describe_database_error(exc: BaseException) -> str:
    """One line for a database failure that ended a command: its storage cause when it has one."""
    if isinstance(exc, StoreError):
        return one_line(str(exc))
    return storage_problem(exc) or one_line(str(exc))


class LockedPatience:
    """The pacing of retries for one write that met a locked database: a warning, then back-off to a deadline.

    A transaction that failed this way was rolled back whole (``db.atomic``), so running it again
    cannot store anything twice.
    """

    def __init__(self, what: str, patience: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.what = what
        self.patience = _lock_patience if patience is None else patience
        self._clock = clock
        self._deadline = clock() + self.patience
        self._delay = 0.1
        self._warned = False

    def delay_after(self, exc: BaseException) -> float | None:
        """Seconds to wait before trying again; ``None`` when ``exc`` is no lock or patience has run out."""
        left = self._deadline - self._clock()
        if not is_locked(exc) or left <= 0:
            return None
        if not self._warned:
            log.warning("%s: the database is locked by another process; retrying for up to %g s", self.what,
                        self.patience)
            self._warned = True
        delay, self._delay = min(self._delay, left), min(self._delay * 2, 2.0)
        return delay


    def problem(self, exc: BaseException) -> str | None:
        """Why a write failed for good when the database's storage is the cause (a full disk, a lock held
        past the patience); ``None`` for any other failure (a plugin's bug, a constraint)."""
        problem = storage_problem(exc)
        if problem is not None and is_locked(exc) and not is_disk_full(exc):
            problem = f"the database stayed locked by another process for {self.patience:g} s"
        return problem

    def give_up(self, exc: Exception) -> StoreError | None:
        """The one-line error to raise for a write that failed for good, or ``None`` to re-raise ``exc``."""
        problem = self.problem(exc)
        return None if problem is None else StoreError(f"{self.what}: {problem}")


def write_patiently(write: Callable[[], T], what: str) -> T:
    """``write()``, run again while the database is locked, for up to the lock patience.

    What failed for good because of the database's storage (a full disk, a lock held too long)
    is raised as a :class:`StoreError` saying so and naming ``what``.
    """
    patience: LockedPatience | None = None
    while True:
        try:
            return write()
        except Exception as exc:
            patience = patience or LockedPatience(what)
            delay = patience.delay_after(exc)
            if delay is None:
                if (error := patience.give_up(exc)) is not None:
                    raise error from exc
                raise
            time.sleep(delay)


async def write_patiently_async(write: Callable[[], Awaitable[T]], what: str) -> T:
    """:func:`write_patiently` for a write awaited on the event loop (a marker's handler), which keeps
    running while it waits."""
    patience: LockedPatience | None = None
    while True:
        try:
            return await write()
        except Exception as exc:
            patience = patience or LockedPatience(what)
            delay = patience.delay_after(exc)
            if delay is None:
                if (error := patience.give_up(exc)) is not None:
                    raise error from exc
                raise
            await asyncio.sleep(delay)


def close_store() -> None:
    """Close the connection of this thread, if any."""
    if db.obj is not None and not db.is_closed():
        db.close()


def mask_url(url: str) -> str:
    """Hide a password in a database URL before it is printed or logged; a URL without one is shown as given."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    credentials, _, host = rest.rpartition("@")
    user, colon, password = credentials.partition(":")
    if not colon or not password:
        return url
    return f"{scheme}://{user}:***@{host}"


def portable_sql(statement: str) -> str:
    """``statement``, written with ``?`` placeholders, in the open database's placeholder style.

    For the few hot statements written by hand (a session's row, a memory marker), where
    peewee's query builder costs many times the statement itself.
    """
    return statement if db.param == "?" else statement.replace("?", db.param)


def insert_returning_id(statement: str, params: Sequence[object]) -> int:
    """Run a hand-written ``INSERT`` (``?`` placeholders) and return the new row's id.

    SQLite's cursor has ``lastrowid``; PostgreSQL's driver has none, so there the statement asks
    for the id with ``RETURNING``.
    """
    statement = portable_sql(statement)
    if db.returning_clause:
        row_id: int = db.execute_sql(statement + " RETURNING id", params).fetchone()[0]
    else:
        row_id = db.execute_sql(statement, params).lastrowid
    return row_id


def is_sqlite() -> bool:
    return isinstance(db.obj, peewee.SqliteDatabase)


def data_stamp() -> tuple[object, ...] | None:
    """A value that is different whenever the data may have changed since it was last taken, in any thread
    of this process, whoever changed it (a thread of this process, another process: ``claudeops run``, the
    CLI, another dashboard worker); ``None`` when no such value is known (PostgreSQL, an in-memory or
    missing database), so nothing may be cached.

    It is SQLite's ``PRAGMA data_version`` read on a connection of its own, which never writes: that value
    changes with every commit of every other connection — all the others, this process's included — so it
    stamps the whole database for the whole process. The database's path and file identity (a file put in
    its place) and that connection itself (held, never compared by address) are part of it.
    """
    if not is_sqlite() or db.obj.database == ":memory:":
        return None
    path = str(db.obj.database)
    identity = file_identity(path)
    if identity is None:
        return None
    global _stamp_watcher
    with _stamp_lock:
        if _stamp_watcher is None or _stamp_watcher[:2] != (path, identity):
            if _stamp_watcher is not None:
                _stamp_watcher[2].close()
            _stamp_watcher = (path, identity, sqlite3.connect(path, check_same_thread=False, isolation_level=None))
        watcher = _stamp_watcher[2]
        (version,), = watcher.execute("PRAGMA data_version").fetchall()  # to the end: no read snapshot stays open
    return path, identity, watcher, version


_stamp_lock = threading.Lock()
_stamp_watcher: tuple[str, tuple[int, int], sqlite3.Connection] | None = None
"""The database path and file identity :func:`data_stamp` watches, and the connection it reads
``data_version`` on (one: a process serves one database; another path replaces it)."""


# --------------------------------------------------------------------------- migrations


@dataclass(frozen=True)
class Migration:
    """One schema step of one owner. ``apply`` receives the open database.

    The one style every owner follows (docs/plugins.md § Migrations): the owner is the plugin's
    settings section name (``core``, ``memory``, ``events``…); a step is named ``NNNN_what_it_does``
    and, once released, never renamed (the name is the identity recorded in the migrations
    table); order is the order of the owner's sequence. A step is frozen history: it creates
    tables from DDL text or from a frozen copy of the model (:func:`create_frozen_tables`) and
    changes them with SQL or :func:`add_column`, never from the live model, whose later changes
    need steps of their own.
    """

    name: str
    apply: Callable[[peewee.Database], None]


def create_frozen_tables(database: peewee.Database, *models: type[peewee.Model]) -> None:
    """Create the tables of ``models``, frozen copies of a schema defined inside a migration.

    The copies are bound to ``database`` only while their tables are created; ``bind_refs=False``
    leaves alone any live model they reference (a foreign key to ``SessionRow``), which binding
    would otherwise unbind on exit.
    """
    with database.bind_ctx(models, bind_refs=False, bind_backrefs=False):
        database.create_tables(models)


def add_column(table: str, name: str, column: peewee.Field) -> Callable[[peewee.Database], None]:
    """A migration step adding one nullable column with peewee's schema migrator (SQLite and PostgreSQL).

    Only nullable columns: for a ``NOT NULL`` one peewee rebuilds a SQLite table (copy, drop,
    rename), and dropping a table other tables reference fails on a database with rows (foreign
    keys are on), so an upgrade would stop. Add such a column with plain SQL and a database
    default instead (:func:`add_flag_column`). The migrator is imported when the step runs, not
    when claudeops starts.
    """
    if not column.null:
        raise ValueError(f"add_column({table!r}, {name!r}): the column must be nullable (see add_flag_column)")

    def apply(database: peewee.Database) -> None:
        from playhouse.migrate import SchemaMigrator, migrate

        migrate(SchemaMigrator.from_database(database).add_column(table, name, column))
    return apply


def add_flag_column(table: str, name: str) -> Callable[[peewee.Database], None]:
    """A migration step adding a ``NOT NULL`` yes/no column that is false for every existing row.

    One ``ALTER TABLE … ADD COLUMN … DEFAULT`` on either database (SQLite stores the flag as an
    integer, PostgreSQL as a boolean; peewee's ``BooleanField`` reads both), so no table is
    rebuilt and rows referencing it are left alone.
    """
    def apply(database: peewee.Database) -> None:
        kind = "BOOLEAN NOT NULL DEFAULT FALSE" if isinstance(database, peewee.PostgresqlDatabase) else \
            "INTEGER NOT NULL DEFAULT 0"
        database.execute_sql(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
    return apply


REDACTION_BATCH = 1_000
"""Rows a redaction migration reads at a time, so a large table is never loaded whole."""


def redact_columns(table: str, *columns: str) -> Callable[[peewee.Database], None]:
    """A migration step removing secrets from text already stored in ``columns`` of ``table``.

    Every row is read (in batches, by id) and rewritten only when :func:`claudeops.redact`
    changes it, so applying it again changes nothing. On SQLite ``secure_delete`` is on while it
    runs: an updated row's old bytes are zeroed in the file, not left in the page's free space.
    It redacts with the redaction rules of the version that applies it, and logs how many rows
    of which columns it changed (never what).
    """
    def apply(database: peewee.Database) -> None:
        sqlite = isinstance(database, peewee.SqliteDatabase)
        if sqlite:
            database.execute_sql("PRAGMA secure_delete = ON")
        try:
            changed = _redact_rows(database, table, columns)
        finally:
            if sqlite:
                database.execute_sql("PRAGMA secure_delete = OFF")
        if changed:
            log.warning("removed secrets from %d row(s) of %s (%s) stored by an earlier version", changed, table,
                        ", ".join(columns))
    return apply


def _redact_rows(database: peewee.Database, table: str, columns: Sequence[str]) -> int:
    placeholder = database.param
    select = (f"SELECT id, {', '.join(columns)} FROM {table} WHERE id > {placeholder} ORDER BY id "
              f"LIMIT {REDACTION_BATCH}")
    update = (f"UPDATE {table} SET {', '.join(f'{column} = {placeholder}' for column in columns)} "
              f"WHERE id = {placeholder}")
    changed, last = 0, 0
    while rows := database.execute_sql(select, (last,)).fetchall():
        for row_id, *values in rows:
            redacted = [redact(value) if isinstance(value, str) and may_hold_secret(value) else value
                        for value in values]
            if redacted != values:
                database.execute_sql(update, (*redacted, row_id))
                changed += 1
        last = rows[-1][0]
    return changed


class MigrationRecord(BaseModel):
    owner = peewee.TextField()
    name = peewee.TextField()
    applied_at = peewee.TextField()

    class Meta:
        table_name = MIGRATIONS_TABLE
        primary_key = peewee.CompositeKey("owner", "name")


@dataclass(frozen=True)
class MigrationStatus:
    owner: str
    name: str
    applied_at: str | None


class MigrationError(StoreError):
    """A migration failed; its transaction was rolled back."""


def recorded_migrations() -> dict[str, set[str]]:
    """Owner → names of the steps the migrations table records; empty for a database never migrated.

    Only reads: a database nobody migrated yet is left as it is (``doctor`` must not create one).
    """
    if not db.table_exists(MIGRATIONS_TABLE):
        return {}
    recorded: dict[str, set[str]] = {}
    for record in MigrationRecord.select(MigrationRecord.owner, MigrationRecord.name):
        recorded.setdefault(record.owner, set()).add(record.name)
    return recorded


def migration_status(plan: Iterable[tuple[str, Sequence[Migration]]]) -> list[MigrationStatus]:
    """Every known migration with the time it was applied, or None when pending (reads only)."""
    if not db.table_exists(MIGRATIONS_TABLE):
        return [MigrationStatus(owner, step.name, None) for owner, migrations in plan for step in migrations]
    stamps = {(record.owner, record.name): record.applied_at for record in MigrationRecord.select()}
    return [MigrationStatus(owner, step.name, stamps.get((owner, step.name)))
            for owner, migrations in plan for step in migrations]


@dataclass(frozen=True)
class SchemaDrift:
    """The recorded migrations that this installation's plan does not account for.

    ``unknown``: steps (``owner/name``) of an owner this installation registers but does not know,
    so a newer claudeops or plugin wrote them, and an older one must not use the database.
    ``not_loaded``: owner → recorded steps, for owners nobody registers here: a plugin that is
    disabled or not installed. Its tables are left alone; that is a note, not a refusal.
    """

    unknown: tuple[str, ...] = ()
    not_loaded: Mapping[str, int] = field(default_factory=dict)


def schema_drift(plan: Iterable[tuple[str, Sequence[Migration]]], renamed: Mapping[str, str],
                 recorded: Mapping[str, set[str]] | None = None) -> SchemaDrift:
    """Compare the migrations table (``recorded``, when the caller has just read it) with ``plan``;
    ``renamed`` maps owners' former names to today's.

    A step recorded under a former owner name (``claudeops_events``, before the core renames it)
    counts as its owner's today, so an old database is read as what it is.
    """
    known = {owner: {step.name for step in migrations} for owner, migrations in plan}
    unknown: list[str] = []
    not_loaded: dict[str, int] = {}
    for recorded_owner, names in sorted((recorded_migrations() if recorded is None else recorded).items()):
        owner = renamed.get(recorded_owner, recorded_owner)
        if owner not in known:
            not_loaded[owner] = not_loaded.get(owner, 0) + len(names)
            continue
        unknown.extend(f"{owner}/{name}" for name in sorted(names - known[owner]))
    return SchemaDrift(tuple(unknown), not_loaded)


def refuse_newer(drift: SchemaDrift, url: str, version: str) -> None:
    """Raise :class:`NewerDatabase` when ``drift`` has steps this installation does not know."""
    if not drift.unknown:
        return
    more = f" (and {len(drift.unknown) - 1} more)" if len(drift.unknown) > 1 else ""
    raise NewerDatabase(f"the database {mask_url(url)} was written by a newer claudeops: it has migration "
                        f"{drift.unknown[0]}{more}, which claudeops {version} and its plugins do not know; "
                        "upgrade claudeops (and plugins), or point database_url at another database; "
                        "nothing was changed")


def apply_migrations(plan: Iterable[tuple[str, Sequence[Migration]]],
                     recorded: Mapping[str, set[str]] | None = None) -> list[MigrationStatus]:
    """Apply every pending migration, each in its own transaction; returns what was applied.

    Idempotent: a second call applies nothing. A failing migration is rolled back (its DDL
    included, on SQLite and PostgreSQL alike) and raises :class:`MigrationError`; migrations
    applied before it stay applied. A database another process keeps locked is waited out
    (:func:`write_patiently`): a step refused as locked was rolled back whole. A database that is up
    to date, as at every start but the first after an upgrade, costs one read of the table (none when the
    caller passes what it has just read as ``recorded``).
    """
    plan = list(plan)
    recorded = recorded_migrations() if recorded is None else recorded
    if all(step.name in recorded.get(owner, ()) for owner, migrations in plan for step in migrations):
        return []
    write_patiently(lambda: db.create_tables([MigrationRecord], safe=True), "creating the migrations table")
    done = []
    for owner, migrations in plan:
        applied = {record.name for record in MigrationRecord.select().where(MigrationRecord.owner == owner)}
        for step in migrations:
            if step.name in applied:
                continue
            stamp = now_timestamp()

            def apply(step: Migration = step, owner: str = owner, stamp: str = stamp) -> None:
                with db.atomic():
                    step.apply(db.obj)
                    MigrationRecord.create(owner=owner, name=step.name, applied_at=stamp)

            try:
                write_patiently(apply, f"applying migration {owner}/{step.name}")
            except StoreError:
                raise
            except Exception as exc:
                raise MigrationError(f"migration {owner}/{step.name} failed and was rolled back: {exc}") from exc
            done.append(MigrationStatus(owner, step.name, stamp))
    return done


SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")
"""What SQLite adds to a database's name for its write-ahead log, its shared memory and its rollback journal."""


def backup_sqlite(target: Path) -> None:
    """Copy the live SQLite database with SQLite's online backup API (safe while in use).

    The target's folder must exist (a typo in a path should not create directories), and the
    target must not be the live database itself, which the copy would overwrite while reading,
    nor one of its companion files (:data:`SQLITE_COMPANIONS`), which SQLite writes to and reads
    from as part of the database: overwriting one corrupts it.
    """
    if not is_sqlite():
        raise StoreError("backup works with SQLite databases only; use pg_dump for PostgreSQL")
    if not target.parent.is_dir():
        raise StoreError(f"cannot back up to {target}: folder {target.parent} does not exist")
    live = Path(db.obj.database)
    if target.exists() and live.exists() and target.samefile(live):
        raise StoreError(f"cannot back up to {target}: it is the live database")
    for suffix in SQLITE_COMPANIONS:
        if target.resolve() == live.with_name(live.name + suffix).resolve():
            raise StoreError(f"cannot back up to {target}: it is the live database's {suffix} file")
    destination = sqlite3.connect(str(target))
    try:
        db.connection().backup(destination)
    finally:
        destination.close()
