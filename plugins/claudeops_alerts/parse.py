"""Alert payloads, parsed by code: Alertmanager, Grafana, Uptime Kuma and a generic JSON shape.

Each becomes :class:`Alert` records: where it came from, a fingerprint (the same problem reported
again has the same one), firing or resolved, a name, the services it is about (matched to the
inventory where a label or monitor names one) and a one-line brief the run's prompt quotes. No
model is asked: these formats say what they mean.

Shapes, as their senders document them:

* Alertmanager webhook (``version`` 4): ``{"status", "alerts": [{"status", "labels", "annotations",
  "fingerprint", "startsAt", ...}]}``;
* Grafana alerting webhook: the Alertmanager shape plus ``orgId``/``title``/``state``;
* Uptime Kuma webhook: ``{"heartbeat": {"status": 0 down | 1 up | 2 pending | 3 maintenance, "msg"},
  "monitor": {"id", "name", "url", "hostname"}, "msg"}`` (a test notification has no monitor);
* generic: ``{"name" or "title", "service" or "services", "severity", "status", "message",
  "fingerprint"}`` (only a name is required).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from claudeops import Inventory, canonical_service, service_name

SOURCES = ("alertmanager", "grafana", "uptime-kuma", "generic")
MAX_BRIEF = 300
MAX_ALERTS = 200
"""One request carries at most this many alerts (Alertmanager groups them); more is a 400, not a flood of runs."""
SERVICE_LABELS = ("service", "container", "job", "app", "name", "instance", "host", "hostname")
KUMA_STATUS = {0: "firing", 1: "resolved", 2: "firing", 3: "resolved"}
"""Uptime Kuma's heartbeat: down and pending fire; up and maintenance resolve."""


class AlertPayloadError(ValueError):
    """The body is not an alert in any shape we know; the message says what was expected."""


@dataclass(frozen=True)
class Alert:
    """One alert as claudeops keeps it."""

    source: str
    fingerprint: str
    status: str
    """``firing`` or ``resolved``."""
    name: str
    services: tuple[str, ...]
    severity: str
    summary: str

    @property
    def brief(self) -> str:
        """``[firing] alertmanager: JellyfinDown (jellyfin; critical): HTTP probe failed``: one line, bounded."""
        about = "; ".join(part for part in (", ".join(self.services), self.severity) if part)
        text = f"[{self.status}] {self.source}: {self.name}" + (f" ({about})" if about else "")
        if self.summary:
            text += f": {self.summary}"
        text = " ".join(text.split())
        return text if len(text) <= MAX_BRIEF else text[:MAX_BRIEF - 1] + "…"


def parse_alerts(payload: Any, inventory: Inventory, source: str | None = None) -> list[Alert]:
    """The alerts of one webhook body; ``source`` forces a shape (``?source=grafana``), else it is recognised."""
    if not isinstance(payload, Mapping):
        raise AlertPayloadError("an alert is a JSON object (Alertmanager, Grafana, Uptime Kuma or "
                                "{\"name\": ..., \"service\": ...})")
    shape = source or recognise(payload)
    if shape not in SOURCES:
        raise AlertPayloadError(f"unknown alert source {shape!r}; use one of {', '.join(SOURCES)}")
    if shape in ("alertmanager", "grafana"):
        alerts = _alertmanager(payload, inventory, shape)
    elif shape == "uptime-kuma":
        alerts = _uptime_kuma(payload, inventory)
    else:
        alerts = [_generic(payload, inventory)]
    if len(alerts) > MAX_ALERTS:
        raise AlertPayloadError(f"{len(alerts)} alerts in one request; at most {MAX_ALERTS}")
    return alerts


def recognise(payload: Mapping[str, Any]) -> str:
    if isinstance(payload.get("alerts"), list):
        return "grafana" if "orgId" in payload or "state" in payload else "alertmanager"
    if "heartbeat" in payload or "monitor" in payload:
        return "uptime-kuma"
    return "generic"


def _text(value: Any) -> str:
    return " ".join(str(value).split()) if value is not None else ""


def _alertmanager(payload: Mapping[str, Any], inventory: Inventory, source: str) -> list[Alert]:
    found = []
    for index, item in enumerate(payload["alerts"]):
        if not isinstance(item, Mapping):
            raise AlertPayloadError(f"alerts[{index}] is not an object")
        labels, annotations = _table(item, "labels"), _table(item, "annotations")
        name = _text(labels.get("alertname") or payload.get("title") or "alert")
        candidates = [labels.get(label) for label in SERVICE_LABELS]
        status = "resolved" if _text(item.get("status") or payload.get("status")).lower() == "resolved" else "firing"
        summary = _text(annotations.get("summary") or annotations.get("description") or payload.get("message"))
        fingerprint = _text(item.get("fingerprint")) or _digest(source, name, sorted(labels.items()))
        found.append(Alert(source, f"{source}:{fingerprint}", status, name, _services(candidates, inventory),
                           _text(labels.get("severity")).lower(), summary))
    return found


def _table(item: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = item.get(key)
    return value if isinstance(value, Mapping) else {}


def _uptime_kuma(payload: Mapping[str, Any], inventory: Inventory) -> list[Alert]:
    monitor, heartbeat = _table(payload, "monitor"), _table(payload, "heartbeat")
    if not monitor or not heartbeat:  # Kuma's "Test" button sends only a message
        return [Alert("uptime-kuma", "uptime-kuma:test", "test", "test notification", (), "",
                      _text(payload.get("msg")))]
    url_host = urlsplit(str(monitor.get("url") or "")).hostname
    candidates = [monitor.get("name"), monitor.get("hostname"), url_host]
    beat = heartbeat.get("status")
    status = KUMA_STATUS.get(beat, "firing") if isinstance(beat, int) else "firing"
    return [Alert("uptime-kuma", f"uptime-kuma:{_text(monitor.get('id') or monitor.get('name'))}", status,
                  _text(monitor.get("name") or "monitor"), _services(candidates, inventory),
                  "critical" if status == "firing" else "", _text(heartbeat.get("msg") or payload.get("msg")))]


def _generic(payload: Mapping[str, Any], inventory: Inventory) -> Alert:
    name = _text(payload.get("name") or payload.get("title"))
    if not name:
        raise AlertPayloadError("a generic alert needs a \"name\" (or \"title\"); Alertmanager, Grafana and "
                                "Uptime Kuma bodies are recognised by their own fields")
    listed = payload.get("services")
    candidates: list[Any] = list(listed) if isinstance(listed, list) else [payload.get("service")]
    services = _services(candidates, inventory)
    status = "resolved" if _text(payload.get("status")).lower() in ("resolved", "ok", "up") else "firing"
    fingerprint = _text(payload.get("fingerprint")) or _digest("generic", name, services)
    return Alert("generic", f"generic:{fingerprint}", status, name, services, _text(payload.get("severity")).lower(),
                 _text(payload.get("message") or payload.get("description")))


def _services(candidates: Sequence[Any], inventory: Inventory) -> tuple[str, ...]:
    """The inventory services the candidates name; without a match, the first that is a valid name."""
    words = [canonical_service(str(value).split(":")[0]) for value in candidates if value]
    known = [service.name for word in words if (service := inventory.named_by(word)) is not None]
    if known:
        return tuple(dict.fromkeys(known))
    for word in words:
        try:
            return (service_name(re.sub(r"\s+", "-", word), dots=True),)
        except ValueError:
            continue
    return ()


def _digest(*parts: Any) -> str:
    return hashlib.sha256(repr(parts).encode()).hexdigest()[:16]
