"""Reading and checking the inventory: ``[services.NAME]`` tables, one line per mistake.

The tables live in ``config.toml`` or in the file ``services_file`` names (one place, not both:
two half-inventories would leave the reader guessing which one a service came from). Every
value is checked the way a setting is, with the same wording (``'<key>' must be <what>, not
<value>``), and the dependencies are checked as a whole: a service may only run ``after``
services of the inventory, and never, through others, after itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from claudeops.config import Config, ConfigError, RawConfig, read_config_file
from claudeops.inventory import KINDS, LOCAL_HOST, Inventory, InventoryService
from claudeops.services import service_name
from claudeops.spelling import did_you_mean
from claudeops.windows import MaintenanceWindow, parse_window

TABLE = "services"
KEYS = ("kind", "host", "health_url", "expected_status", "container", "unit", "after", "notes", "remediate",
        "maintenance")
_SSH_TARGET = re.compile(r"(?:[A-Za-z0-9._-]+@)?(?:[A-Za-z0-9][A-Za-z0-9.-]*|\[[0-9A-Fa-f:]+\])(?::\d{1,5})?")
"""``host``, ``user@host``, ``user@host:2222``, ``[fe80::1]``: what ``ssh`` takes as a target, never an option."""
_CONTAINER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
_UNIT = re.compile(r"[A-Za-z0-9][A-Za-z0-9:_.@\\-]{0,255}")


def load_inventory(raw: RawConfig, config: Config) -> Inventory:
    """The inventory the configuration declares (empty when it declares none); ``ConfigError`` otherwise."""
    in_config = raw.data.get(TABLE)
    file_path = config.path_setting("services_file")
    if file_path is None:
        return _build(in_config, raw.label) if in_config else Inventory()
    if in_config:
        raise ConfigError(f"{raw.label}: services are declared both in [services] tables here and in "
                          f"services_file {file_path}; keep them in one place")
    return _build(_read_services_file(file_path), str(file_path))


def _read_services_file(path: Path) -> Any:
    """The ``services`` tables of ``services_file``, read as the config file is (one line for bytes
    that are not UTF-8, bad TOML or nesting too deep)."""
    if not path.exists():
        raise ConfigError(f"services_file: {path} not found")
    data = read_config_file(path).data
    for key in data:
        if key != TABLE:
            raise ConfigError(f"{path}: unknown key {key!r} (a services file holds [services.NAME] tables)")
    return data.get(TABLE, {})


def _build(tables: Any, label: str) -> Inventory:
    if not isinstance(tables, Mapping):
        raise ConfigError(f"{label}: 'services' must be a table of [services.NAME] tables")
    services: dict[str, InventoryService] = {}
    written: dict[str, str] = {}
    for written_name, table in tables.items():
        service = _service(label, str(written_name), table)
        if service.name in services:
            raise ConfigError(f"{label}: [services.{written[service.name]}] and [services.{written_name}] "
                              "name the same service")
        services[service.name] = service
        written[service.name] = str(written_name)
    _check_dependencies(label, services)
    return Inventory(tuple(_dependency_order(services)), label)


def _service(label: str, written_name: str, table: Any) -> InventoryService:
    where = f"services.{written_name}"
    if not isinstance(table, Mapping):
        raise ConfigError(f"{label}: '{where}' must be a table ([{where}] with kind = ...)")
    try:
        name = service_name(written_name, dots=True)
    except ValueError as exc:
        raise ConfigError(f"{label}: [{where}]: {exc}") from None
    for key in table:
        if key not in KEYS:
            hint = (f' (a name with a dot is quoted: [services."{written_name}.{key}"])'
                    if isinstance(table[key], Mapping) else did_you_mean(str(key), KEYS))
            raise ConfigError(f"{label}: unknown key '{where}.{key}'{hint}")
    check = _Checker(label, where, table)
    kind = check.choice("kind", KINDS)
    container = check.text("container", _CONTAINER, "a container name")
    unit = check.text("unit", _UNIT, "a systemd unit name")
    if container and kind != "container":
        raise check.wrong("container", f"set only for kind = \"container\" (this service is {kind})")
    if unit and kind != "systemd":
        raise check.wrong("unit", f"set only for kind = \"systemd\" (this service is {kind})")
    return InventoryService(
        name=name, kind=kind, host=check.host(), health_url=check.url(), expected_status=check.status(),
        container=container, unit=unit, after=check.names("after"), notes=" ".join(check.text("notes").split()),
        remediate=check.flag("remediate", True), maintenance=check.windows())


class _Checker:
    """Reads one service table's values, each with the one-line error of a setting."""

    def __init__(self, label: str, where: str, table: Mapping[str, Any]) -> None:
        self.label, self.where, self.table = label, where, table

    def wrong(self, key: str, expected: str, value: Any = None) -> ConfigError:
        shown = self.table.get(key) if value is None else value
        return ConfigError(f"{self.label}: '{self.where}.{key}' must be {expected}, not {shown!r}")

    def choice(self, key: str, choices: tuple[str, ...]) -> str:
        if key not in self.table:
            raise ConfigError(f"{self.label}: [{self.where}] needs {key} = one of {', '.join(choices)}")
        value = self.table[key]
        if value not in choices:
            raise self.wrong(key, "one of " + ", ".join(choices))
        return str(value)

    def text(self, key: str, pattern: re.Pattern[str] | None = None, what: str = "a string") -> str:
        value = self.table.get(key, "")
        if not isinstance(value, str) or (pattern is not None and value and not pattern.fullmatch(value)):
            raise self.wrong(key, what)
        return value

    def flag(self, key: str, default: bool) -> bool:
        value = self.table.get(key, default)
        if not isinstance(value, bool):
            raise self.wrong(key, "true or false")
        return value

    def host(self) -> str:
        value = self.table.get("host", LOCAL_HOST)
        if not isinstance(value, str) or (value != LOCAL_HOST and not _SSH_TARGET.fullmatch(value)):
            raise self.wrong("host", f'"{LOCAL_HOST}" or an ssh target (host, user@host, user@host:port)')
        return value

    def url(self) -> str:
        value = self.text("health_url")
        if value:
            parts = urlsplit(value)
            if parts.scheme not in ("http", "https") or not parts.netloc or any(char.isspace() for char in value):
                raise self.wrong("health_url", "an http:// or https:// URL")
        return value

    def status(self) -> int:
        value = self.table.get("expected_status", 200)
        if isinstance(value, bool) or not isinstance(value, int) or not 100 <= value <= 599:
            raise self.wrong("expected_status", "an HTTP status code (100-599)")
        return value

    def names(self, key: str) -> tuple[str, ...]:
        value = self.table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self.wrong(key, "a list of service names")
        names = []
        for item in value:
            try:
                names.append(service_name(item, dots=True))
            except ValueError as exc:
                raise ConfigError(f"{self.label}: '{self.where}.{key}': {exc}") from None
        return tuple(dict.fromkeys(names))

    def windows(self) -> tuple[MaintenanceWindow, ...]:
        value = self.table.get("maintenance", [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise self.wrong("maintenance", 'a list of windows like "0 3 * * sun 2h"')
        try:
            return tuple(parse_window(item) for item in value)
        except ValueError as exc:
            raise ConfigError(f"{self.label}: '{self.where}.maintenance': {exc}") from None


def _check_dependencies(label: str, services: Mapping[str, InventoryService]) -> None:
    for service in services.values():
        for needed in service.after:
            if needed == service.name:
                raise ConfigError(f"{label}: 'services.{service.name}.after' names the service itself")
            if needed not in services:
                raise ConfigError(f"{label}: 'services.{service.name}.after' names {needed!r}, which is not in "
                                  f"the inventory{did_you_mean(needed, services)}")
    cycle = _find_cycle(services)
    if cycle:
        raise ConfigError(f"{label}: services depend on each other in a circle: {' → '.join(cycle)}")


def _find_cycle(services: Mapping[str, InventoryService]) -> list[str]:
    """One dependency circle (``a → b → a``), or an empty list."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> list[str]:
        state[name] = 1
        path.append(name)
        for needed in services[name].after:
            if state.get(needed) == 1:
                return [*path[path.index(needed):], needed]
            if needed not in state and (found := visit(needed)):
                return found
        path.pop()
        state[name] = 2
        return []

    for name in services:
        if name not in state and (found := visit(name)):
            return found
    return []


def _dependency_order(services: Mapping[str, InventoryService]) -> list[InventoryService]:
    """Every service after what it runs ``after``, otherwise in the order written (a stable topological sort)."""
    ordered: list[InventoryService] = []
    placed: set[str] = set()
    remaining = list(services.values())
    while remaining:
        ready = next(service for service in remaining if set(service.after) <= placed)  # no cycles: one is ready
        ordered.append(ready)
        placed.add(ready.name)
        remaining.remove(ready)
    return ordered
