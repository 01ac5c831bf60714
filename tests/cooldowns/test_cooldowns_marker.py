"""[COOLDOWN:<restart|redeployment>:<service>] <success|failure> — message markers."""

from __future__ import annotations

import logging
import re

import pytest
from claudeops_cooldowns.marker import ACTION_WORDS, COOLDOWN_PATTERN, PROMPT_SECTION, handle_cooldown
from claudeops_cooldowns.names import service_name
from claudeops_cooldowns.repository import list_actions
from claudeops_cooldowns.settings import CooldownSettings, patterns_from
from claudeops_cooldowns.targets import find_targets

from claudeops.clock import to_timestamp


def stored() -> list[tuple[str, str, bool, str]]:
    return [(action.service, action.action, action.success, action.message) for action in reversed(list_actions())]


def test_a_restart_is_recorded_with_its_session_tier_and_the_time_it_was_seen(app, make_session, feed_text, clock):
    session = make_session(tier=2, clock=clock)
    clock.advance(minutes=3)
    feed_text(session, "Restarted it.\n[COOLDOWN:restart:jellyfin] success — docker restart jellyfin; healthy in 60 s")
    [action] = list_actions()
    assert (action.service, action.action, action.success, action.message, action.tier, action.session_id,
            action.created_at) == ("jellyfin", "restart", True, "docker restart jellyfin; healthy in 60 s", 2,
                                   session.id, to_timestamp(clock()))


@pytest.mark.parametrize("separator", ["—", "--", "-", ":", "–"])
def test_every_separator_is_accepted(app, separator, make_session, feed_text):
    feed_text(make_session(tier=2), f"[COOLDOWN:redeployment:nextcloud] failure {separator} migration failed")
    assert stored() == [("nextcloud", "redeployment", False, "migration failed")]


@pytest.mark.parametrize(("text", "expected"), [
    ("[COOLDOWN:Restart:Jellyfin] SUCCESS — ok", ("jellyfin", "restart", True, "ok")),
    ("[COOLDOWN:RESTART:jellyfin] Failure—still 502", ("jellyfin", "restart", False, "still 502")),
    ("[COOLDOWN:redeploy:nextcloud] succeeded: new image", ("nextcloud", "redeployment", True, "new image")),
    ("[COOLDOWN:restarted:sonarr] failed -- exit 1", ("sonarr", "restart", False, "exit 1")),
    ("[COOLDOWN:restart:jellyfin] success", ("jellyfin", "restart", True, "")),
    ("[COOLDOWN:restart: jellyfin ] success — spaces", ("jellyfin", "restart", True, "spaces")),
])
def test_case_and_common_variants_are_accepted(app, text, expected, make_session, feed_text):
    feed_text(make_session(tier=2), text)
    assert stored() == [expected]


@pytest.mark.parametrize(("service", "stored_as"), [
    ("nextcloud-app", "nextcloud-app"),
    ("jellyfin.service", "jellyfin"),
    ("Jellyfin.Service", "jellyfin"),
    ("'jellyfin'", "jellyfin"),
    ('"jellyfin.service"', "jellyfin"),
    ("media_server.2", "media_server.2"),
    ("s" * 100, "s" * 100),
])
def test_a_service_is_a_name_of_letters_digits_and_dot_dash_underscore(app, service, stored_as, make_session,
                                                                       feed_text):
    feed_text(make_session(tier=2), f"[COOLDOWN:restart:{service}] success — ok")
    assert stored() == [(stored_as, "restart", True, "ok")]


@pytest.mark.parametrize("service", [
    "y" * 5000,
    "s" * 101,
    "nas:jellyfin",
    "home assistant",
    "media/jellyfin",
    "jellyfin;reboot",
    "'jellyfin",
    ".service",
])
def test_a_service_that_is_not_a_bounded_name_is_a_malformed_record(app, caplog, service, make_session, feed_text):
    """A 5,000-character 'service' used to be stored, and flooded `claudeops cooldowns`."""
    session = make_session(tier=2)
    with caplog.at_level(logging.WARNING, logger="claudeops_cooldowns"):
        feed_text(session, f"[COOLDOWN:restart:{service}] success — ok")
    assert list_actions() == []
    [warning] = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    assert "malformed cooldown marker" in warning and "up to 100 letters, digits, '_', '.' or '-'" in warning


def test_several_records_in_one_text_block_are_all_stored_in_order(app, make_session, feed_text):
    feed_text(make_session(tier=2), "[COOLDOWN:restart:jellyfin] failure — no\n"
                                    "[COOLDOWN:restart:jellyfin] success — yes [COOLDOWN:restart:sonarr] success — too")
    assert [(service, success) for service, _, success, _ in stored()] == [("jellyfin", False), ("jellyfin", True),
                                                                          ("sonarr", True)]


