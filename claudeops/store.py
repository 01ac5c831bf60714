"""The database: a URL becomes a peewee database, and each owner's migrations are applied once.

SQLite (the default) gets WAL, a busy timeout, foreign keys and ``BEGIN IMMEDIATE``
transactions: the cron runner and the dashboard write to the same file from two processes,
and a deferred read-then-write transaction cannot be retried by the busy handler
(``performance-facts.md`` §6). Other URLs (``postgresql://…``) are passed to peewee as they are.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import peewee
from playhouse.db_url import connect as connect_url

from claudeops.clock import now_timestamp
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
"""How long a session keeps retrying a write SQLite refused as locked, on top of each attempt's
own busy timeout: an unattended run should wait out a long dashboard edit or an operator's open
``sqlite3`` shell rather than lose a marker or leave its row ``running``."""

T = TypeVar("T")

SQLITE_PRAGMAS = {"journal_mode": "wal", "foreign_keys": 1, "synchronous": "normal", "busy_timeout": 5000}
MIGRATIONS_TABLE = "claudeops_migrations"


class StoreError(Exception):
    """A database problem, phrased as one line for the operator."""


class BaseModel(peewee.Model):
    """Base of every table model, core and plugins alike."""

    class Meta:
        database = db
        legacy_table_names = False


def open_store(url: str) -> peewee.Database:
    """Open the database at ``url`` and bind every model to it."""
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        database: peewee.Database = peewee.SqliteDatabase(
            path, pragmas=SQLITE_PRAGMAS, timeout=5, lock_type="IMMEDIATE")
    else:
        try:
            database = connect_url(url)
        except (ValueError, RuntimeError) as exc:
            raise StoreError(one_line(f"cannot use database URL {mask_url(url)}: {exc}")) from None
    db.initialize(database)
    try:
        database.connect(reuse_if_open=True)
    except (peewee.OperationalError, peewee.ImproperlyConfigured, sqlite3.Error) as exc:
        raise StoreError(one_line(f"cannot open database {mask_url(url)}: {exc}")) from None
    return database


def is_locked(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite refusing a statement because another connection holds the lock."""
    return isinstance(exc, peewee.OperationalError | sqlite3.OperationalError) and "locked" in str(exc)


class LockedPatience:
    """The pacing of retries for one write that met a locked database: a warning, then back-off to a deadline.

    A transaction that failed this way was rolled back whole (``db.atomic``), so running it again
    cannot store anything twice.
    """

    def __init__(self, what: str, patience: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.what = what
        self.patience = LOCKED_PATIENCE_SECONDS if patience is None else patience
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


def write_patiently(write: Callable[[], T], what: str) -> T:
    """``write()``, run again while the database is locked, for up to :data:`LOCKED_PATIENCE_SECONDS`."""
    patience: LockedPatience | None = None
    while True:
        try:
            return write()
        except Exception as exc:
            patience = patience or LockedPatience(what)
            delay = patience.delay_after(exc)
            if delay is None:
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
                raise
            await asyncio.sleep(delay)


def close_store() -> None:
    """Close the connection of this thread, if any."""
    if db.obj is not None and not db.is_closed():
        db.close()


def mask_url(url: str) -> str:
    """Hide a password in a database URL before it is printed or logged."""
    scheme, sep, rest = url.partition("://")
    if not sep or "@" not in rest:
        return url
    credentials, _, host = rest.rpartition("@")
    user = credentials.split(":", 1)[0]
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
    """A migration step adding one column with peewee's schema migrator (SQLite and PostgreSQL).

    The migrator is imported when the step runs, not when claudeops starts.
    """
    def apply(database: peewee.Database) -> None:
        from playhouse.migrate import SchemaMigrator, migrate

        migrate(SchemaMigrator.from_database(database).add_column(table, name, column))
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


def _applied(owner: str) -> dict[str, str]:
    query = MigrationRecord.select().where(MigrationRecord.owner == owner)
    return {record.name: record.applied_at for record in query}


def migration_status(plan: Iterable[tuple[str, Sequence[Migration]]]) -> list[MigrationStatus]:
    """Every known migration with the time it was applied, or None when pending."""
    db.create_tables([MigrationRecord], safe=True)
    rows: list[MigrationStatus] = []
    for owner, migrations in plan:
        applied = _applied(owner)
        rows.extend(MigrationStatus(owner, step.name, applied.get(step.name)) for step in migrations)
    return rows


def apply_migrations(plan: Iterable[tuple[str, Sequence[Migration]]]) -> list[MigrationStatus]:
    """Apply every pending migration, each in its own transaction; returns what was applied.

    Idempotent: a second call applies nothing. A failing migration is rolled back (its DDL
    included, on SQLite and PostgreSQL alike) and raises :class:`MigrationError`; migrations
    applied before it stay applied.
    """
    db.create_tables([MigrationRecord], safe=True)
    done = []
    for owner, migrations in plan:
        applied = _applied(owner)
        for step in migrations:
            if step.name in applied:
                continue
            stamp = now_timestamp()
            try:
                with db.atomic():
                    step.apply(db.obj)
                    MigrationRecord.create(owner=owner, name=step.name, applied_at=stamp)
            except Exception as exc:
                raise MigrationError(f"migration {owner}/{step.name} failed and was rolled back: {exc}") from exc
            done.append(MigrationStatus(owner, step.name, stamp))
    return done


def backup_sqlite(target: Path) -> None:
    """Copy the live SQLite database with SQLite's online backup API (safe while in use)."""
    if not is_sqlite():
        raise StoreError("backup works with SQLite databases only; use pg_dump for PostgreSQL")
    target.parent.mkdir(parents=True, exist_ok=True)
    destination = sqlite3.connect(str(target))
    try:
        db.connection().backup(destination)
    finally:
        destination.close()
