"""The ticket plugin, tested with the fixtures claudeops ships for plugin authors."""

from claudeops_ticket import Ticket


def test_ticket_marker_is_stored_with_its_session(claudeops_app, make_session):
    session = make_session(tier=1)
    for candidate in claudeops_app.markers.candidates("Disk check done.\n[TICKET:nas] Replace /dev/sdb soon"):
        candidate.marker_type.handler(session, candidate.parse())
    ticket = Ticket.get()
    assert (ticket.service, ticket.text, ticket.session_id) == ("nas", "Replace /dev/sdb soon", session.id)


def test_ticket_in_assistant_text_of_a_scripted_session_is_stored(run_scripted_session):
    outcome = run_scripted_session(["All good. [TICKET:ups] Battery is 4 years old; order a new one"])
    assert outcome.status == "completed"
    assert [ticket.service for ticket in Ticket.select()] == ["ups"]


def test_ticket_prompt_section_is_registered(claudeops_app):
    names = [marker_type.name for marker_type in claudeops_app.markers.types]
    assert "TICKET" in names
