"""SPEC-0015 "Prompt Injection via buildMemoryContext", "Token Budget Enforcement", "Memory Context
Format" and "Inactive Memory Handling": the block every session's system prompt gets."""

from __future__ import annotations

import re
from collections.abc import Callable

from claudeops_memory import repository
from claudeops_memory.context import (
    MEMORY_FRAMING,
    build_memory_context,
    bullet,
    header,
    plan_memory_context,
)
from claudeops_memory.models import CATEGORIES, Memory
from claudeops_memory.repository import MemoryRecord, injection_status
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from memory_helpers import LoadedApp

from claudeops import estimate_tokens
from claudeops.session import Handoff

HEADER = re.compile(r"^## Operational Memory \((?:(\d+) of )?(\d+) memories, ~([\d,]+) tokens\)$")


def _memory_section(memory_app: LoadedApp, tier: int = 1, **fields: object) -> str | None:
    """The block of the session's memory section (what follows the framing paragraph)."""
    session = memory_app.session(tier=tier, **fields)
    memory_app.app.hook.before_session(session=session)
    sections = [section.text for section in session.ordered_sections() if section.name == "memory"]
    if not sections:
        return None
    framing, block = sections[0].split("\n\n", 1)
    assert framing == MEMORY_FRAMING
    return block


def _header(text: str) -> tuple[int, int, int]:
    match = HEADER.match(text.splitlines()[0])
    assert match is not None, text.splitlines()[0]
    included, total, tokens = match.groups()
    return int(included or total), int(total), int(tokens.replace(",", ""))


