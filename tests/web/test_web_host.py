"""The dashboard host: layout and navigation, HTMX partials, sessions pages, transcripts, auth, start-up."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from litestar import get
from litestar.response import Template
from web_helpers import HX, TOKEN, arm_csrf

from claudeops import PluginError, hookimpl
from claudeops.app import App
from claudeops.cli.group import build_cli
from claudeops.session_rows import SessionRow, start_session_row
from claudeops.store import db

RECORDED = Path(__file__).resolve().parents[1] / "data" / "recorded-cli-session-bash.jsonl"
"""stdout of the real Claude Code CLI for one session (see shared data README): a malformed and a
valid memory marker, a Bash call and its result."""


def session(tier: int = 1, status: str = "completed", parent: int | None = None, **fields) -> SessionRow:
    with db.connection_context():
        row = start_session_row(tier, fields.pop("model", "haiku"), "scheduled", parent, fields.pop(
            "started_at", "2026-11-21T10:00:00Z"))
        SessionRow.update(status=status, **fields).where(SessionRow.id == row.id).execute()
        return SessionRow.get_by_id(row.id)


# --------------------------------------------------------------------------- layout


def test_sidebar_lists_pages_in_order(client):
    html = client.get("/").text
    labels = re.findall(r'<li><a href="[^"]+"(?: aria-current="page")?>([^<]+)</a></li>', html)
    assert labels == ["Overview", "Services", "Sessions", "Events", "Alerts", "Memories", "Review", "Cooldowns",
                      "Notifications"]


def test_pages_render_without_javascript(client):
    for path in ("/", "/sessions", "/events", "/memories", "/review", "/memories/changes", "/cooldowns",
                 "/notifications"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.text.startswith("<!doctype html>")
        assert response.headers["vary"] == "HX-Request"


def test_pages_load_htmx_from_our_own_static_route(client):
    html = client.get("/").text
    assert '<script src="/static/vendor/htmx.min.js" defer></script>' in html
    assert "unpkg" not in html and "cdn" not in html.lower()
    htmx = client.get("/static/vendor/htmx.min.js")
    assert htmx.status_code == 200 and 'version:"2.' in htmx.text
    assert client.get("/static/app/app.css").status_code == 200


def test_pages_send_the_csrf_token_with_every_htmx_request(client):
    html = client.get("/").text
    assert f'hx-headers=\'{{"x-csrftoken": "{client.cookies["csrftoken"]}"}}\'' in html


def test_without_htmx_installed_pages_say_they_are_read_only(make_dashboard, tmp_path):
    _, client = make_dashboard({"CLAUDEOPS_HTMX_PATH": str(tmp_path / "missing.js")})
    html = client.get("/memories").text
    assert "htmx.min.js" not in html and "pages are read-only" in html
    assert client.get("/static/vendor/htmx.min.js").status_code == 404


def test_overview_shows_a_card_per_plugin_and_refreshes(client):
    session(status="completed", cost_usd=0.012, started_at=_recent())
    session(status="failed", started_at=_recent())
    html = client.get("/").text
    for title in ("Sessions", "Events", "Memories", "Cooldowns"):
        assert f'<a href="/{title.lower()}">{title}</a>' in html
    assert 'hx-trigger="every 5s"' in html
    assert "$0.0120" in html
    fragment = client.get("/", headers=HX).text
    assert fragment.startswith('<div id="overview-cards"')


def test_the_overview_counts_the_cost_of_the_last_24_h_by_the_one_cost_rule(client):
    session(status="completed", cost_usd=0.0126, started_at=_recent(), replayed=True)
    session(status="completed", cost_usd=0.0021, started_at=_recent())
    html = client.get("/").text
    assert "spent in the last 24 h: <strong>$0.0021</strong>" in html
    assert "Cost: <strong>$0.0021</strong>" in html
    assert "$0.0126" not in html and "$0.0147" not in html


def _recent() -> str:
    from claudeops.clock import now_timestamp

    return now_timestamp()


def test_a_third_party_plugin_adds_a_page(make_dashboard, tmp_path):
    templates = tmp_path / "ticket-templates"
    (templates / "tickets").mkdir(parents=True)
    (templates / "tickets" / "page.html").write_text(
        '{% extends "base.html" %}{% block content %}<h1>Tickets</h1><p>{{ note }}</p>{% endblock %}')

    @get("/tickets", sync_to_thread=False)
    def tickets_page() -> Template:
        return Template("tickets/page.html", context={"note": "<filed by the agent>"})

    class TicketPlugin:
        @hookimpl
        def register_web(self, register):
            from claudeops_web import NavEntry

            register(routes=[tickets_page], nav=[NavEntry("Tickets", "/tickets", 35)], template_dir=templates)

    _, client = make_dashboard(extra_plugins=(TicketPlugin(),))
    html = client.get("/tickets").text
    assert "<h1>Tickets</h1>" in html and "&lt;filed by the agent&gt;" in html
    labels = re.findall(r'<li><a href="[^"]+"(?: aria-current="page")?>([^<]+)</a></li>', html)
    assert labels == ["Overview", "Services", "Sessions", "Events", "Alerts", "Memories", "Review", "Tickets",
                      "Cooldowns", "Notifications"]


# --------------------------------------------------------------------------- sessions


def test_sessions_list_shows_columns_and_escalation_chain(client):
    first = session(tier=1, status="escalated", cost_usd=0.01, duration_ms=65_000)
    second = session(tier=2, status="completed", parent=first.id, model="sonnet", cost_usd=0.2)
    html = client.get("/sessions").text
    for heading in ("Tier", "Model", "Status", "Trigger", "Started", "Duration", "Cost", "Escalation"):
        assert f"<th>{heading}</th>" in html or f'<th class="num">{heading}</th>' in html
    assert "1m 05s" in html and "$0.2000" in html and "sonnet" in html
    assert f'<a href="/sessions/{first.id}">T1 #{first.id}</a> → <strong>T2 #{second.id}</strong>' in html
    assert 'hx-trigger="every 5s"' in html


def test_sessions_list_filters_by_status(client):
    session(status="failed")
    kept = session(status="completed")
    html = client.get("/sessions?status=completed", headers=HX).text
    assert re.findall(r'<a href="/sessions/(\d+)">#', html) == [str(kept.id)]
    assert 'hx-get="/sessions?status=completed"' in html
    assert client.get("/sessions?status=bogus").status_code == 400


def test_session_detail_renders_the_transcript_readably(client, tmp_path):
    transcript = tmp_path / "t.jsonl"
    shutil.copy(RECORDED, transcript)
    row = session(status="completed", transcript_path=str(transcript), num_turns=3, result="All fine",
                  duration_ms=65_000, duration_api_ms=41_000, runner="nas:/var/lib/claudeops")
    html = client.get(f"/sessions/{row.id}").text
    assert "<small>(41s model API)</small>" in html
    assert "<dt>Runner</dt><dd>nas:/var/lib/claudeops</dd>" in html
    assert '<mark class="marker marker-malformed"' in html        # the marker with an unknown category
    assert '<mark class="marker marker-memory"' in html           # the valid one
    assert re.search(r'<details class="turn tool-use"><summary><span class="kind">tool call</span> Bash: ', html)
    assert re.search(r'<details class="turn tool-result"><summary><span class="kind">tool result</span>', html)
    assert "session ended: success" in html
    assert "transcript-tail" not in html  # finished: nothing left to poll


def test_running_session_polls_for_new_transcript_lines(client, tmp_path):
    transcript = tmp_path / "t.jsonl"
    lines = RECORDED.read_text().splitlines(keepends=True)
    transcript.write_text("".join(lines[:3]) + lines[3][:20])  # the fourth line is still being written
    row = session(status="running", transcript_path=str(transcript))
    html = client.get(f"/sessions/{row.id}").text
    offset = len("".join(lines[:3]).encode())
    assert f'hx-get="/sessions/{row.id}/transcript?offset={offset}" hx-trigger="every 1s"' in html
    assert f'hx-get="/sessions/{row.id}" hx-trigger="every 5s"' in html
    transcript.write_text("".join(lines))
    tail = client.get(f"/sessions/{row.id}/transcript?offset={offset}", headers=HX).text
    assert "tool call" in tail and "<html" not in tail
    assert "session running" in tail


@pytest.mark.parametrize("headers", [{**HX, "HX-Boosted": "true"}, {**HX, "HX-History-Restore-Request": "true"}])
def test_a_boosted_link_or_a_history_restore_gets_the_whole_session_page(client, tmp_path, headers):
    transcript = tmp_path / "t.jsonl"
    shutil.copy(RECORDED, transcript)
    row = session(status="completed", transcript_path=str(transcript))
    response = client.get(f"/sessions/{row.id}", headers=headers)
    assert response.status_code == 200 and "<html" in response.text and "tool call" in response.text


@pytest.mark.parametrize("path", ["/sessions", "/memories", "/cooldowns"])
def test_a_bad_page_number_names_the_url_parameter(client, path):
    """The message names ``page``, what the user typed, not the handler's Python argument."""
    for headers in ({}, HX):
        response = client.get(f"{path}?page=0", headers=headers)
        assert response.status_code == 400 and "(page: Expected `int` &gt;= 1)" in response.text
        assert "page_number" not in response.text


