"""Example webhook bodies in the shapes Alertmanager, Grafana and Uptime Kuma send (and a generic one)."""

from __future__ import annotations

import copy
from typing import Any

ALERTMANAGER: dict[str, Any] = {
    "version": "4", "groupKey": '{}:{alertname="JellyfinDown"}', "truncatedAlerts": 0, "status": "firing",
    "receiver": "claudeops", "groupLabels": {"alertname": "JellyfinDown"}, "commonLabels": {}, "commonAnnotations": {},
    "externalURL": "http://alertmanager:9093",
    "alerts": [{"status": "firing", "labels": {"alertname": "JellyfinDown", "instance": "media.lan:8096",
                                               "job": "jellyfin", "severity": "critical"},
                "annotations": {"summary": "Jellyfin is not answering on 8096"},
                "startsAt": "2026-05-05T11:55:00Z", "endsAt": "0001-01-01T00:00:00Z",
                "generatorURL": "http://prometheus:9090/graph", "fingerprint": "c1b2a3d4e5f60718"}],
}
GRAFANA: dict[str, Any] = {
    "receiver": "claudeops", "status": "firing", "orgId": 1, "state": "alerting", "title": "[FIRING:1] Disk full",
    "message": "Disk 95% full", "externalURL": "http://grafana:3000/", "version": "1", "groupKey": "{}",
    "truncatedAlerts": 0, "groupLabels": {}, "commonLabels": {}, "commonAnnotations": {},
    "alerts": [{"status": "firing", "labels": {"alertname": "Disk full", "grafana_folder": "Hosts",
                                               "service": "postgres", "severity": "warning"},
                "annotations": {"summary": "Disk of postgres 95% full"}, "startsAt": "2026-05-05T11:50:00Z",
                "endsAt": "0001-01-01T00:00:00Z", "generatorURL": "http://grafana:3000/alerting/grafana/x/view",
                "fingerprint": "a1b2c3d4e5f6a7b8", "silenceURL": "", "dashboardURL": "", "panelURL": "",
                "values": {"A": 95}}],
}
UPTIME_KUMA: dict[str, Any] = {
    "heartbeat": {"monitorID": 3, "status": 0, "time": "2026-05-05 11:59:00", "important": True, "duration": 0,
                  "msg": "connect ECONNREFUSED 10.0.0.5:443"},
    "monitor": {"id": 3, "name": "Nextcloud", "url": "https://cloud.example.net/status.php", "hostname": None,
                "port": None, "type": "http"},
    "msg": "[Nextcloud] [🔴 Down] connect ECONNREFUSED 10.0.0.5:443",
}
GENERIC: dict[str, Any] = {"name": "backup failed", "service": "postgres", "severity": "critical",
                           "message": "pg_dump exited 1"}


def body(name: str) -> dict[str, Any]:
    return copy.deepcopy({"alertmanager": ALERTMANAGER, "grafana": GRAFANA, "uptime-kuma": UPTIME_KUMA,
                          "generic": GENERIC}[name])
