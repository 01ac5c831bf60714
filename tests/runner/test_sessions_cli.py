"""``claudeops sessions list|show``: what ran, how it ended and why, without the dashboard."""

from __future__ import annotations

import json

from click.testing import CliRunner
from runner_helpers import replay

from claudeops import SessionDetail, hookimpl
from claudeops.cli.group import build_cli
from claudeops.runner.script import script_to_stream


def sessions(app, *args: str):
    return CliRunner().invoke(build_cli(app), ["sessions", *args], catch_exceptions=False)


def two_sessions(app):
    ok = replay(app, script_to_stream(["All healthy."]))[0]
    failed = replay(app, script_to_stream(["API Error: 500"], is_error=True, api_error_status=500))[0]
    return ok, failed


def test_the_list_shows_each_session_newest_first_with_why_it_failed(runner_app):
    ok, failed = two_sessions(runner_app)
    header, *lines = sessions(runner_app, "list").output.splitlines()
    assert header.split() == ["ID", "TIER", "STATUS", "STARTED", "DURATION", "COST", "REASON"]
    assert [line.split()[0] for line in lines] == [f"#{failed.session_id}", f"#{ok.session_id}"]
    assert "failed" in lines[0] and lines[0].endswith("API error status 500")
    assert "completed" in lines[1] and "tier 1" in lines[1]


def test_the_list_filters_by_status_and_says_when_nothing_matches(runner_app):
    ok, _ = two_sessions(runner_app)
    completed = sessions(runner_app, "list", "--status", "completed").output.splitlines()[1:]  # after the header
    assert [line.split()[0] for line in completed] == [f"#{ok.session_id}"]
    assert sessions(runner_app, "list", "--status", "interrupted").output == "No sessions match.\n"
    assert sessions(runner_app, "list", "--status", "done").exit_code == 2


def test_the_list_as_json_has_the_stored_fields(runner_app):
    _, failed = two_sessions(runner_app)
    rows = json.loads(sessions(runner_app, "list", "--json", "--limit", "1").output)
    assert len(rows) == 1 and rows[0]["id"] == failed.session_id
    assert (rows[0]["status"], rows[0]["error"], rows[0]["tier"]) == ("failed", "API error status 500", 1)
    assert rows[0]["transcript_path"] == failed.transcript_path


def test_show_prints_one_session_with_its_transcript_and_final_text(runner_app):
    ok, _ = two_sessions(runner_app)
    output = sessions(runner_app, "show", str(ok.session_id)).output
    assert f"transcript_path    {ok.transcript_path}\n" in output
    assert "status             completed\n" in output and output.endswith("\nAll healthy.\n")
    assert json.loads(sessions(runner_app, "show", str(ok.session_id), "--json").output)["result"] == "All healthy."


def test_show_of_an_unknown_session_is_a_one_line_error(runner_app):
    result = CliRunner().invoke(build_cli(runner_app), ["sessions", "show", "99"])
    assert (result.exit_code, result.output) == (2, "Error: there is no session #99\n")


class TicketDetails:
    """A plugin that tells ``sessions show`` about a session, one sync and one async answer."""

    @hookimpl
    def describe_session(self, session_id: int) -> SessionDetail:
        return SessionDetail("tickets", "Tickets", (f"opened #7 for session {session_id}",), {"opened": [7]})


class SlowDetails:
    @hookimpl
    async def describe_session(self) -> SessionDetail:
        return SessionDetail("slow", "Slow", ("answered late",), None)


def test_show_prints_what_plugins_recorded_about_the_session(runner_app):
    ok, _ = two_sessions(runner_app)
    runner_app.pm.register(TicketDetails(), name="ticket-details")
    runner_app.pm.register(SlowDetails(), name="slow-details")

    output = sessions(runner_app, "show", str(ok.session_id)).output
    shown = json.loads(sessions(runner_app, "show", str(ok.session_id), "--json").output)

    assert f"\nTickets\n  opened #7 for session {ok.session_id}\n" in output
    assert "\nSlow\n  answered late\n" in output and output.endswith("\nAll healthy.\n")
    assert shown["details"]["tickets"] == {"opened": [7]} and shown["details"]["slow"] is None
