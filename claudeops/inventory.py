"""The service inventory: what the agent watches, how to reach each service, what depends on what.

Core data, like the environment settings: every plugin reads it through the API
(``config.inventory``), so memories, events and cooldowns can tell a known service from a
typo without importing each other. It comes from ``[services.NAME]`` tables, in ``config.toml``
or in the file ``services_file`` names, and is checked when the configuration loads
(:mod:`claudeops.inventory_file`): a broken inventory stops every command with one line, like
any other configuration error.

Services are kept in dependency order (a service after what it runs ``after``), so the prompt
and every listing name shared causes first.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

from claudeops.services import canonical_service
from claudeops.windows import MaintenanceWindow

KINDS = ("container", "systemd", "vm", "external")
"""How a service runs: a container (docker/podman), a systemd unit, a virtual machine, or
something outside the fleet the agent can only probe (a router, a cloud service)."""
LOCAL_HOST = "local"
SYSTEMD_SUFFIX = ".service"


@dataclass(frozen=True)
class InventoryService:
    """One service of the inventory, as the operator described it."""

    name: str
    kind: str
    host: str = LOCAL_HOST
    health_url: str = ""
    expected_status: int = 200
    container: str = ""
    unit: str = ""
    after: tuple[str, ...] = ()
    notes: str = ""
    remediate: bool = True
    """False: tiers 2 and 3 may look but never act on it (the tool gate refuses, like a cooldown)."""
    maintenance: tuple[MaintenanceWindow, ...] = ()

    @property
    def is_local(self) -> bool:
        return self.host == LOCAL_HOST

    @property
    def runtime_name(self) -> str:
        """The name its runtime knows it by: the container name, the unit, or the service name."""
        if self.kind == "container":
            return self.container or self.name
        if self.kind == "systemd":
            return self.unit or f"{self.name}{SYSTEMD_SUFFIX}"
        return self.name

    @property
    def aliases(self) -> frozenset[str]:
        """Every word a command may name it by (canonical spelling): its name, container, unit, a VM's host."""
        words = {self.name, canonical_service(self.runtime_name)}
        if self.kind == "vm" and not self.is_local:  # a virtual machine is its host: ssh to it acts on it
            words.add(canonical_service(self.host.rpartition("@")[2].split(":")[0].strip("[]")))
        words |= {word.removesuffix(SYSTEMD_SUFFIX) for word in words}
        return frozenset(word for word in words if word)

    def window_end(self, at: datetime) -> tuple[MaintenanceWindow, datetime] | None:
        """The maintenance window of this service open at ``at`` and when it ends, or ``None``."""
        for window in self.maintenance:
            end = window.end_if_open(at)
            if end is not None:
                return window, end
        return None


@dataclass(frozen=True)
class Inventory:
    """Every service the operator declared, dependencies first; empty when none is declared."""

    services: tuple[InventoryService, ...] = ()
    source: str = ""
    """Where it was read (a file path, or ``config.toml``), for messages; empty when there is none."""
    _by_alias: dict[str, InventoryService] = field(default_factory=dict, init=False, repr=False, compare=False)
    _dependents: dict[str, list[str]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for service in self.services:
            for needed in service.after:
                self._dependents.setdefault(needed, []).append(service.name)
        for service in self.services:
            for alias in sorted(service.aliases):
                self._by_alias.setdefault(alias, service)
        for service in self.services:  # a service's own name wins over another's container or unit name
            self._by_alias[service.name] = service

    def __iter__(self) -> Iterator[InventoryService]:
        return iter(self.services)

    def __len__(self) -> int:
        return len(self.services)

    def __bool__(self) -> bool:
        return bool(self.services)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    @property
    def names(self) -> list[str]:
        return [service.name for service in self.services]

    def get(self, name: str) -> InventoryService | None:
        """The service called ``name`` (any spelling: ``Jellyfin`` is ``jellyfin``), or ``None``."""
        found = self._by_alias.get(canonical_service(name))
        return found if found is not None and found.name == canonical_service(name) else None

    def named_by(self, word: str) -> InventoryService | None:
        """The service a word of a command names: its name, container name or unit (``jellyfin.service``)."""
        word = canonical_service(word)
        return self._by_alias.get(word) or self._by_alias.get(word.removesuffix(SYSTEMD_SUFFIX))

    def knows(self, name: str | None) -> bool:
        """Whether ``name`` is an inventory service; with no inventory every name is taken as known,
        so an install that never wrote one does not see every service flagged."""
        return not self.services or (name is not None and self.named_by(name) is not None)

    def dependents(self, name: str) -> list[str]:
        """The services that run after ``name`` (directly), in inventory order."""
        return list(self._dependents.get(name, ()))

    def shared_causes(self) -> list[tuple[str, list[str]]]:
        """Services that others depend on, with everything that depends on them (transitively):
        when several fail together, these are checked first."""
        found = []
        for service in self.services:
            affected = self._all_dependents(service.name)
            if affected:
                found.append((service.name, affected))
        return sorted(found, key=lambda item: -len(item[1]))

    def _all_dependents(self, name: str) -> list[str]:
        seen: set[str] = set()
        frontier = [name]
        while frontier:
            for dependent in self._dependents.get(frontier.pop(), ()):
                if dependent not in seen:
                    seen.add(dependent)
                    frontier.append(dependent)
        return [service.name for service in self.services if service.name in seen]
