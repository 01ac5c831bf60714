"""Page arithmetic and links that keep the current filters, shared by every paged table."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlencode


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
