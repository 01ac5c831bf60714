"""Files written so that a crash never leaves half of one, and an unchanged file is never rewritten.

A file is written to a temporary name beside it, flushed to disk (``fsync``) and renamed over the
old one: a reader (or ``git``) sees the old file or the new one, whole, and a crash leaves at
worst a temporary file that the next export removes. A whole new folder is written under a
temporary name, flushed once (``os.sync``: one flush of thousands of files is far cheaper than
one ``fsync`` each) and renamed into place. Comparing before writing keeps an unchanged file's
modification time, so a re-export of an unchanged store writes nothing at all.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

TEMPORARY_SUFFIX = ".tmp"


def is_temporary(name: str) -> bool:
    """A file an interrupted write left behind (``.<name>.tmp``): never read, removed by the next export."""
    return name.startswith(".") and name.endswith(TEMPORARY_SUFFIX)


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data``: temporary file, ``fsync``, rename."""
    temporary = path.with_name(f".{path.name}{TEMPORARY_SUFFIX}")
    with open(temporary, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def write_if_changed(path: Path, data: bytes) -> bool:
    """Write ``data`` to ``path`` atomically unless it already holds exactly that; whether it wrote."""
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return False
    except FileNotFoundError:
        pass
    write_atomically(path, data)
    return True


def sync_directory(path: Path) -> None:
    """Flush a folder's entries (the renames and removals in it) to disk."""
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


@contextmanager
def new_folder(target: Path) -> Iterator[Path]:
    """A temporary folder beside ``target`` to fill; on success it is flushed and renamed to ``target``.

    On an error the temporary folder is removed and ``target`` was never created.
    """
    temporary = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=TEMPORARY_SUFFIX, dir=target.parent))
    try:
        yield temporary
        os.sync()
        os.rename(temporary, target)
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise
    sync_directory(target.parent)
