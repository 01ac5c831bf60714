"""Confidence arithmetic: every stored confidence is clamped to [0, 1] and rounded to 2 decimals.

Binary floats make 0.7 - 0.2 - 0.2 equal 0.29999…, which would deactivate a memory the spec
keeps active (active iff confidence >= 0.3). Rounding on *every* write keeps stored values on
the 0.01 grid, so comparisons with the threshold and the printed values are exact.

Two forms of the same rule: :func:`clamp_confidence` for values computed in Python and
:func:`confidence_sql` for values computed inside an UPDATE (reinforcement, contradiction, bulk
adjustments and decay run as single statements so a concurrent writer cannot interleave).
``ROUND(CAST(x AS NUMERIC), 2)`` is written the same way for SQLite and PostgreSQL, whose
``round`` only accepts ``numeric`` with a precision argument.
"""

from __future__ import annotations

from typing import Any

import peewee

from claudeops_memory.settings import MIN_CONFIDENCE


def clamp_confidence(value: float) -> float:
    """``value`` clamped to [0, 1] and rounded to 2 decimals, as it must be stored."""
    return round(min(1.0, max(0.0, float(value))), 2)


def is_active_confidence(confidence: float, threshold: float = MIN_CONFIDENCE) -> bool:
    """Whether a (stored, rounded) confidence keeps a memory active."""
    return clamp_confidence(confidence) >= clamp_confidence(threshold)


def confidence_sql(expression: Any) -> peewee.ColumnBase:
    """The SQL counterpart of :func:`clamp_confidence` for an expression over the row."""
    clamped = peewee.Case(None, ((expression < 0.0, 0.0), (expression > 1.0, 1.0)), expression)
    return peewee.fn.ROUND(peewee.Cast(clamped, "NUMERIC"), 2)


def active_sql(new_confidence: peewee.ColumnBase, threshold: float) -> peewee.ColumnBase:
    """``1`` when ``new_confidence`` keeps the memory active, else ``0`` (as an SQL expression)."""
    return peewee.Case(None, ((new_confidence < clamp_confidence(threshold), 0),), 1)


def format_confidence(confidence: float) -> str:
    """The shortest decimal form the context block prints: 0.9, 0.95, 1.0."""
    return repr(clamp_confidence(confidence))
