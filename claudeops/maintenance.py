"""Maintenance: services (or the whole fleet) the agent must leave alone for a while.

Two sources, one answer: an operator's pause (``claudeops pause SERVICE --for 2h``, the
dashboard's button; rows in ``maintenance_pauses``) and the recurring windows of the inventory
(``maintenance = ["0 3 * * sun 2h"]`` per service, ``maintenance_windows`` for every service).
:func:`is_paused` is the one question everyone asks: the prompt says such a service is in
maintenance, notifications stay silent about it, and the tool gate refuses tiers 2 and 3 any
change to it, as it refuses a restart over a cooldown.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import cast

import peewee

from claudeops.clock import to_timestamp, utc_now
from claudeops.config import Config
from claudeops.services import canonical_service, service_name
from claudeops.store import BaseModel, create_frozen_tables
from claudeops.windows import MaintenanceWindow, parse_window

EVERY_SERVICE = "*"
"""The service of a global pause or window: every service is in maintenance."""


class MaintenancePause(BaseModel):
    """An operator's pause: ``service`` (or ``*``) is in maintenance from ``starts_at`` to ``ends_at``,
    unless it was ended early (``ended_at``)."""

    id = peewee.AutoField()
    service = peewee.TextField()
    starts_at = peewee.TextField()
    ends_at = peewee.TextField(index=True)
    reason = peewee.TextField(default="")
    created_by = peewee.TextField(default="cli")
    ended_at = peewee.TextField(null=True)

    class Meta:
        table_name = "maintenance_pauses"


def create_pauses_table(database: peewee.Database) -> None:
    """Migration ``core/0005``: the pauses table, from a frozen copy of its first schema."""

    class Pause0005(peewee.Model):
        id = peewee.AutoField()
        service = peewee.TextField()
        starts_at = peewee.TextField()
        ends_at = peewee.TextField(index=True)
        reason = peewee.TextField(default="")
        created_by = peewee.TextField(default="cli")
        ended_at = peewee.TextField(null=True)

        class Meta:
            table_name = "maintenance_pauses"
            legacy_table_names = False

    create_frozen_tables(database, Pause0005)


@dataclass(frozen=True)
class Pause:
    """Why a service is in maintenance right now, and until when."""

    service: str
    """The service, or ``*`` when every service is in maintenance."""
    until: str
    reason: str
    source: str
    """``pause`` (an operator's) or ``window`` (a recurring window of the inventory or ``maintenance_windows``)."""
    pause_id: int | None = None
    since: str = ""
    """When it started (the pause's start, the window's opening): what "maintenance since" shows."""

    @property
    def everything(self) -> bool:
        return self.service == EVERY_SERVICE

    def describe(self) -> str:
        """``in maintenance until 2026-05-03T05:00:00Z (backup)``, for the prompt and every listing."""
        why = f" ({self.reason})" if self.reason else ""
        return f"in maintenance until {self.until}{why}"


def pauses_in_force(config: Config, at: datetime | None = None) -> list[Pause]:
    """Every pause and open window at ``at`` (now by default): global ones first, then by service.

    Reads ``maintenance_pauses``, so the store must be open (a web handler: inside its connection).
    """
    at = at or utc_now()
    stamp = to_timestamp(at)
    found = [Pause(row.service, row.ends_at, row.reason, "pause", row.id, row.starts_at) for row in _open_rows(stamp)]
    for window in _global_windows(config):
        if (end := window.end_if_open(at)) is not None:
            found.append(Pause(EVERY_SERVICE, to_timestamp(end), f"window {window.spec}", "window",
                               since=to_timestamp(end - window.duration)))
    for service in config.inventory:
        if (opened := service.window_end(at)) is not None:
            found.append(Pause(service.name, to_timestamp(opened[1]), f"window {opened[0].spec}", "window",
                               since=to_timestamp(opened[1] - opened[0].duration)))
    return sorted(found, key=lambda pause: (not pause.everything, pause.service, pause.until))


def is_paused(config: Config, service: str | None, at: datetime | None = None) -> Pause | None:
    """The pause that puts ``service`` in maintenance at ``at`` (now by default), or ``None``.

    ``service`` may be any name a marker or command uses (``jellyfin.service`` finds the inventory's
    ``jellyfin``); ``None`` asks about the fleet as a whole, which only a global pause covers.
    Of several pauses the one that lasts longest is returned. The store must be open.
    """
    wanted = _service_key(config, service)
    matching = [pause for pause in pauses_in_force(config, at) if pause.everything or pause.service == wanted]
    return max(matching, key=lambda pause: pause.until) if matching else None


def paused_services(config: Config, at: datetime | None = None) -> dict[str, Pause]:
    """Each service in maintenance at ``at`` with its longest pause; key ``*`` for a global one."""
    longest: dict[str, Pause] = {}
    for pause in pauses_in_force(config, at):
        if pause.service not in longest or pause.until > longest[pause.service].until:
            longest[pause.service] = pause
    return longest


LONGEST_PAUSE = timedelta(days=30)
"""A pause silences a service's notifications and refuses its changes: a forgotten one must end on
its own, so the CLI, the API and the dashboard all stop at a month."""


def pause_service(service: str | None, until: datetime, reason: str, created_by: str,
                  now: datetime | None = None) -> Pause:
    """Put ``service`` (``None``: every service) in maintenance until ``until``; returns the pause.

    ``ValueError`` (one line) for a bad name, an end that is not in the future or one more than
    :data:`LONGEST_PAUSE` away.
    """
    now = now or utc_now()
    name = EVERY_SERVICE if service is None else service_name(service, dots=True)
    if until <= now:
        raise ValueError(f"a pause must end in the future, not at {to_timestamp(until)}")
    if until - now > LONGEST_PAUSE:
        raise ValueError(f"a pause lasts at most {LONGEST_PAUSE.days} days, not until {to_timestamp(until)}")
    row = MaintenancePause.create(service=name, starts_at=to_timestamp(now), ends_at=to_timestamp(until),
                                  reason=" ".join(reason.split()), created_by=created_by)
    return Pause(name, row.ends_at, row.reason, "pause", row.id, row.starts_at)


def end_pauses(service: str | None, now: datetime | None = None) -> int:
    """End the operator's pauses of ``service`` (``None``: the global ones) now; returns how many.

    Windows cannot be ended this way: they are configuration (remove them from the inventory).
    """
    stamp = to_timestamp(now or utc_now())
    name = EVERY_SERVICE if service is None else canonical_service(service)
    ended: int = (MaintenancePause.update(ended_at=stamp)
                  .where((MaintenancePause.service == name) & (MaintenancePause.ends_at > stamp)
                         & MaintenancePause.ended_at.is_null()).execute())
    return ended


def _open_rows(stamp: str) -> Iterable[MaintenancePause]:
    query = MaintenancePause.select().where((MaintenancePause.starts_at <= stamp) & (MaintenancePause.ends_at > stamp)
                                            & MaintenancePause.ended_at.is_null())
    return cast("Iterable[MaintenancePause]", query)


def _global_windows(config: Config) -> list[MaintenanceWindow]:
    return [parse_window(spec) for spec in config.core.maintenance_windows]  # checked when the config loaded


def _service_key(config: Config, service: str | None) -> str | None:
    if service is None:
        return None
    known = config.inventory.named_by(service)
    return known.name if known is not None else canonical_service(service).removesuffix(".service")