@pytest.mark.parametrize("text", [
    "[COOLDOWN] success — no action or service",
    "[COOLDOWN:restart] success — no service",
    "[COOLDOWN:reboot:jellyfin] success — unknown action",
    "[COOLDOWN:restart:jellyfin] done — unknown outcome",
    "[COOLDOWN:restart:jellyfin]",
    "[COOLDOWN:restart:jellyfin success — unclosed",
])
def test_a_malformed_record_logs_a_warning_and_stores_nothing(app, caplog, text, make_session, feed_text):
    with caplog.at_level(logging.WARNING, logger="claudeops_cooldowns"):
        feed_text(make_session(tier=2), f"before\n{text}\nafter")
    assert list_actions() == []
    [warning] = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert "malformed cooldown marker" in warning.getMessage() and text.strip() in warning.getMessage()


def test_a_rejected_record_is_not_counted_as_a_recorded_marker(app, caplog, make_session, feed_text):
    session = make_session(tier=2)
    with caplog.at_level(logging.WARNING, logger="claudeops_cooldowns"):
        feed_text(session, "[COOLDOWN:reboot:jellyfin] success — unknown action\n"
                           "[COOLDOWN:restart:jellyfin] done — unknown outcome\n"
                           "[COOLDOWN:restart:''] success — no name\n"
                           "[COOLDOWN:restart:sonarr] success — a real one")
    assert session.markers_recorded == 1
    assert stored() == [("sonarr", "restart", True, "a real one")]
    assert len([record for record in caplog.records if "malformed cooldown marker" in record.getMessage()]) == 3


@pytest.mark.parametrize(("tier", "dry_run", "why"), [(1, False, "tier 1 is read-only"), (2, True, "dry run"),
                                                      (3, True, "dry run")])
def test_a_record_from_a_session_that_cannot_restart_is_not_counted_and_says_why(app, caplog, tier, dry_run, why,
                                                                                 make_session, feed_text, clock):
    """Tier 1 and dry runs have every restart refused by the runner's read-only gate, so their record
    describes an action that did not happen: counting it would put the service into cooldown for nothing."""
    session = make_session(tier=tier, clock=clock)
    session.dry_run = dry_run
    text = "[COOLDOWN:restart:jellyfin] success — docker restart jellyfin"
    with caplog.at_level(logging.WARNING, logger="claudeops_cooldowns"):
        feed_text(session, f"{text}\n{text}")
    assert list_actions() == []
    warnings = [record.getMessage() for record in caplog.records if record.levelno == logging.WARNING]
    assert len(warnings) == 2
    assert f"cooldown marker not counted ({why}: the runner refuses every restart and redeployment" in warnings[0]
    assert text in warnings[0]
    [marker] = app.markers.parse(text)
    assert handle_cooldown(session, marker) is False  # what keeps it out of the session's markers_recorded
    restart = {"command": "docker restart jellyfin"}
    assert app.hook.check_tool_use(session=make_session(tier=2, clock=clock), tool_name="Bash",
                                   tool_input=restart) is None  # two records, yet no cooldown


def test_a_record_from_a_session_that_can_restart_is_counted(app, make_session):
    session = make_session(tier=2)
    [marker] = app.markers.parse("[COOLDOWN:restart:jellyfin] success — docker restart jellyfin")
    assert handle_cooldown(session, marker) is True
    assert stored() == [("jellyfin", "restart", True, "docker restart jellyfin")]


def prompt_examples() -> list[str]:
    return [line.strip() for line in PROMPT_SECTION.splitlines() if re.match(r"\s+\[COOLDOWN:[a-z]+:[a-z]", line)]


def test_the_examples_in_the_prompt_section_are_valid_markers(app, make_session, feed_text):
    examples = prompt_examples()
    assert len(examples) == 3
    feed_text(make_session(tier=2), "\n".join(examples))
    assert [(service, action, success) for service, action, success, _ in stored()] == [
        ("nextcloud-app", "restart", True), ("caddy", "restart", True), ("nextcloud", "redeployment", False)]


@pytest.mark.parametrize("example", prompt_examples())
def test_each_prompt_example_names_the_service_its_command_acts_on(example):
    """A record under another name than the command's (nextcloud for nextcloud-app) would never be
    checked, so the examples the model copies must name what their commands restart or redeploy."""
    marker = COOLDOWN_PATTERN.match(example)
    assert marker is not None
    command = marker["message"].split(";")[0]
    targets = find_targets(command, patterns_from(CooldownSettings()))
    assert [(target.action, target.service) for target in targets] == [
        (ACTION_WORDS[marker["action"]], service_name(marker["service"]))]
