"""Turning what a form or query string sent into typed values, with one-line reasons when it can't.

Browsers send every field as text; a bad value becomes a 400 that says which field and why
(``confidence must be a number between 0 and 1, not 'abc'``) rather than a validation dump.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from litestar.exceptions import ValidationException

from claudeops import MAX_ROW_ID, is_row_id, parse_flag
from claudeops_memory import repository
from claudeops_memory.models import GENERAL

SHOW_CHOICES = ("all", "active", "inactive")


def text_field(data: Mapping[str, Any], name: str) -> str | None:
    """A single text value (the last one if a field was repeated); None when absent."""
    value = data.get(name)
    if isinstance(value, list):
        value = value[-1] if value else None
    return None if value is None else str(value)


def confidence_field(data: Mapping[str, Any], name: str = "confidence") -> float | None:
    """A finite number, or None when absent or blank. Out-of-range values are clamped later."""
    raw = text_field(data, name)
    if raw is None or not raw.strip():
        return None
    return parse_number(raw, name, "a number between 0 and 1")


def parse_number(raw: str, name: str, expected: str) -> float:
    try:
        value = float(raw.strip())
    except ValueError:
        raise ValidationException(f"{name} must be {expected}, not {raw!r}") from None
    if not math.isfinite(value):
        raise ValidationException(f"{name} must be {expected}, not {raw!r}")
    return value


def bool_field(data: Mapping[str, Any], name: str) -> bool | None:
    raw = text_field(data, name)
    if raw is None or not raw.strip():
        return None
    try:
        return parse_flag(raw)
    except ValueError:
        raise ValidationException(f"{name} must be true or false, not {raw!r}") from None


def parse_ids(values: Iterable[Any]) -> list[int]:
    """Memory ids from repeated ``ids`` parameters or a JSON list; at least one is required.

    A number no memory can have (0, or beyond SQLite's INTEGER) is as much a mistake as a word.
    """
    ids = []
    for value in values:
        try:
            memory_id: int | None = int(str(value).strip())
        except ValueError:
            memory_id = None
        if memory_id is None or not is_row_id(memory_id):
            raise ValidationException(f"ids must be memory ids (whole numbers from 1 to {MAX_ROW_ID:,}), not {value!r}")
        ids.append(memory_id)
    if not ids:
        raise ValidationException("select at least one memory")
    return ids


def as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def category_filter(category: str | None) -> str | None:
    """``None`` for every category; else the category, checked by the repository's one rule."""
    if not category:
        return None
    try:
        return repository.validate_category(category)
    except ValueError as exc:
        raise ValidationException(str(exc)) from None


def service_filter(service: str | None) -> str | None:
    """``None`` for every service; ``general`` (any case) for memories about no service; else the
    service as the repository stores it (lower case), so ``Jellyfin`` finds jellyfin's memories."""
    if not service or not service.strip():
        return None
    if service.strip().lower() == GENERAL:
        return GENERAL
    try:
        return repository.normalise_service(service)
    except ValueError as exc:
        raise ValidationException(str(exc)) from None


def show_filter(show: str | None) -> str:
    show = show or "all"
    if show not in SHOW_CHOICES:
        raise ValidationException(f"show must be one of {', '.join(SHOW_CHOICES)}, not {show!r}")
    return show


def visibility(show: str) -> dict[str, bool]:
    """``list_memories`` keyword arguments for a ``show`` choice."""
    return {"include_inactive": show != "active", "only_inactive": show == "inactive"}

