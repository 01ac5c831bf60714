"""One spelling per rule: where two parts of claudeops once followed two versions of the same
rule, one definition now serves both, and these tests pin the behaviour that exposed it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import pytest
from claudeops_memory import repository
from claudeops_memory.models import MEMORY_COLUMNS, MemoryRecord
from click.testing import Result

from claudeops import App, ConfigError, NotableEvent, parse_flag, service_name

BUILTINS = ("claudeops.environment", "claudeops.escalation", "claudeops_events", "claudeops_cooldowns",
            "claudeops_memory")


@pytest.fixture
def claudeops_builtins() -> Sequence[str]:
    return BUILTINS


@pytest.fixture
def app(claudeops_app: App) -> App:
    return claudeops_app


# --------------------------------------------------------------------------- service names


def test_a_service_name_longer_than_the_cap_is_refused_for_memories_as_for_events() -> None:
    long_name = "s" * 1000
    with pytest.raises(ValueError, match="at most 100 characters"):
        repository.normalise_service(long_name)
    with pytest.raises(ValueError, match="at most 100 characters"):
        service_name(long_name, dots=True)
    assert repository.normalise_service("s" * 100) == "s" * 100


def test_memory_names_keep_the_spec_grammar_while_events_and_cooldowns_admit_a_dot() -> None:
    with pytest.raises(ValueError, match=r"invalid service name 'jellyfin\.service'"):
        repository.normalise_service("jellyfin.service")
    assert service_name(" 'Jellyfin.Service' ", dots=True) == "jellyfin.service"


def test_the_memory_cli_refuses_a_thousand_character_service(app: App, invoke_cli: Callable[..., Result]) -> None:
    result = invoke_cli("memories", "add", "--category", "timing", "--service", "s" * 1000, "text")
    assert result.exit_code != 0 and "at most 100 characters" in result.output
    assert repository.list_memories() == []


@pytest.mark.parametrize("args", [("events", "list", "--service", "bad svc"),
                                  ("cooldowns", "reset", "bad svc")])
def test_events_and_cooldowns_refuse_a_service_name_as_memories_do(app: App, invoke_cli: Callable[..., Result],
                                                                   args: tuple[str, ...]) -> None:
    result = invoke_cli(*args)
    assert result.exit_code == 2, result.output
    assert "invalid service name 'bad svc'" in result.output


# --------------------------------------------------------------------------- true and false


@pytest.mark.parametrize(("text", "value"), [("yes", True), ("On", True), ("1", True), ("no", False),
                                              ("OFF", False), ("0", False)])
def test_one_set_of_words_means_true_or_false(text: str, value: bool) -> None:
    assert parse_flag(text) is value


def test_a_blank_is_neither_true_nor_false() -> None:
    with pytest.raises(ValueError):
        parse_flag("  ")


def test_an_empty_dry_run_variable_is_an_error_not_a_silent_false(make_claudeops_app: Callable[..., App]) -> None:
    """Before, ``CLAUDEOPS_DRY_RUN=`` (set but empty) switched dry run off without a word."""
    with pytest.raises(ConfigError, match="CLAUDEOPS_DRY_RUN must be true or false, not ''"):
        make_claudeops_app({"CLAUDEOPS_DRY_RUN": ""})


# --------------------------------------------------------------------------- the memories columns


def test_the_memory_record_is_exactly_the_models_columns() -> None:
    assert tuple(field.name for field in dataclasses.fields(MemoryRecord)) == MEMORY_COLUMNS


def test_an_operator_memory_and_a_marker_memory_are_written_by_one_insert(app: App) -> None:
    """``create_memory`` (CLI, dashboard) validates, then uses the markers' insert: same row shape."""
    made = repository.create_memory(category="timing", observation="  Takes 60s\nto  start ", service="Jellyfin",
                                    confidence=0.25, now="2026-01-01T00:00:00Z")
    stored = repository.get_memory(made.id)
    assert stored == made
    assert (made.service, made.observation, made.confidence, made.active) == ("jellyfin", "Takes 60s to start",
                                                                             0.25, False)


# --------------------------------------------------------------------------- list commands


@pytest.mark.parametrize(("args", "nothing"), [(("sessions", "list"), "No sessions match.\n"),
                                                (("events", "list"), "No events match.\n"),
                                                (("memories", "list"), "No memories match.\n")])
def test_every_list_command_says_the_same_thing_when_nothing_matches(app: App, invoke_cli: Callable[..., Result],
                                                                    args: tuple[str, ...], nothing: str) -> None:
    result = invoke_cli(*args)
    assert (result.exit_code, result.output) == (0, nothing)
    assert invoke_cli(*args, "--json").output == "[]\n"


def test_every_list_command_starts_its_table_with_a_header_row(app: App, invoke_cli: Callable[..., Result]) -> None:
    invoke_cli("memories", "add", "--category", "timing", "--service", "jellyfin", "Takes 60s to start")
    app.hook.record_event(event=NotableEvent("warning", "jellyfin slow", "2026-01-01T00:00:00Z", "jellyfin"))
    for args, first in ((("memories", "list"), "ID"), (("events", "list"), "TIME")):
        header = invoke_cli(*args).output.splitlines()[0]
        assert header.split()[0] == first and header == header.upper()
