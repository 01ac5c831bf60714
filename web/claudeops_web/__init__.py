"""The dashboard host plugin: ``claudeops web``, the layout, navigation and the sessions pages.

Feature pages (events, memories, cooldowns, or a third party's) are not here: each plugin
contributes its own routes, templates, navigation entries and overview cards through the
``register_web`` hook. Importing this package stays cheap (no Litestar) because every
``claudeops`` process loads it; the web stack is imported when the dashboard is built.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from claudeops import hookimpl
from claudeops_web.contributions import NavEntry, OverviewCard, SessionPanel
from claudeops_web.settings import WebSettings

__all__ = ["NavEntry", "OverviewCard", "SessionPanel", "WebSettings", "create_app"]

TEMPLATES = Path(__file__).parent / "templates"


def create_app(app: Any, *, debug: bool = False) -> Any:
    """Build the Litestar dashboard for a loaded App (see :func:`claudeops_web.app.create_app`)."""
    from claudeops_web.app import create_app as build

    return build(app, debug=debug)


@hookimpl
def register_settings(register: Callable[[str, type], None]) -> None:
    register("web", WebSettings)


@hookimpl
def register_commands(cli: click.Group) -> None:
    from claudeops_web.server import web_command

    cli.add_command(web_command)


@hookimpl
def register_web(register: Callable[..., None]) -> None:
    """The host's own pages go through the same hook as every plugin's."""
    from claudeops_web import api, manifest, pages, runs

    register(routes=[pages.overview, pages.sessions_list, pages.session_detail, pages.session_transcript,
                     runs.run_now, runs.stop_form, manifest.web_manifest],
             api_routes=[api.list_sessions, api.get_session, runs.create_run, runs.stop_api],
             nav=[NavEntry("Overview", "/", 0), NavEntry("Sessions", "/sessions", 10)],
             overview_cards=[pages.sessions_card(), pages.last_runs_card()])
