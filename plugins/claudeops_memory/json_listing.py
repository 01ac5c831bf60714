"""``memories list --json`` for a million memories: the same text as ``json.dumps(…, indent=2)``, fast.

The standard library writes indented JSON with its pure-Python encoder (its C encoder only writes
compact JSON), and building a record and a dict per row first (``dataclasses.asdict`` copies every
value) made listing 1M memories take 28.6 s. Here the C encoder turns a whole page of values into
JSON text at once, as one flat array whose separator is a NUL byte — a character it always escapes
inside strings, so splitting on it gives exactly each value's text — and each row is then one
``%`` of a template that holds the indentation and the keys. The output is byte for byte
``json.dumps(rows, indent=2)`` (a test compares them), written a page at a time.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from claudeops_memory.models import MEMORY_COLUMNS

_SEPARATOR = "\x00"
_ACTIVE = MEMORY_COLUMNS.index("active")
_OBJECT = "  {\n" + ",\n".join(f"    {json.dumps(column)}: %s" for column in MEMORY_COLUMNS) + "\n  }"


def write_json_array(pages: Iterable[Sequence[tuple[Any, ...]]], out: TextIO) -> int:
    """Write the rows of ``pages`` (tuples of :data:`MEMORY_COLUMNS`, ``active`` as 0/1) to ``out`` as one
    indented JSON array of objects, a page at a time; returns how many rows it wrote."""
    written = 0
    for page in pages:
        if not page:
            continue
        out.write(("[\n" if not written else ",\n") + ",\n".join(_objects(page)))
        written += len(page)
    out.write("\n]\n" if written else "[]\n")
    return written


def _objects(page: Sequence[tuple[Any, ...]]) -> list[str]:
    width = len(MEMORY_COLUMNS)
    values = [value for row in page for value in row]
    values[_ACTIVE::width] = [bool(active) for active in values[_ACTIVE::width]]
    encoded = json.dumps(values, separators=(_SEPARATOR, ":"))[1:-1].split(_SEPARATOR)
    return [_OBJECT % tuple(encoded[start:start + width]) for start in range(0, len(encoded), width)]
