"""``claudeops web``: check the binding is safe, migrate the store, serve the dashboard with uvicorn.

With ``web.workers`` above one, uvicorn spawns that many processes on one listening socket;
each rebuilds the application from the same configuration (:func:`worker_app`). What guards a
promise is shared between them through files of the state dir: the count of failed logins
(``web-throttle.db``), the login and CSRF secret (``web-csrf-secret``); the database is the same;
one process at a time runs the plugins' background tasks (``web-tasks.lock``).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from claudeops import App, UsageProblem, apply_log_options, close_store, fail, open_store_or_fail, pass_app
from claudeops_web.settings import WebSettings, binding_problem, worker_count

if TYPE_CHECKING:  # the web stack is imported when the dashboard starts, never by other commands
    from litestar import Litestar

WORKER_ENVIRONMENT = "CLAUDEOPS_DASHBOARD_WORKER"
"""How a worker process learns the configuration its parent serves (JSON: the config file and the overrides)."""
TASKS_LOCK = "web-tasks.lock"
"""The file whose lock the one worker running the background tasks holds."""
OVERRIDDEN = ("state_dir", "database_url", "log_level", "log_format", "web.host", "web.port", "web.workers")
"""Settings a command-line option may have set in the parent; each worker is given the parent's values."""


@click.command("web")
@click.option("--host", metavar="ADDRESS", help="Address to bind (default: web.host, 127.0.0.1). "
              "Anything but loopback requires web.token / CLAUDEOPS_WEB_TOKEN.")
@click.option("--port", type=click.IntRange(1, 65535), metavar="PORT", help="TCP port (default: web.port, 8080).")
@click.option("--workers", type=int, metavar="N", help="Processes serving the dashboard (default: web.workers; "
              "0: one per CPU core).")
@pass_app
def web_command(app: App, host: str | None, port: int | None, workers: int | None) -> None:
    """Serve the dashboard: sessions, events, memories and cooldowns, live."""
    app.config.override("web.host", host)
    app.config.override("web.port", port)
    app.config.override("web.workers", workers)
    settings: WebSettings = app.config.section("web")
    problem = binding_problem(settings)
    if problem:
        raise UsageProblem(problem)
    if (busy := _port_in_use(settings.host, settings.port)) is not None:
        fail(busy)
    open_store_or_fail(app)
    close_store()

    import uvicorn

    from claudeops_web.assets import HTMX_MISSING, locate_htmx
    from claudeops_web.csrf import load_or_create_secret
    from claudeops_web.throttle import THROTTLE_FILE, LoginThrottle

    if locate_htmx(settings) is None:
        click.echo(f"warning: {HTMX_MISSING}", err=True)
    processes = worker_count(settings)
    LoginThrottle(app.state_dir / THROTTLE_FILE).forget_all()  # a restart forgets failed logins, as it always did
    load_or_create_secret(app.state_dir)  # made here once, never by two workers at the same moment
    auth = "token required" if settings.token else "no token (loopback only)"
    click.echo(f"claudeops dashboard on http://{_url_host(settings.host)}:{settings.port}/ ({auth}, "
               f"{processes} worker{'s' if processes > 1 else ''}); Ctrl-C stops it", err=True)
    # uvicorn's proxy_headers would take X-Forwarded-For from 127.0.0.1 as the client's address: any local
    # process could reset its count of failed logins with every request, so only a configured proxy is trusted
    options: dict[str, Any] = {"host": settings.host, "port": settings.port, "access_log": False, "lifespan": "on",
                               "log_level": app.config.core.log_level,
                               "proxy_headers": settings.trust_proxy_headers}
    if processes == 1:
        uvicorn.run(_dashboard(app, tasks_lock=None), **options)
        return
    os.environ[WORKER_ENVIRONMENT] = json.dumps({
        "config": str(app.config.raw.path) if app.config.raw.path else None,
        "overrides": _flags(app)}, default=str)
    _serve_with_workers(processes, options)


def _serve_with_workers(processes: int, options: dict[str, Any]) -> None:
    """``uvicorn.run(..., workers=processes)``, on a listening socket Python knows is TCP.

    uvicorn binds it with protocol 0, so asyncio does not set ``TCP_NODELAY`` on the connections the
    workers accept, and a response written in two parts (headers, then a JSON body) waits for the
    client's delayed ACK: 40 ms a request (measured: 22 requests/s instead of 2,000).
    """
    from uvicorn import Config
    from uvicorn.supervisors import Multiprocess

    config = Config("claudeops_web.server:worker_app", factory=True, workers=processes, **options)
    bound = config.bind_socket()
    listening = socket.socket(bound.family, bound.type, socket.IPPROTO_TCP, fileno=bound.detach())
    listening.set_inheritable(True)
    with contextlib.suppress(KeyboardInterrupt):
        Multiprocess(config, sockets=[listening]).run()


def worker_app() -> Litestar:
    """The dashboard of one of several worker processes (uvicorn calls this in each process it spawns).

    The parent checked the settings and migrated the store; the worker loads the same configuration,
    with the parent's command-line options, and serves.
    """
    described = json.loads(os.environ[WORKER_ENVIRONMENT])
    app = App.load(described["config"])
    for key, value in described["overrides"].items():
        app.config.override(key, value)
    apply_log_options(app, None, None)
    return _dashboard(app, tasks_lock=app.state_dir / TASKS_LOCK)


def _flags(app: App) -> dict[str, Any]:
    """The settings of :data:`OVERRIDDEN` a command-line option set, with their values."""
    flags = {}
    for dotted in OVERRIDDEN:
        if app.config.sources.get(dotted) == "flag":
            section, _, key = dotted.rpartition(".")
            flags[dotted] = getattr(app.config.sections[section], key)
    return flags


def _dashboard(app: App, tasks_lock: Path | None) -> Litestar:
    """The application over a store each worker thread keeps its own connection to."""
    from claudeops_web.app import create_app

    open_store_or_fail(app, migrate=False, connection_per_thread=True)
    close_store()  # handlers open their thread's connection when they need it
    return create_app(app, tasks_lock=tasks_lock)


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
