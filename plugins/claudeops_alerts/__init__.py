"""Built-in plugin: alert-triggered runs.

Alertmanager, Grafana, Uptime Kuma (and any sender of a small JSON object) post to
``/api/v1/alerts``; each alert is parsed by code into a one-line brief with the services it
names, de-duplicated by fingerprint and queued; the dashboard starts one ``claudeops run`` for all
queued alerts as soon as the run lock is free, its prompt quoting every brief.
"""

from __future__ import annotations

from collections.abc import Callable

from claudeops import Config, hookimpl
from claudeops_alerts.models import MIGRATIONS
from claudeops_alerts.settings import SECTION, AlertSettings, validate
from claudeops_alerts.web import register_web  # noqa: F401  the webhook, /alerts and the queue task

OWNER = "alerts"


@hookimpl
def register_settings(register: Callable[[str, type], None]) -> None:
    register(SECTION, AlertSettings)


@hookimpl
def configure(config: Config) -> None:
    validate(config)


@hookimpl
def register_migrations(register: Callable[..., None]) -> None:
    register(OWNER, MIGRATIONS)
