"""Marker registry: line-based parsing that never raises, several markers, conflicts."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claudeops.markers import Marker, MarkerConflict, MarkerRegistry, MarkerType, blank_code_spans


def noop(session, marker):
    return None


@pytest.fixture
def registry() -> MarkerRegistry:
    registry = MarkerRegistry()
    registry.register(MarkerType("NOTE", re.compile(r"\[NOTE:([a-z]+)\][ \t]*(.+)"), "## Notes", noop))
    registry.register(MarkerType("ESCALATE", re.compile(r"\[ESCALATE\][ \t]*(.+)"), "## Escalation", noop))
    return registry


def test_marker_text_ends_at_end_of_line(registry):
    markers = registry.parse("[NOTE:a] first line\nsecond line is prose")
    assert [(marker.groups, marker.text) for marker in markers] == [(("a", "first line"), "[NOTE:a] first line")]


def test_several_markers_in_one_text_block(registry):
    text = "Checked.\n[NOTE:a] one\nmore prose\n[NOTE:b] two [ESCALATE] caddy down"
    assert [(marker.type, marker.groups) for marker in registry.parse(text)] == [
        ("NOTE", ("a", "one")), ("NOTE", ("b", "two")), ("ESCALATE", ("caddy down",))]


def test_bare_marker_does_not_swallow_the_next_line(registry):
    assert registry.parse("[ESCALATE]\nthe reason on the next line") == []


def test_candidate_that_does_not_match_is_offered_as_malformed(registry):
    candidates = list(registry.candidates("[NOTE:UPPER] x\n[NOTE:ok] fine"))
    assert [candidate.parse() is None for candidate in candidates] == [True, False]
    assert candidates[0].text == "[NOTE:UPPER] x"


def test_text_that_only_resembles_a_marker_is_not_a_candidate(registry):
    assert list(registry.candidates("[NOTEBOOK] [NOTES:a] x [note:a] y")) == []


def test_unterminated_bracket_yields_nothing(registry):
    assert registry.parse("[NOTE:abc never closed\n[ESCALATE") == []


def test_very_long_line_is_parsed_without_error(registry):
    text = "x" * 200_000 + " [NOTE:a] tail"
    assert registry.parse("[NOTE:a] head " + "y" * 300_000)[0].groups[0] == "a"
    assert registry.parse(text) == []  # the marker lies past the per-line cut-off


def test_unicode_text_is_handled(registry):
    markers = registry.parse("Überprüft ✓\u2028[NOTE:x] naïve café — 60 s ⏱")
    assert markers[0].groups == ("x", "naïve café — 60 s ⏱")


@given(st.text())
def test_parsing_never_raises(text):
    registry = MarkerRegistry()
    registry.register(MarkerType("NOTE", re.compile(r"\[NOTE:([a-z]+)\][ \t]*(.+)"), "", noop))
    for candidate in registry.candidates(text):
        candidate.parse()


def test_duplicate_marker_name_is_a_conflict(registry):
    with pytest.raises(MarkerConflict, match="'NOTE' is registered twice"):
        registry.register(MarkerType("NOTE", re.compile("x"), "", noop))


def test_prompt_sections_in_registration_order(registry):
    assert registry.prompt_sections() == ["## Notes", "## Escalation"]


def test_a_marker_quoted_in_inline_code_is_not_a_marker(registry):
    text = "The health page contains `[ESCALATE] please escalate me`; a tool printed it, so I ignore it."
    assert list(registry.candidates(text)) == []
    assert registry.parse("``[NOTE:a] quoted`` but [NOTE:b] meant") == [
        Marker("NOTE", ("b", "meant"), "[NOTE:b] meant")]


@pytest.mark.parametrize("fence", ["```", "~~~", "````", "```markdown"])
def test_markers_inside_a_fenced_code_block_are_not_markers(registry, fence):
    closing = fence.rstrip("markdown")
    text = f"An example of the format:\n{fence}\n[NOTE:a] example\n[ESCALATE] example\n{closing}\n[NOTE:b] real"
    assert [marker.groups for marker in registry.parse(text)] == [("b", "real")]


def test_a_fence_left_open_runs_to_the_end_of_the_text(registry):
    assert registry.parse("[NOTE:a] before\n```\n[NOTE:b] inside\n[ESCALATE] inside") == [
        Marker("NOTE", ("a", "before"), "[NOTE:a] before")]


def test_code_inside_a_markers_own_text_is_kept(registry):
    [marker] = registry.parse("[NOTE:a] after `docker restart jellyfin` it needs 60 s; `[ESCALATE] x` is quoted")
    assert marker.groups == ("a", "after `docker restart jellyfin` it needs 60 s; `[ESCALATE] x` is quoted")


def test_a_backtick_without_a_partner_is_plain_text(registry):
    assert [marker.groups for marker in registry.parse("it's a ` stray [NOTE:a] still a marker")] == [
        ("a", "still a marker")]


@given(st.text(alphabet="`ab[", max_size=40))
def test_code_spans_are_blanked_as_commonmark_pairs_backtick_runs(line):
    reference = re.sub(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", lambda span: " " * len(span.group(0)), line)
    assert blank_code_spans(line) == reference


def test_a_unicode_line_separator_is_text_not_the_end_of_a_marker(registry):
    assert registry.parse("[NOTE:a] before \u2028 after\r\n[NOTE:b] next") == [
        Marker("NOTE", ("a", "before \u2028 after"), "[NOTE:a] before \u2028 after"),
        Marker("NOTE", ("b", "next"), "[NOTE:b] next")]


def test_a_marker_past_the_line_cut_off_is_ignored_with_a_warning(registry, caplog):
    assert registry.parse("x" * 25_000 + " [NOTE:a] far out") == []
    assert "ignored markers past the first 20000 characters of a 25017-character line" in caplog.text
