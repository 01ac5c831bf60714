"""What ``claudeops doctor`` and ``/metrics`` learn from the notify plugin."""

from __future__ import annotations

from typing import Any

from claudeops import Config, ConfigError, DoctorCheck
from claudeops_notify import repository
from claudeops_notify.notifier import configured_targets


def doctor_checks(config: Config) -> list[DoctorCheck]:
    """The targets (by position and scheme), whether Apprise knows each, and the last delivery."""
    try:
        targets = configured_targets(config)
    except ConfigError as exc:
        return [DoctorCheck("notify", False, str(exc))]
    if not targets:
        return [DoctorCheck("notify", True, "no notification URLs (notify.urls): nobody is told what runs find",
                            warning=True)]
    import apprise

    unknown = [target.label for target in targets if apprise.Apprise.instantiate(target.url) is None]
    if unknown:
        return [DoctorCheck("notify", False, f"Apprise does not know {', '.join(unknown)}: check the scheme and its "
                                              "fields (docs/notifications.md)")]
    labels = ", ".join(target.label + (f" [{','.join(sorted(target.tags))}]" if target.tags else "")
                       for target in targets)
    last = repository.list_notifications(limit=1)
    latest = f"; last notification {last[0].created_at}: {last[0].outcome}" if last else "; none sent yet"
    ok = not last or last[0].outcome != "failed"
    return [DoctorCheck("notify", ok, f"{len(targets)} target(s): {labels}{latest}"
                        + ("" if ok else f" ({last[0].reason}); try `claudeops notify test`"))]


def notification_metrics() -> list[Any]:
    from prometheus_client.core import CounterMetricFamily

    family = CounterMetricFamily("claudeops_notifications", "Notifications by outcome and kind (suppressed: "
                                 "a duplicate, flapping or held back by a plugin)", labels=["outcome", "kind"])
    for (outcome, kind), count in sorted(repository.count_by_outcome_and_kind().items()):
        family.add_metric([outcome, kind], count)
    return [family]
