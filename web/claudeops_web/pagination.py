"""Paging shared by every paged table and every paged API list.

Tables use :class:`Page` (page arithmetic, links that keep the current filters). API lists
answer with Litestar's :class:`~litestar.pagination.OffsetPagination` envelope
(``{"items", "total", "limit", "offset"}``) and take their ``limit`` and ``offset`` as
:data:`ApiLimit` and :data:`ApiOffset`, so every list has the same shape and the same bounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated
from urllib.parse import urlencode

from litestar.pagination import OffsetPagination
from litestar.params import QueryParameter

from claudeops import MAX_ROW_ID

__all__ = ["MAX_LIMIT", "ApiLimit", "ApiOffset", "OffsetPagination", "Page"]

MAX_LIMIT = 500
"""The most items one API request may ask for: enough for a script, small enough for one response."""

ApiLimit = Annotated[int, QueryParameter(ge=1, le=MAX_LIMIT, description=f"items per response, 1 to {MAX_LIMIT}")]
"""The ``limit`` query parameter of a paged API list (give it the list's default)."""

ApiOffset = Annotated[int, QueryParameter(ge=0, le=MAX_ROW_ID, schema_extra={"maximum": MAX_ROW_ID},
                                          description="items to skip")]
"""The ``offset`` query parameter of a paged API list (default 0). Capped at the largest row id: more
skips every row anyway, and SQLite cannot even bind a bigger number (an ``OverflowError``, once a 500).
The schema states the cap as an integer: Litestar would write ``le`` as a float (9.223372036854776e18),
which is more than the cap."""


@dataclass(frozen=True)
class Page:
    """Page ``number`` (1-based) of ``total`` rows, ``size`` per page, under the given filters."""

    number: int
    size: int
    total: int
    filters: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, number: int, size: int, total: int, filters: Mapping[str, str | None] | None = None) -> Page:
        """Clamp ``number`` into range (a page past the end shows the last one)."""
        kept = tuple((key, value) for key, value in (filters or {}).items() if value)
        last = max(1, -(-total // size))
        return cls(min(max(1, number), last), size, total, kept)

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.size))

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.size

    @property
    def first_row(self) -> int:
        return min(self.total, self.offset + 1)

    @property
    def last_row(self) -> int:
        return min(self.total, self.offset + self.size)

    def query(self, number: int | None = None) -> str:
        """The query string of page ``number`` (default: this page) with the filters kept."""
        number = self.number if number is None else number
        pairs = list(self.filters) + ([("page", str(number))] if number > 1 else [])
        return urlencode(pairs)
