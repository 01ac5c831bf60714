"""Where each service stands, from its findings: the answer to the ``service_statuses`` hook.

A service's status is the level of its latest finding (an event of kind ``finding``: what the agent
reported with an ``[EVENT]`` marker; ``SERVICE_STATUS_OF_LEVEL``: critical is down, warning
degraded, info up), and it has been so since the oldest finding of the unbroken run of that level
the latest belongs to, so a repeated "down" report does not reset "since when". Other events that
name a service (a memory contradicted, a restart refused by a cooldown or a maintenance window)
say nothing about its health and leave its status alone. Notifications, the overview and the
metrics all ask the hook, so they never disagree.
"""

from __future__ import annotations

from claudeops import FINDING, SERVICE_STATUS_OF_LEVEL, ServiceStatus, db, portable_sql

_LATEST_PER_SERVICE = f"""
SELECT service, level, created_at, message, id FROM events e
WHERE service IS NOT NULL AND kind = '{FINDING}' AND NOT EXISTS (
    SELECT 1 FROM events n WHERE n.service = e.service AND n.kind = '{FINDING}'
    AND (n.created_at > e.created_at OR (n.created_at = e.created_at AND n.id > e.id)))
ORDER BY service"""

_RUN_START = f"""
SELECT MIN(created_at) FROM events s
WHERE s.service = ? AND s.level = ? AND s.kind = '{FINDING}' AND NOT EXISTS (
    SELECT 1 FROM events d WHERE d.service = s.service AND d.level <> s.level AND d.kind = '{FINDING}'
    AND (d.created_at > s.created_at OR (d.created_at = s.created_at AND d.id > s.id)))"""


def service_statuses() -> list[ServiceStatus]:
    """Every service some finding named, its status, and since when; sorted by service."""
    statuses = []
    for service, level, created_at, message, event_id in db.execute_sql(portable_sql(_LATEST_PER_SERVICE)):
        (since,) = db.execute_sql(portable_sql(_RUN_START), (service, level)).fetchone()
        statuses.append(ServiceStatus(service=service, status=SERVICE_STATUS_OF_LEVEL.get(level, "up"), level=level,
                                      since=since or created_at, last_event_at=created_at, message=message,
                                      event_id=event_id))
    return statuses
