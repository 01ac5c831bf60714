"""The JSON Schemas (draft 2020-12) of the exported documents, and the validator an import checks them with.

The schema files ship in ``claudeops_memory/schemas/`` and are copied into every exported folder
(``schemas/``), so a reviewer or a CI job can validate a ``.memories`` folder without claudeops.
An import validates against the copies shipped with this claudeops, never against the folder's
own (a folder could carry a schema that lets anything through).

The validator is ``jsonschema-rs``: a maintained, complete draft 2020-12 implementation whose
check of a memory document takes about 1 µs, where the pure-Python ``jsonschema`` takes 30-70 µs
— at 100,000 memories that alone would be 3-7 s, over the import's whole budget (see
``bench/memory_transfer.py``).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

import jsonschema_rs

SCHEMAS = ("memory", "history", "manifest", "index")
"""The documents an export writes, each with ``schemas/<name>.schema.json``."""


def schema_file_name(name: str) -> str:
    return f"{name}.schema.json"


def schema_text(name: str) -> bytes:
    """The shipped schema file, byte for byte (what an export copies)."""
    return (resources.files("claudeops_memory") / "schemas" / schema_file_name(name)).read_bytes()


@cache
def _validator(name: str) -> jsonschema_rs.Draft202012Validator:
    return jsonschema_rs.Draft202012Validator(json.loads(schema_text(name)))


def schema_problem(name: str, document: object) -> str | None:
    """Why ``document`` is not a valid ``name`` document, in one line naming where (None when valid)."""
    validator = _validator(name)
    if validator.is_valid(document):
        return None
    error = next(iter(validator.iter_errors(document)))
    where = "/".join(str(part) for part in error.instance_path)
    return f"{where}: {error.message}" if where else error.message
