"""What the status board, the Services page and the API show: service rows and the one-line answer
to "is anything wrong?"."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from claudeops_web.context import WebContext

from claudeops import counted
from claudeops_inventory.status import ServiceRow, service_rows

PROBLEMS = ("down", "degraded")


@dataclass(frozen=True)
class Board:
    rows: list[ServiceRow]
    flag_strangers: bool
    """Whether services outside the inventory are flagged (only when there is an inventory)."""

    @property
    def problems(self) -> list[ServiceRow]:
        """Down first, then degraded; services in maintenance are not problems (failures are expected)."""
        found = [row for row in self.rows if row.shown_status in PROBLEMS]
        return sorted(found, key=lambda row: (PROBLEMS.index(row.shown_status), row.since or ""))

    @property
    def headline(self) -> tuple[str, str]:
        """(tone, sentence): ``("bad", "2 services down, 1 degraded")``, ``("ok", "All 5 services up")``."""
        down = sum(1 for row in self.rows if row.shown_status == "down")
        degraded = sum(1 for row in self.rows if row.shown_status == "degraded")
        if down or degraded:
            parts = [f"{counted(down, 'service')} down"] if down else []
            if degraded:
                parts.append(f"{degraded} degraded" if down else f"{counted(degraded, 'service')} degraded")
            return ("bad" if down else "warn"), ", ".join(parts)
        unknown = sum(1 for row in self.rows if row.shown_status == "unknown")
        paused = sum(1 for row in self.rows if row.shown_status == "maintenance")
        if not self.rows:
            return "muted", "No service is known yet: declare the inventory, or wait for the first session"
        extra = [f"{unknown} not checked yet" if unknown else "", f"{paused} in maintenance" if paused else ""]
        up = len(self.rows) - unknown - paused
        sentence = "Nothing is wrong" if up == 0 else f"All {counted(up, 'service')} checked are up"
        tail = "; ".join(part for part in extra if part)
        return ("ok" if up else "muted"), sentence + (f" ({tail})" if tail else "")


def board(web: WebContext) -> Board:
    """The rows of every service (the caller holds the database connection)."""
    return Board(service_rows(web.config, web.hook.service_statuses()), bool(web.config.inventory))


def card_context(web: WebContext) -> dict[str, Any]:
    return {"board": board(web), "max_tier": web.config.core.max_tier}
