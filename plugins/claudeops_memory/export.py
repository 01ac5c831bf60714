"""``memories export``: every memory and its history as reviewable files, a folder or one ``jsonl`` file.

The folder is the ``.memories`` layout of ``memories-flat-file-store.md``, adapted to our schema::

    manifest.json            the format, its schema version, the generator, when the folder was made
    index.json               how many memories, active and flagged, per service (derived)
    memories/mem_<uid>.json  one canonical document per memory (:mod:`claudeops_memory.portable`)
    history/mem_<uid>.json   its history, for a memory that has one
    schemas/*.schema.json    the JSON Schemas (draft 2020-12) of the four documents

``jsonl`` is one line per memory, ``{"history": …, "memory": …}`` with the same two documents,
sorted by uid like the folder.

Exporting the same store again changes no byte: documents are canonical, a file is written only
when its bytes differ (temporary file, ``fsync``, rename: :mod:`claudeops_memory.atomic_files`), and
files of memories no longer stored are removed, so the folder diffs cleanly in ``git``. A new
folder is written under a temporary name, flushed once and renamed into place.

Each memory's state hash becomes its sync base (:mod:`claudeops_memory.sync_state`): what this
database and the files agreed on, from which an import tells "changed here", "changed there" and
"changed on both sides" apart.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import peewee

from claudeops import __version__, db, portable_sql
from claudeops_memory import sync_state
from claudeops_memory.atomic_files import is_temporary, new_folder, sync_directory, write_if_changed
from claudeops_memory.models import new_uid
from claudeops_memory.portable import (
    SCHEMA_VERSION,
    Document,
    PortableMemory,
    canonical_json,
    compact_json,
    read_portable,
)
from claudeops_memory.schemas import SCHEMAS, schema_file_name, schema_text

FORMATS = ("dir", "jsonl")
FORMAT_NAME = "claudeops-memories"
"""``manifest.json``'s ``format``: how an import recognises a folder as ours."""
MEMORY_FILE_PREFIX = "mem_"
FOLDERS = ("memories", "history", "schemas")


class ExportProblem(ValueError):
    """The target cannot be written as asked (one line, for the command line)."""


@dataclass
class ExportResult:
    """What an export did: memories exported, files written and removed, memories given a uid first."""

    memories: int = 0
    written: int = 0
    removed: int = 0
    given_uids: int = 0
    hashes: list[tuple[str, str]] = field(default_factory=list)


def export_memories(target: Path, export_format: str, now: str) -> ExportResult:
    """Write every memory (and its history) to ``target`` as a ``dir`` or a ``jsonl`` file; see the module."""
    check_target(target, export_format)
    given = give_missing_uids()
    with read_transaction():
        memories = read_portable()
    result = write_jsonl(target, memories) if export_format == "jsonl" else write_folder(target, memories, now)
    result.given_uids = given
    with db.atomic():
        synced = sync_state.synced_hashes()
        sync_state.record_synced(((uid, digest) for uid, digest in result.hashes if synced.get(uid) != digest), now)
    return result


def check_target(target: Path, export_format: str) -> None:
    """Refuse a target that is not ours to overwrite: an existing file or folder that is no export."""
    if not target.parent.is_dir():
        raise ExportProblem(f"{target.parent} is not a folder")
    if export_format == "jsonl":
        if target.is_dir():
            raise ExportProblem(f"{target} is a folder; a jsonl export is one file (or use --format dir)")
        if target.exists() and not _looks_like_jsonl_export(target):
            raise ExportProblem(f"{target} exists and is not a memories export; choose another file")
    elif target.exists():
        if not target.is_dir():
            raise ExportProblem(f"{target} is a file; a dir export is a folder (or use --format jsonl)")
        if any(target.iterdir()) and _manifest(target) is None:
            raise ExportProblem(f"{target} is a folder that holds no memories export (no valid manifest.json); "
                                "choose a new or empty folder")


def _looks_like_jsonl_export(path: Path) -> bool:
    with open(path, "rb") as handle:
        start = handle.read(11)
    return start in (b"", b'{"history":')


def _manifest(folder: Path) -> Document | None:
    try:
        manifest = json.loads((folder / "manifest.json").read_bytes())
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) and manifest.get("format") == FORMAT_NAME else None


def give_missing_uids() -> int:
    """Give a uid to memories stored without one (written by hand, outside claudeops); how many."""
    with db.atomic():
        missing = [row[0] for row in db.execute_sql("SELECT id FROM memories WHERE uid IS NULL").fetchall()]
        cursor = db.cursor()
        for chunk in peewee.chunked(missing, sync_state.ROWS_PER_STATEMENT):
            cursor.executemany(portable_sql("UPDATE memories SET uid = ? WHERE id = ?"),
                               [(new_uid(), memory_id) for memory_id in chunk])
    return len(missing)


