"""``claudeops web``: check the binding is safe, migrate the store, serve the dashboard with uvicorn."""

from __future__ import annotations

import click

from claudeops import EXIT_USAGE, App, close_store, fail, open_store_or_fail, pass_app
from claudeops_web.settings import WebSettings, binding_problem


@click.command("web")
@click.option("--host", metavar="ADDRESS", help="Address to bind (default: web.host, 127.0.0.1). "
              "Anything but loopback requires web.token / CLAUDEOPS_WEB_TOKEN.")
@click.option("--port", type=int, metavar="PORT", help="TCP port (default: web.port, 8080).")
@pass_app
def web_command(app: App, host: str | None, port: int | None) -> None:
    """Serve the dashboard: sessions, events, memories and cooldowns, live."""
    app.config.override("web.host", host)
    app.config.override("web.port", port)
    settings: WebSettings = app.config.section("web")
    problem = binding_problem(settings)
    if problem:
        fail(problem, EXIT_USAGE)  # a setting to correct, like every configuration error
    open_store_or_fail(app)
    close_store()  # handlers open their own connection in their worker thread

    import uvicorn

    from claudeops_web.app import create_app
    from claudeops_web.assets import HTMX_MISSING, locate_htmx

    if locate_htmx(settings) is None:
        click.echo(f"warning: {HTMX_MISSING}", err=True)
    auth = "token required" if settings.token else "no token (loopback only)"
    click.echo(f"claudeops dashboard on http://{_url_host(settings.host)}:{settings.port}/ ({auth}); Ctrl-C stops it",
               err=True)
    uvicorn.run(create_app(app), host=settings.host, port=settings.port, access_log=False,
                log_level=app.config.core.log_level, lifespan="on")


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
