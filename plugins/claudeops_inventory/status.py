"""Where each service stands, for the listings: the inventory, joined with what the events say
(the ``service_statuses`` hook) and with maintenance.

One row per inventory service, in dependency order, plus the services events named that the
inventory does not know (flagged, so a typo in a marker or a service the inventory forgot shows
up instead of vanishing).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from claudeops import UNKNOWN_STATUS, Config, InventoryService, Pause, ServiceStatus, paused_services


@dataclass(frozen=True)
class ServiceRow:
    """A service as every listing shows it."""

    name: str
    service: InventoryService | None
    """``None``: named by events but not in the inventory."""
    status: str
    since: str | None
    message: str | None
    event_id: int | None
    pause: Pause | None

    @property
    def in_inventory(self) -> bool:
        return self.service is not None

    @property
    def shown_status(self) -> str:
        """The status cell: ``maintenance`` wins over what the events say (failures are expected then)."""
        return "maintenance" if self.pause is not None else self.status

    @property
    def shown_since(self) -> str | None:
        """Since when the status cell holds: the pause's start in maintenance, else the status's."""
        return self.pause.since or None if self.pause is not None else self.since

    def as_dict(self) -> dict[str, Any]:
        service = self.service
        return {
            "name": self.name, "in_inventory": self.in_inventory, "status": self.status, "since": self.since,
            "message": self.message, "event_id": self.event_id,
            "maintenance": None if self.pause is None else {"since": self.pause.since, "until": self.pause.until,
                                                            "reason": self.pause.reason, "source": self.pause.source},
            "kind": service.kind if service else None, "host": service.host if service else None,
            "runtime_name": service.runtime_name if service else None,
            "health_url": service.health_url if service else None,
            "expected_status": service.expected_status if service else None,
            "after": list(service.after) if service else [], "notes": service.notes if service else None,
            "remediate": service.remediate if service else None,
            "maintenance_windows": [window.spec for window in service.maintenance] if service else [],
        }


def service_rows(config: Config, statuses: list[ServiceStatus] | None, at: datetime | None = None) -> list[ServiceRow]:
    """Inventory services first (dependency order), then the ones only events named (by name).

    ``statuses`` is the ``service_statuses`` hook's answer (``None``: nobody answers). The store
    must be open (maintenance pauses are read from it).
    """
    inventory = config.inventory
    known: dict[str, ServiceStatus] = {}
    strangers: dict[str, ServiceStatus] = {}
    for status in statuses or []:
        service = inventory.named_by(status.service)
        if service is None:
            strangers[status.service] = status
        elif service.name not in known or status.last_event_at > known[service.name].last_event_at:
            known[service.name] = status
    paused = paused_services(config, at)
    everything = paused.get("*")
    rows = [_row(service.name, service, known.get(service.name), paused.get(service.name) or everything)
            for service in inventory]
    rows += [_row(name, None, status, paused.get(name) or everything) for name, status in sorted(strangers.items())]
    return rows


def _row(name: str, service: InventoryService | None, status: ServiceStatus | None, pause: Pause | None) -> ServiceRow:
    if status is None:
        return ServiceRow(name, service, UNKNOWN_STATUS, None, None, None, pause)
    return ServiceRow(name, service, status.status, status.since, status.message, status.event_id, pause)
