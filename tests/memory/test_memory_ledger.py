"""Issue 14 item 2: the injection ledger — what each session was told, what the budget cut, and, per
memory, in how many sessions it was injected and why it is not injected now."""

from __future__ import annotations

from collections.abc import Callable

from claudeops_memory import repository
from claudeops_memory.context import MEMORY_FRAMING
from claudeops_memory.ledger import NEVER_INJECTED, InjectionCount, injection_counts, session_injection
from memory_helpers import LoadedApp

from claudeops import estimate_tokens


def test_a_session_start_records_the_memories_injected_with_their_rank_and_the_block_size(
        memory_app: LoadedApp) -> None:
    low = memory_app.remember("Second fact", service="nas", confidence=0.6)
    high = memory_app.remember("First fact", service="jellyfin", confidence=0.9)
    memory_app.remember("Below the threshold", confidence=0.2)
    session = memory_app.started()

    ledger = session_injection(session.id)

    assert ledger is not None
    [section] = [section.text for section in session.prompt_sections if section.name == "memory"]
    block = section.removeprefix(MEMORY_FRAMING + "\n\n")  # the budget (and the ledger) count the block only
    assert block != section
    assert (ledger.tokens, ledger.budget_tokens, ledger.qualifying) == (estimate_tokens(block), 2000, 2)
    assert ledger.injected == ((1, high.id), (2, low.id))
    assert ledger.cut == () and ledger.cut_unlisted == 0


def test_memories_cut_by_the_budget_are_recorded_with_their_rank(load_memory_app: Callable[..., LoadedApp]) -> None:
    memory_app = load_memory_app(CLAUDEOPS_MEMORY_BUDGET="60", CLAUDEOPS_MEMORY_LEDGER_CUT_LIMIT="2")
    kept = memory_app.remember("Short trusted fact", confidence=0.9)
    cut = [memory_app.remember(f"Long fact {number} " + "detail " * 30, confidence=0.8 - number / 10)
           for number in range(3)]
    session = memory_app.started()

    ledger = session_injection(session.id)

    assert ledger is not None
    assert ledger.injected == ((1, kept.id),)
    assert ledger.cut == ((2, cut[0].id), (3, cut[1].id))  # the limit names two of the three
    assert (ledger.qualifying, ledger.cut_unlisted) == (4, 1)


def test_a_session_without_memories_is_told_nothing_and_says_so(memory_app: LoadedApp) -> None:
    session = memory_app.started()

    ledger = session_injection(session.id)

    assert ledger is not None and (ledger.tokens, ledger.qualifying, ledger.injected) == (0, 0, ())


def test_each_memory_knows_in_how_many_sessions_it_was_injected_and_the_last(memory_app: LoadedApp) -> None:
    shown = memory_app.remember("Takes 60s to start", service="jellyfin")
    hidden = memory_app.remember("Retired fact", confidence=0.9, active=False)
    sessions = [memory_app.started() for _ in range(3)]

    counts = injection_counts([shown.id, hidden.id])

    assert counts == {shown.id: InjectionCount(3, sessions[-1].id), hidden.id: NEVER_INJECTED}


def test_a_memory_says_why_it_is_not_injected_now(load_memory_app: Callable[..., LoadedApp]) -> None:
    memory_app = load_memory_app(CLAUDEOPS_MEMORY_BUDGET="60")
    injected = memory_app.remember("Short trusted fact", confidence=0.9)
    second = memory_app.remember("Long fact " + "detail " * 40, confidence=0.8)
    third = memory_app.remember("Another long fact " + "detail " * 40, confidence=0.7)
    weak = memory_app.remember("Weak fact", confidence=0.2)
    retired = memory_app.remember("Retired fact", confidence=0.9, active=False)

    reasons = {memory.id: repository.injection_reason(memory, 60) for memory in repository.list_memories()}

    assert reasons == {injected.id: "injected", second.id: "cut by the budget at rank 2",
                       third.id: "cut by the budget at rank 3", weak.id: "below threshold",
                       retired.id: "inactive"}

