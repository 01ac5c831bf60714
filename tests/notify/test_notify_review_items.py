"""Review-queue notifications are grouped (audit of issue 17): a conservative judge is often unsure,
and each unsure judgement used to send its own message. Now a session's review items of one kind
are one message with their count, and the kind is not announced again within notify.repeat_hours
(the repeats are recorded as suppressed); the other kind still gets its own message."""

from __future__ import annotations

from claudeops_memory.verdict import JudgeVerdict
from notify_helpers import outcomes

from claudeops import hookimpl

UNSURE = "memory review: {} for you (a judge was unsure)"


class UnsureJudge:
    """A judge that can never tell whether two memories state the same fact."""

    @hookimpl
    def judge_memory_relation(self) -> JudgeVerdict:
        return JudgeVerdict("reinforce", 0.3, judge="unsure")


def test_unsure_judgements_notify_once_per_kind_within_the_repeat_window(
        replay_texts, alerts, claudeops_clock, register_plugin):
    replay_texts("[MEMORY:timing:jellyfin] needs 60s to start\n[MEMORY:timing:nextcloud] needs 30s to start")
    register_plugin(UnsureJudge(), "unsure-judge")
    claudeops_clock.advance(minutes=15)
    replay_texts("[MEMORY:timing:jellyfin] needs 61s to start\n[MEMORY:timing:nextcloud] needs 31s to start")
    claudeops_clock.advance(minutes=15)
    replay_texts("[MEMORY:timing:jellyfin] needs 62s to start")
    [message] = alerts()
    assert message["title"] == UNSURE.format("2 items wait")
    assert message["message"].count("the judge was unsure") == 2
    assert outcomes()[-1] == (UNSURE.format("1 item waits"), "suppressed", outcomes()[-1][2])
    assert outcomes()[-1][2].startswith("duplicate: the same notification was sent at ")

    replay_texts("[MEMORY:timing:jellyfin] needs 90s to start (replaces #1)")  # the other kind still notifies
    assert [message["title"] for message in alerts()][1:] == [
        "memory review: 1 item waits for you (a memory was weakened or held back)"]

    claudeops_clock.advance(hours=25)  # past notify.repeat_hours (24)
    replay_texts("[MEMORY:timing:nextcloud] needs 32s to start")
    assert alerts()[-1]["title"] == UNSURE.format("1 item waits")