def test_session_detail_of_unknown_session_is_a_404(client):
    response = client.get("/sessions/4242")
    assert response.status_code == 404 and "there is no session #4242" in response.text


def test_session_without_transcript_says_so(client):
    row = session(status="failed", error="the CLI exited with status 1")
    html = client.get(f"/sessions/{row.id}").text
    assert "No transcript was recorded" in html and "the CLI exited with status 1" in html


# --------------------------------------------------------------------------- token auth


def test_token_protects_pages_and_api(make_dashboard):
    _, client = make_dashboard({"CLAUDEOPS_WEB_TOKEN": TOKEN}, csrf=False)
    page = client.get("/memories?service=x", follow_redirects=False)
    assert page.status_code == 303
    assert page.headers["location"] == "/login?next=%2Fmemories%3Fservice%3Dx"
    api = client.get("/api/v1/memories")
    assert api.status_code == 401 and "access token" in api.json()["detail"]
    assert client.get("/", headers=HX).headers["HX-Redirect"].startswith("/login")
    assert client.get("/api/v1/memories", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200
    assert client.get("/static/app/app.css").status_code == 200


def test_without_a_token_a_rebound_host_name_is_refused(make_dashboard):
    """DNS rebinding: a site whose name now resolves to 127.0.0.1 must not read the CSRF cookie or write."""
    _, client = make_dashboard(csrf=False)
    foreign = {"Host": "attacker.example:8765", "Origin": "http://attacker.example:8765"}
    page = client.get("/memories", headers=foreign)
    assert page.status_code == 400 and "answers only to localhost, 127.0.0.1 or [::1]" in page.text
    assert "csrftoken" not in page.cookies
    arm_csrf(client)  # even with a valid cookie and header, a write under a foreign name is refused
    write = client.post("/api/v1/memories", json={"category": "timing", "observation": "obey me"}, headers=foreign)
    assert write.status_code == 400 and "attacker.example:8765" in write.json()["detail"]
    assert client.get("/api/v1/memories").json()["total"] == 0
    for host in ("localhost:8765", "LOCALHOST", "127.0.0.1:8765", "[::1]:8765", "[::1]"):
        assert client.get("/api/v1/memories", headers={"Host": host}).status_code == 200, host


def test_with_a_token_any_host_name_may_reach_the_dashboard(make_dashboard):
    """Behind a reverse proxy the dashboard has its own name; the token is the protection then."""
    _, client = make_dashboard({"CLAUDEOPS_WEB_TOKEN": TOKEN}, csrf=False)
    bearer = {"Authorization": f"Bearer {TOKEN}", "Host": "dashboard.example"}
    assert client.get("/api/v1/memories", headers=bearer).status_code == 200
    assert client.get("/api/v1/memories", headers={"Host": "dashboard.example"}).status_code == 401


def test_login_form_sets_a_session_cookie(make_dashboard):
    _, client = make_dashboard({"CLAUDEOPS_WEB_TOKEN": TOKEN}, csrf=False)
    client.get("/login")
    csrf = client.cookies["csrftoken"]
    wrong = client.post("/login", data={"token": "nope", "next": "/memories", "_csrf_token": csrf})
    assert wrong.status_code == 401 and "not the dashboard" in wrong.text
    right = client.post("/login", data={"token": TOKEN, "next": "/memories", "_csrf_token": csrf},
                        follow_redirects=False)
    assert right.status_code == 303 and right.headers["location"] == "/memories"
    assert TOKEN not in right.headers["set-cookie"]
    assert client.get("/memories").status_code == 200
    assert "Log out" in client.get("/").text


def test_login_never_redirects_off_site(make_dashboard):
    _, client = make_dashboard({"CLAUDEOPS_WEB_TOKEN": TOKEN}, csrf=False)
    client.get("/login")
    response = client.post("/login", data={"token": TOKEN, "next": "//evil.example/x",
                                           "_csrf_token": client.cookies["csrftoken"]}, follow_redirects=False)
    assert response.headers["location"] == "/"


def test_csrf_cookie_stays_valid_after_a_restart(make_dashboard):
    """The signing secret is kept in the state dir (mode 0600), so open pages keep working."""
    app, first = make_dashboard()
    cookie = first.cookies["csrftoken"]
    assert oct((app.state_dir / "web-csrf-secret").stat().st_mode & 0o777) == "0o600"
    _, second = make_dashboard(csrf=False)  # a new app of the same state dir: the dashboard restarted
    second.cookies.set("csrftoken", cookie)
    response = second.post("/memories", data={"category": "timing", "observation": "x"},
                           headers={"x-csrftoken": cookie, **HX})
    assert response.status_code == 201


# --------------------------------------------------------------------------- claudeops web


def run_web(*args: str, env: dict[str, str] | None = None) -> object:
    app = App.load(None, env or {}, entry_points=False)
    return CliRunner().invoke(build_cli(app), ["web", *args])


def test_web_refuses_a_public_address_without_a_token():
    result = run_web("--host", "0.0.0.0")
    assert result.exit_code != 0
    assert "refusing to serve the dashboard on 0.0.0.0 without a token" in result.output


def test_web_refuses_a_short_token():
    result = run_web("--host", "0.0.0.0", env={"CLAUDEOPS_WEB_TOKEN": "short"})
    assert result.exit_code != 0 and "web.token is too short" in result.output


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
def test_loopback_addresses_need_no_token(host):
    from claudeops_web.settings import WebSettings, binding_problem

    assert binding_problem(WebSettings(host=host)) is None


def test_web_command_is_listed_with_its_options():
    result = run_web("--help")
    assert result.exit_code == 0 and "--host" in result.output and "--port" in result.output


def test_sessions_api_and_openapi_schema(client):
    row = session(status="completed", cost_usd=0.5)
    body = client.get("/api/v1/sessions").json()
    assert body["total"] == 1 and body["items"][0]["id"] == row.id and body["items"][0]["cost_usd"] == 0.5
    assert client.get("/api/v1/sessions/999").json() == {"status_code": 404, "detail": "there is no session #999"}
    schema = json.loads(client.get("/api/v1/schema/openapi.json").text)
    paths = set(schema["paths"])
    assert {"/api/v1/sessions", "/api/v1/memories", "/api/v1/events", "/api/v1/cooldowns"} <= paths
    assert not any(path.startswith(("/memories", "/sessions", "/login")) for path in paths)


def operations(client) -> dict[tuple[str, str], dict]:
    """(method, path) → the OpenAPI operation, from the schema the dashboard serves."""
    schema = client.get("/api/v1/schema/openapi.json").json()
    return {(method.upper(), path): operation for path, item in schema["paths"].items()
            for method, operation in item.items() if method in {"get", "post", "put", "patch", "delete"}}


def test_openapi_schema_lists_the_errors_the_api_returns(make_dashboard):
    """404 for an unknown id, 403 for a failed CSRF check on writes, 401 without the token (when one is set)."""
    _, client = make_dashboard({"CLAUDEOPS_WEB_TOKEN": TOKEN}, csrf=False)
    client.headers["Authorization"] = f"Bearer {TOKEN}"
    found = operations(client)
    for key in [("GET", "/api/v1/memories/{memory_id}"), ("PATCH", "/api/v1/memories/{memory_id}"),
                ("DELETE", "/api/v1/memories/{memory_id}"), ("GET", "/api/v1/sessions/{session_id}")]:
        assert "404" in found[key]["responses"], key
    for (method, path), operation in found.items():
        assert "401" in operation["responses"], (method, path)
        assert ("403" in operation["responses"]) == (method != "GET"), (method, path)
    error = found[("POST", "/api/v1/memories")]["responses"]["403"]["content"]["application/json"]["schema"]
    assert error == {"$ref": "#/components/schemas/ApiError"}


def test_without_a_token_the_schema_promises_no_401(client):
    assert not any("401" in operation["responses"] for operation in operations(client).values())


def test_an_unexpected_error_is_one_line_never_a_traceback(make_dashboard):
    @get("/broken", sync_to_thread=False)
    def broken() -> str:
        raise RuntimeError("secret internals")

    class BrokenPlugin:
        @hookimpl
        def register_web(self, register):
            register(routes=[broken], api_routes=[broken])

    _, client = make_dashboard(extra_plugins=(BrokenPlugin(),))
    page = client.get("/broken")
    assert page.status_code == 500 and "internal error (RuntimeError); see the server log" in page.text
    assert "secret internals" not in page.text and "Traceback" not in page.text
    assert client.get("/api/v1/broken").json() == {
        "status_code": 500, "detail": "internal error (RuntimeError); see the server log"}


@pytest.mark.parametrize("path", ["/sessions/99999999999999999999", "/sessions/99999999999999999999/transcript",
                                  "/api/v1/sessions/99999999999999999999"])
def test_a_session_id_beyond_64_bits_is_an_unknown_session_not_a_500(client, path):
    assert client.get(path).status_code == 404


def test_a_plugin_failing_in_register_web_is_named_in_one_line(make_dashboard):
    class Raising:
        @hookimpl
        def register_web(self, register):
            raise RuntimeError("no templates")

    with pytest.raises(PluginError) as error:
        make_dashboard(extra_plugins=(Raising(),))
    assert str(error.value).endswith("failed in hook register_web: RuntimeError: no templates")
    assert str(error.value).startswith("plugin '")