def _bullets(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- [")]


def test_memories_injected_at_session_start(memory_app: LoadedApp) -> None:
    for number in range(5):
        memory_app.remember(f"Observation number {number}", service="jellyfin", confidence=0.5 + number / 10)

    text = _memory_section(memory_app)

    assert text is not None
    assert _header(text)[:2] == (5, 5)
    assert all(f"Observation number {number}" in text for number in range(5))


def test_no_active_memories(memory_app: LoadedApp) -> None:
    memory_app.remember("Below the threshold", confidence=0.2)
    memory_app.remember("Switched off by the operator", confidence=0.9, active=False)

    assert build_memory_context() == ""
    assert _memory_section(memory_app) is None


def test_memories_grouped_by_service(memory_app: LoadedApp) -> None:
    memory_app.remember("DNS checks fail during WireGuard reconnects", category="remediation", confidence=0.95)
    memory_app.remember("Takes 60s to start after restart", service="jellyfin", confidence=0.9)
    memory_app.remember("Needs manual VACUUM FULL weekly", service="postgres", category="maintenance")

    text = build_memory_context()

    headings = [line for line in text.splitlines() if line.startswith("### ")]
    assert headings == ["### jellyfin", "### postgres", "### general"]
    assert "- [maintenance] Needs manual VACUUM FULL weekly (confidence: 0.7) #" in text


def test_formatted_output_matches_expected_structure(memory_app: LoadedApp) -> None:
    timing = memory_app.remember("Takes 60s to start after restart", service="jellyfin", confidence=0.9)
    behavior = memory_app.remember("First restart always fails due to DB lock", service="jellyfin",
                                   category="behavior", confidence=0.8)
    dns = memory_app.remember("DNS checks sometimes fail transiently during WireGuard reconnects",
                              category="remediation", confidence=0.6)

    text = build_memory_context()

    body = ("### jellyfin\n"
            f"- [timing] Takes 60s to start after restart (confidence: 0.9) #{timing.id}\n"
            f"- [behavior] First restart always fails due to DB lock (confidence: 0.8) #{behavior.id}\n"
            "\n"
            "### general\n"
            "- [remediation] DNS checks sometimes fail transiently during WireGuard reconnects (confidence: 0.6) "
            f"#{dns.id}")
    tokens = estimate_tokens(f"## Operational Memory (3 memories, ~00 tokens)\n\n{body}")
    assert text == f"## Operational Memory (3 memories, ~{tokens} tokens)\n\n{body}"
    assert estimate_tokens(text) == tokens


def test_each_bullet_ends_with_its_memory_id_so_the_agent_can_cite_it(memory_app: LoadedApp) -> None:
    memories = [memory_app.remember(f"Fact {number}", service="nas", confidence=0.9 - number / 10)
                for number in range(3)]

    bullets = _bullets(build_memory_context())

    assert bullets == [f"- [timing] Fact {number} (confidence: {0.9 - number / 10:.1f}) #{memory.id}"
                       for number, memory in enumerate(memories)]


def test_confidence_is_printed_in_its_shortest_form(memory_app: LoadedApp) -> None:
    for value in (1.0, 0.95, 0.5):
        memory_app.remember(f"Fact at {value}", confidence=value)
    assert re.findall(r"\(confidence: ([\d.]+)\)", build_memory_context()) == ["1.0", "0.95", "0.5"]


def test_budget_enforced_with_many_memories(memory_app: LoadedApp) -> None:
    for number in range(50):  # 50 memories of ~400 characters: ~5,000 tokens in all
        memory_app.remember(f"Fact {number:02d} " + "detail " * 55, service=f"service{number % 4}",
                            confidence=0.3 + (number % 8) / 10)

    text = build_memory_context(2000)

    included, total, tokens = _header(text)
    assert total == 50 and 0 < included < 50
    assert text.startswith(f"## Operational Memory ({included} of 50 memories, ~{tokens:,} tokens)")
    assert tokens == estimate_tokens(text) <= 2000
    assert len(_bullets(text)) == included
    shown = [float(value) for value in re.findall(r"\(confidence: ([\d.]+)\)", text)]
    hidden = [memory.confidence for memory in repository.list_memories()]
    assert min(shown) >= sorted(hidden, reverse=True)[included - 1]
    next_bullet = 2 + len("### service0\n") + 410  # even the cheapest next memory would not have fitted
    assert len(text) + next_bullet > 2000 * 4


def test_budget_is_configurable(load_memory_app: Callable[..., LoadedApp]) -> None:
    memory_app = load_memory_app(CLAUDEOPS_MEMORY_BUDGET="4000")
    assert memory_app.settings.budget_tokens == 4000
    for number in range(50):
        memory_app.remember(f"Fact {number:02d} " + "detail " * 55, service="nas")

    text = _memory_section(memory_app)

    assert text is not None
    included, _, tokens = _header(text)
    assert 2000 < tokens <= 4000
    assert included > 20


def _reference_block(shown: list[MemoryRecord], total: int) -> str:
    """The block for exactly ``shown``, rendered from scratch: groups by first appearance, general
    last, and the header's ``T`` found by re-rendering until it states the block's own size."""
    groups: dict[str | None, list[str]] = {}
    for memory in shown:
        groups.setdefault(memory.service, []).append(bullet(memory.id, memory.category, memory.observation,
                                                            memory.confidence))
    order = [service for service in groups if service] + ([None] if None in groups else [])
    body = "\n\n".join(f"### {service or 'general'}\n" + "\n".join(groups[service]) for service in order)
    tokens = 0
    while estimate_tokens(text := f"{header(len(shown), total, tokens)}\n\n{body}") != tokens:
        tokens = estimate_tokens(text)
    return text


MEMORY_SHAPES = st.tuples(st.sampled_from([None, "jellyfin", "postgres", "a", "zz-long_service-name"]),
                          st.sampled_from(CATEGORIES), st.integers(1, 300),
                          st.sampled_from([0.2, 0.3, 0.45, 0.5, 0.7, 0.8, 0.95, 1.0]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shapes=st.lists(MEMORY_SHAPES, min_size=1, max_size=30), any_budget=st.integers(0, 3000))
@example(shapes=[(None, "timing", 1, 0.3)] * 11, any_budget=0)  # "1 of 11" fits where "10 of 11" would not
def test_budget_includes_every_memory_that_fits_and_nothing_more(
        memory_app: LoadedApp, shapes: list[tuple[str | None, str, int, float]], any_budget: int) -> None:
    """Against a brute force: at every budget, and at each size a prefix of memories renders to
    (and one token either side), the block is the longest prefix whose own rendering fits."""
    Memory.delete().execute()
    for number, (service, category, length, confidence) in enumerate(shapes):
        memory_app.remember(f"#{number} " + "w" * length, service=service, category=category, confidence=confidence)
    qualifying = sorted((memory for memory in repository.list_memories() if memory.active and memory.confidence >= 0.3),
                        key=lambda memory: (-memory.confidence, -memory.id))
    sizes = [estimate_tokens(_reference_block(qualifying[:count], len(qualifying)))
             for count in range(1, len(qualifying) + 1)]

    for budget in sorted({any_budget} | {size + step for size in sizes for step in (-1, 0, 1)}):
        fitting = 0
        while fitting < len(sizes) and sizes[fitting] <= budget:
            fitting += 1
        plan = plan_memory_context(budget)
        assert plan.text == (_reference_block(qualifying[:fitting], len(qualifying)) if fitting else ""), budget
        assert estimate_tokens(plan.text) <= budget
        assert plan.injected_ids == {memory.id for memory in qualifying[:fitting]}


def test_all_memories_fit_within_budget(memory_app: LoadedApp) -> None:
    for number in range(3):  # ~200 tokens together
        memory_app.remember(f"Fact {number} " + "detail " * 34, service="nas")

    text = build_memory_context(2000)

    included, total, tokens = _header(text)
    assert (included, total) == (3, 3)
    assert text.startswith(f"## Operational Memory (3 memories, ~{tokens} tokens)")
    assert tokens == estimate_tokens(text)
    assert 150 < tokens < 250


def test_high_confidence_general_memory_is_never_dropped_for_lower_ones(memory_app: LoadedApp) -> None:
    memory_app.remember("The most trusted fact of all", category="remediation", confidence=1.0)
    for number in range(40):
        memory_app.remember(f"Service fact {number} " + "detail " * 40, service=f"service{number % 5}",
                            confidence=0.8)

    text = build_memory_context(1000)

    assert "- [remediation] The most trusted fact of all (confidence: 1.0) #" in text
    assert re.search(r"- \[remediation\] The most trusted fact of all \(confidence: 1.0\) #\d+$", text.rstrip())
    assert estimate_tokens(text) <= 1000


def test_budget_smaller_than_any_memory_injects_nothing(memory_app: LoadedApp) -> None:
    memory_app.remember("A fact " + "detail " * 50)
    assert build_memory_context(20) == ""
    assert build_memory_context(0) == ""


def test_low_confidence_memory_excluded_from_prompt(memory_app: LoadedApp) -> None:
    memory_app.remember("Trusted fact", confidence=0.6)
    memory_app.remember("Doubtful fact", confidence=0.2)
    text = build_memory_context()
    assert "Trusted fact" in text and "Doubtful fact" not in text


def test_inactive_memory_excluded_from_prompt(memory_app: LoadedApp) -> None:
    memory_app.remember("Trusted fact", confidence=0.6)
    memory_app.remember("Retired fact", confidence=1.0, active=False)
    text = build_memory_context()
    assert "Trusted fact" in text and "Retired fact" not in text


def test_escalated_sessions_get_the_memory_section_too(memory_app: LoadedApp) -> None:
    memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    handoff = Handoff(from_session_id=1, from_tier=1, reason="jellyfin down", final_text="502 three times")
    for tier in (2, 3):
        text = _memory_section(memory_app, tier=tier, handoff=handoff)
        assert text is not None and "Takes 60s to start after restart" in text


def test_memory_section_follows_the_environment_section(memory_app: LoadedApp) -> None:
    memory_app.remember("Takes 60s to start after restart", service="jellyfin")
    session = memory_app.session()
    memory_app.app.hook.before_session(session=session)
    assert [section.name for section in session.ordered_sections()] == ["environment", "memory"]


def test_injection_status_explains_each_memory(memory_app: LoadedApp) -> None:
    injected = memory_app.remember("Short trusted fact", confidence=0.9)
    crowded = memory_app.remember("Long fact " + "detail " * 60, confidence=0.8)
    weak = memory_app.remember("Weak fact", confidence=0.2)
    retired = memory_app.remember("Retired fact", confidence=0.9, active=False)

    status = injection_status(repository.list_memories(), 60, 0.3)

    assert status == {injected.id: "injected", crowded.id: "over budget", weak.id: "below threshold",
                      retired.id: "inactive"}
    assert injection_status([crowded], 60, 0.3) == {crowded.id: "over budget"}
    assert plan_memory_context(60).injected_ids == {injected.id}
