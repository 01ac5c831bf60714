"""Built-in plugin: spend caps across runs (issue 17).

``[budget] daily_usd`` and ``monthly_usd`` cap what all sessions together may spend. Before
each session of a run, escalated tiers included, the runner asks ``check_session_start``; past
a cap this plugin refuses, so the run exits 77 (``EXIT_REFUSED``) with one line, an event of
kind ``start_refused`` is recorded and the notify plugin tells the operator. The running
totals are shown by ``claudeops doctor``, an overview card and ``/metrics``. The cap is a
plugin's, not the core's: the core only offers the hook, as it does for cooldowns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from claudeops import Config, DoctorCheck, Run, hookimpl, utc_now
from claudeops_budget.settings import SECTION, BudgetSettings, validate
from claudeops_budget.spend import current_spend, refusal
from claudeops_budget.web import register_web  # noqa: F401  the overview card


@hookimpl
def register_settings(register: Callable[[str, type], None]) -> None:
    register(SECTION, BudgetSettings)


@hookimpl
def configure(config: Config) -> None:
    validate(config)


@hookimpl
def check_session_start(run: Run) -> str | None:
    """Refuse a real session past a cap; a replay spends nothing and always may run."""
    if run.replayed:
        return None
    return refusal(run.clock(), run.config.section(SECTION))


@hookimpl
def doctor_checks(config: Config) -> list[DoctorCheck]:
    spends = current_spend(utc_now(), config.section(SECTION))
    reached = [spend for spend in spends if spend.reached]
    detail = "spent " + ", ".join(spend.describe() for spend in spends)
    if reached:
        detail += "; runs are refused until the period ends"
    return [DoctorCheck("budget", True, detail, warning=bool(reached))]


@hookimpl
def collect_metrics(config: Config) -> list[Any]:
    from prometheus_client.core import GaugeMetricFamily

    spent = GaugeMetricFamily("claudeops_spend_usd", "USD spent by real sessions in the current local day and "
                              "month (replays spend nothing)", labels=["period"])
    caps = GaugeMetricFamily("claudeops_spend_cap_usd", "The spend cap of the period (budget.daily_usd, "
                             "budget.monthly_usd); absent when none is set", labels=["period"])
    for spend in current_spend(utc_now(), config.section(SECTION)):
        spent.add_metric([spend.period], spend.spent)
        if spend.cap > 0:
            caps.add_metric([spend.period], spend.cap)
    return [spent, caps]
