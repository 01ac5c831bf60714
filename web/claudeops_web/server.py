"""``claudeops web``: check the binding is safe, migrate the store, serve the dashboard with uvicorn."""

from __future__ import annotations

import errno
import socket

import click

from claudeops import App, UsageProblem, close_store, fail, open_store_or_fail, pass_app
from claudeops_web.settings import WebSettings, binding_problem


@click.command("web")
@click.option("--host", metavar="ADDRESS", help="Address to bind (default: web.host, 127.0.0.1). "
              "Anything but loopback requires web.token / CLAUDEOPS_WEB_TOKEN.")
@click.option("--port", type=click.IntRange(1, 65535), metavar="PORT", help="TCP port (default: web.port, 8080).")
@pass_app
def web_command(app: App, host: str | None, port: int | None) -> None:
    """Serve the dashboard: sessions, events, memories and cooldowns, live."""
    app.config.override("web.host", host)
    app.config.override("web.port", port)
    settings: WebSettings = app.config.section("web")
    problem = binding_problem(settings)
    if problem:
        raise UsageProblem(problem)
    if (busy := _port_in_use(settings.host, settings.port)) is not None:
        fail(busy)
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
    # uvicorn's proxy_headers would take X-Forwarded-For from 127.0.0.1 as the client's address: any local
    # process could reset its count of failed logins with every request, so only a configured proxy is trusted
    uvicorn.run(create_app(app), host=settings.host, port=settings.port, access_log=False,
                log_level=app.config.core.log_level, lifespan="on", proxy_headers=settings.trust_proxy_headers)


def _port_in_use(host: str, port: int) -> str | None:
    """Why the dashboard cannot listen on ``host:port`` (the port is taken), or ``None``.

    Asked before anything is printed, so a port in use is one line and exit 1 rather than the
    "dashboard on …" banner followed by uvicorn's own error and its exit status 3.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds: TIME_WAIT is no obstacle
        try:
            probe.bind((host.strip("[]"), port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return f"port {port} on {host} is already in use; stop what listens there or pass --port"
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    return None


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host
