"""Built-in plugin: the dead-man's switch (issue 17).

claudeops runs from cron; if cron stops, the host is down or the credentials expire, nothing
it sends can say so. A run therefore pings ``health.ping_url`` (Healthchecks.io, Uptime Kuma's
push monitor, or anything following Healthchecks.io's conventions) when it starts, when it
succeeds and when it fails, and the monitoring service raises the alarm when the pings stop.
Replayed runs do not ping: they say nothing about cron.
"""

from __future__ import annotations

from collections.abc import Callable

from claudeops import Config, DoctorCheck, Run, RunOutcome, hookimpl
from claudeops_health.ping import end_ping, send, start_ping
from claudeops_health.settings import SECTION, HealthSettings, validate


@hookimpl
def register_settings(register: Callable[[str, type], None]) -> None:
    register(SECTION, HealthSettings)


@hookimpl
def configure(config: Config) -> None:
    validate(config)


@hookimpl
def before_run(run: Run) -> None:
    settings: HealthSettings = run.config.section(SECTION)
    if settings.ping_url and not run.replayed and (ping := start_ping(settings.ping_url, settings.style, run.id)):
        send(ping, settings.timeout_seconds)


@hookimpl
def run_not_started(run: Run, outcome: RunOutcome) -> None:
    """No credentials, no usable database…: the schedule is broken, and the switch hears it now, not
    after its grace time. A run that found the lock held by a live run never gets here (not a failure)."""
    after_run(run, outcome)


@hookimpl
def after_run(run: Run, outcome: RunOutcome) -> None:
    settings: HealthSettings = run.config.section(SECTION)
    if settings.ping_url and not run.replayed:
        reason = None if outcome.ok else (outcome.reason or f"exit code {outcome.exit_code}")
        send(end_ping(settings.ping_url, settings.style, run.id, reason), settings.timeout_seconds)


@hookimpl
def doctor_checks(config: Config) -> list[DoctorCheck]:
    settings: HealthSettings = config.section(SECTION)
    if not settings.ping_url:
        return [DoctorCheck("health", True, "no health.ping_url: nobody notices if cron stops running claudeops "
                                            "(see the README's cron section)", warning=True)]
    pings = "start, success and fail" if settings.style == "healthchecks" else "up and down"
    return [DoctorCheck("health", True, f"every run pings the dead-man's switch ({settings.style}: {pings}; "
                                        f"{settings.timeout_seconds:g} s timeout)")]