@contextmanager
def read_transaction() -> Iterator[None]:
    """One consistent read of several tables without taking the write lock: a deferred transaction on
    SQLite (a WAL snapshot), ``REPEATABLE READ`` on PostgreSQL."""
    if isinstance(db.obj, peewee.PostgresqlDatabase):
        with db.atomic():
            db.execute_sql("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            yield
    else:
        with db.atomic("DEFERRED"):
            yield


# --------------------------------------------------------------------------- jsonl


def jsonl_line(memory: PortableMemory) -> str:
    """``{"history": …, "memory": …}``: the two documents on one line, keys in canonical order."""
    history = "null" if memory.history is None else compact_json(memory.history)
    return f'{{"history":{history},"memory":{memory.compact}}}\n'


def write_jsonl(target: Path, memories: Iterable[PortableMemory]) -> ExportResult:
    result = ExportResult()
    lines = []
    for memory in memories:
        lines.append(jsonl_line(memory))
        result.hashes.append((memory.uid, memory.state_hash))
    result.memories = len(lines)
    result.written = int(write_if_changed(target, "".join(lines).encode()))
    if result.written:
        sync_directory(target.parent)
    return result


# --------------------------------------------------------------------------- the folder


def memory_file(uid: str) -> str:
    return f"{MEMORY_FILE_PREFIX}{uid}.json"


@dataclass
class _Index:
    """``index.json``, counted while the memories are written."""

    memories: int = 0
    active: int = 0
    flagged: int = 0
    services: dict[str | None, tuple[int, str]] = field(default_factory=dict)

    def add(self, memory: Document) -> None:
        self.memories += 1
        self.active += memory["active"]
        self.flagged += memory["flag"] is not None
        count, last = self.services.get(memory["service"], (0, ""))
        self.services[memory["service"]] = (count + 1, max(last, memory["updated_at"]))

    def document(self) -> Document:
        services = sorted(self.services.items(), key=lambda item: (item[0] is None, item[0] or ""))
        return {"active": self.active, "flagged": self.flagged, "memories": self.memories, "version": SCHEMA_VERSION,
                "services": [{"last_updated": last, "memories": count, "service": service}
                             for service, (count, last) in services]}


def folder_files(memories: Iterable[PortableMemory], created_at: str,
                 result: ExportResult) -> Iterator[tuple[str, bytes]]:
    """Every file of the folder as (path inside it, bytes): memories and histories first, then the rest."""
    index = _Index()
    for memory in memories:
        index.add(memory.memory)
        result.hashes.append((memory.uid, memory.state_hash))
        yield f"memories/{memory_file(memory.uid)}", canonical_json(memory.memory).encode()
        if memory.history is not None:
            yield f"history/{memory_file(memory.uid)}", canonical_json(memory.history).encode()
    result.memories = index.memories
    for name in SCHEMAS:
        yield f"schemas/{schema_file_name(name)}", schema_text(name)
    yield "index.json", canonical_json(index.document()).encode()
    yield "manifest.json", canonical_json({"created_at": created_at, "format": FORMAT_NAME,
                                           "generator": f"claudeops {__version__}",
                                           "schema_version": SCHEMA_VERSION}).encode()


def write_folder(target: Path, memories: Iterable[PortableMemory], now: str) -> ExportResult:
    result = ExportResult()
    if not target.exists():
        with new_folder(target) as folder:
            for name in FOLDERS:
                (folder / name).mkdir()
            for relative, data in folder_files(memories, now, result):
                (folder / relative).write_bytes(data)
                result.written += 1
        return result
    manifest = _manifest(target) or {}
    for name in FOLDERS:
        (target / name).mkdir(exist_ok=True)
    kept: set[str] = set()
    for relative, data in folder_files(memories, manifest.get("created_at", now), result):
        kept.add(relative)
        result.written += write_if_changed(target / relative, data)
    result.removed = _remove_stale(target, kept)
    for name in (*FOLDERS, "."):
        sync_directory(target / name)
    return result


def _remove_stale(target: Path, kept: set[str]) -> int:
    """Remove the files of memories no longer stored, and what an interrupted export left behind."""
    removed = 0
    for folder in (*FOLDERS, "."):
        with os.scandir(target / folder) as entries:
            for entry in entries:
                stale = (folder in ("memories", "history") and entry.name.startswith(MEMORY_FILE_PREFIX)
                         and f"{folder}/{entry.name}" not in kept)
                if entry.is_file() and (stale or is_temporary(entry.name)):
                    os.unlink(entry.path)
                    removed += stale
    return removed
