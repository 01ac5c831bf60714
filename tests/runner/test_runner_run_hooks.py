"""The run as a whole: ``before_run`` / ``after_run`` around the chain, ``check_session_start`` before each
tier (issue 17: spend caps are enforced through it), replayed sessions marked, the one spend rule."""

from __future__ import annotations

from typing import Any

from runner_helpers import events, replay, row
from test_runner_escalation import TIER1, TIER2

from claudeops import hookimpl
from claudeops.exit_codes import EXIT_FAILED, EXIT_OK, EXIT_REFUSED
from claudeops.notable import START_REFUSED
from claudeops.runner.chain import RunRequest, run_session_chain
from claudeops.runner.script import script_to_stream
from claudeops.session import Run, RunOutcome
from claudeops.session_rows import SessionRow, spend_since


class RunWatcher:
    """Records the run hooks and refuses the tiers in ``refuse``."""

    def __init__(self, refuse: dict[int, str] | None = None) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.refuse = refuse or {}
        self.kinds: list[tuple[str | None, int | None, str]] = []

    @hookimpl
    def before_run(self, run: Run) -> None:
        self.calls.append(("before_run", (run.tier, run.trigger, run.replayed)))

    @hookimpl
    def check_session_start(self, tier: int, parent_id: int | None) -> str | None:
        self.calls.append(("check_session_start", (tier, parent_id)))
        return self.refuse.get(tier)

    @hookimpl
    def after_run(self, run: Run, outcome: RunOutcome) -> None:
        self.calls.append(("after_run", (outcome.exit_code, outcome.reason, outcome.session_ids)))

    @hookimpl
    def record_event(self, event: Any) -> None:
        self.kinds.append((event.kind, event.session_id, event.message))


def run(app, *recordings, **fields):
    import asyncio

    return asyncio.run(run_session_chain(app, RunRequest.replaying(list(recordings), **fields)))


def test_the_run_hooks_surround_every_session_of_the_chain(runner_app, register_plugin):
    watcher = RunWatcher()
    register_plugin(watcher, "watcher")
    result = run(runner_app, TIER1, TIER2)
    parent, child = (report.session_id for report in result.sessions)
    assert watcher.calls == [("before_run", (1, "replay", True)), ("check_session_start", (1, None)),
                             ("check_session_start", (2, parent)), ("after_run", (EXIT_OK, None, (parent, child)))]


def test_a_refused_first_tier_starts_no_session_and_the_run_exits_refused(runner_app, register_plugin):
    watcher = RunWatcher({1: "daily spend cap reached"})
    register_plugin(watcher, "watcher")
    result = run(runner_app, TIER1)
    assert result.sessions == [] and SessionRow.select().count() == 0
    assert result.exit_code == EXIT_REFUSED == 77
    assert result.refused == "tier 1 not started: daily spend cap reached"
    assert watcher.calls[-1] == ("after_run", (EXIT_REFUSED, "tier 1 not started: daily spend cap reached", ()))
    assert (START_REFUSED, None, "tier 1 not started: daily spend cap reached") in watcher.kinds


def test_a_refused_next_tier_leaves_the_parent_completed_and_says_why(runner_app, register_plugin):
    watcher = RunWatcher({2: "daily spend cap reached"})
    register_plugin(watcher, "watcher")
    result = run(runner_app, TIER1, TIER2)
    [parent] = result.sessions
    assert parent.status == "completed" and row(parent.session_id).status == "completed"
    assert parent.escalation_note == "tier 2 not started: daily spend cap reached"
    assert result.exit_code == EXIT_REFUSED and SessionRow.select().count() == 1
    assert (START_REFUSED, parent.session_id, "tier 2 not started: daily spend cap reached") in watcher.kinds
    assert ("warning", "tier 2 not started: daily spend cap reached") in events(parent.session_id)


def test_a_start_check_that_crashes_refuses_the_start(runner_app, register_plugin):
    class Broken:
        @hookimpl
        def check_session_start(self) -> str | None:
            raise RuntimeError("budget table missing")

    register_plugin(Broken(), "broken")
    result = run(runner_app, TIER1)
    assert result.sessions == [] and result.exit_code == EXIT_REFUSED
    assert result.refused.startswith("tier 1 not started: the start check failed (plugin 'broken' failed in hook "
                                     "check_session_start: RuntimeError: budget table missing")


def test_after_run_hears_of_a_failed_run(runner_app, register_plugin):
    watcher = RunWatcher()
    register_plugin(watcher, "watcher")
    failing = script_to_stream(["oops"], is_error=True, subtype="error_during_execution", errors=["API down"])
    result = run(runner_app, failing)
    [report] = result.sessions
    assert result.exit_code == EXIT_FAILED
    assert watcher.calls[-1] == ("after_run", (EXIT_FAILED, f"session #{report.session_id} failed: API error: API down",
                                               (report.session_id,)))


def test_a_failing_after_run_never_changes_how_the_run_ends(runner_app, register_plugin):
    class Broken:
        @hookimpl
        def after_run(self) -> None:
            raise RuntimeError("ping server gone")

    register_plugin(Broken(), "broken")
    [report] = replay(runner_app, TIER1, escalate=False)
    assert report.status == "completed"


def test_replayed_sessions_are_marked_and_spend_nothing(runner_app, make_session):
    parent, child = replay(runner_app, script_to_stream(["[ESCALATE] look", "x"], cost_usd=0.5),
                           script_to_stream(["fixed"], cost_usd=0.25))
    assert row(parent.session_id).replayed and row(child.session_id).replayed
    assert (row(parent.session_id).cost_usd, row(child.session_id).cost_usd) == (0.5, 0.25)
    real = make_session()
    SessionRow.update(cost_usd=0.125, status="completed").where(SessionRow.id == real.id).execute()
    assert spend_since("2000-01-01T00:00:00Z") == 0.125
    assert spend_since("2999-01-01T00:00:00Z") == 0.0
