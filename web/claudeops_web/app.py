"""The Litestar application factory: the host's pages plus whatever the plugins registered.

Built per call (never at import), so tests create one app per configuration and
``claudeops run`` never imports the web stack. The caller opens the store first.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

from litestar import Litestar, Router
from litestar.di import Provide
from litestar.exceptions import HTTPException
from litestar.middleware import DefineMiddleware
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import JsonRenderPlugin, YamlRenderPlugin
from litestar.plugins.htmx import HTMXPlugin
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.template import TemplateConfig

from claudeops import App, __version__
from claudeops_web import assets, auth
from claudeops_web.context import WebContext
from claudeops_web.contributions import collect_contributions
from claudeops_web.csrf import CSRFUnlessBearerMiddleware, csrf_config, load_or_create_secret
from claudeops_web.forms import refuse_text_that_is_not_utf8
from claudeops_web.hosts import LoopbackHostMiddleware, MalformedHostGuard
from claudeops_web.openapi import MiddlewareErrorResponses
from claudeops_web.rendering import handle_http_exception, handle_internal_error, handle_undecodable_body
from claudeops_web.service_links import service_ref
from claudeops_web.templating import build_environment
from claudeops_web.throttle import THROTTLE_FILE, LoginThrottle
from claudeops_web.webhooks import WebhookAuthMiddleware

log = logging.getLogger(__name__)

API_PATH = "/api/v1"
SCHEMA_PATH = f"{API_PATH}/schema"


def create_app(app: App, *, debug: bool = False, tasks_lock: Path | None = None) -> Litestar:
    """The dashboard for a loaded :class:`~claudeops.app.App` whose store is open.

    ``tasks_lock``: with several worker processes, the file whose lock the one process running the
    plugins' background tasks holds (:func:`background_tasks`).
    """
    settings = app.config.section("web")
    contributions = collect_contributions(app.pm)
    web = WebContext(app.config, settings, contributions, app.markers, app.hook)
    htmx = assets.locate_htmx(settings)
    environment = build_environment(contributions.template_dirs, {
        "nav": contributions.sorted_nav(),
        "poll_seconds": settings.poll_seconds,
        "htmx_url": assets.HTMX_URL if htmx else None,
        "auth_enabled": web.auth_enabled,
        "version": __version__,
        "service_ref": partial(service_ref, app.config.inventory),
    })
    secret = load_or_create_secret(app.state_dir)
    sessions = auth.LoginSessions(settings.token, secret, settings.port)
    throttle = LoginThrottle(app.state_dir / THROTTLE_FILE)
    html = Router("/", route_handlers=[auth.login_form, auth.login, auth.logout, *contributions.routes],
                  include_in_schema=False,
                  dependencies={"login_sessions": Provide(lambda: sessions, use_cache=True, sync_to_thread=False),
                                "login_throttle": Provide(lambda: throttle, use_cache=True, sync_to_thread=False)})
    json_api = Router(API_PATH, route_handlers=contributions.api_routes)
    dashboard = Litestar(
        route_handlers=[html, json_api, *assets.static_routes(htmx, contributions.static_dirs)],
        plugins=[HTMXPlugin(), MiddlewareErrorResponses(API_PATH, token_required=bool(settings.token))],
        template_config=TemplateConfig(instance=JinjaTemplateEngine.from_environment(environment)),
        middleware=[DefineMiddleware(WebhookAuthMiddleware, paths=contributions.webhooks,
                                     tokens=[settings.alert_token, settings.token], throttle=throttle),
                    *([] if settings.token else [DefineMiddleware(LoopbackHostMiddleware)]),
                    DefineMiddleware(auth.TokenAuthMiddleware, sessions=sessions, throttle=throttle),
                    DefineMiddleware(CSRFUnlessBearerMiddleware, config=csrf_config(secret), token=settings.token)],
        dependencies={"web": Provide(lambda: web, use_cache=True, sync_to_thread=False)},
        exception_handlers=_exception_handlers(),
        before_request=refuse_text_that_is_not_utf8,
        openapi_config=OpenAPIConfig(title="claudeops dashboard API", version=__version__, path=SCHEMA_PATH,
                                     render_plugins=[JsonRenderPlugin(), YamlRenderPlugin()]),
        lifespan=[partial(background_tasks, web, tasks_lock)],
        debug=debug,
    )
    dashboard.asgi_handler = MalformedHostGuard(dashboard.asgi_handler)
    return dashboard


@asynccontextmanager
async def background_tasks(web: WebContext, tasks_lock: Path | None, app: Litestar) -> AsyncIterator[None]:
    """Run every plugin's ``tasks`` while the dashboard serves; cancel them when it stops.

    With ``tasks_lock`` (several worker processes) only the process holding that file's lock runs
    them — an alert queue started twice would start its runs twice; the others wait for the lock
    and take over when its holder ends.
    """
    tasks = web.contributions.tasks
    running: list[asyncio.Future[None]] = (
        [asyncio.ensure_future(_when_locked(tasks_lock, [partial(task, web) for task in tasks]))] if tasks_lock
        else [asyncio.ensure_future(task(web)) for task in tasks])
    try:
        yield
    finally:
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)


TASKS_LOCK_POLL_SECONDS = 1.0
"""How often a worker without the tasks lock asks for it again."""


async def _when_locked(path: Path, tasks: list[Callable[[], Awaitable[None]]]) -> None:
    """Hold ``path``'s lock (asking every :data:`TASKS_LOCK_POLL_SECONDS`), then run ``tasks`` until cancelled;
    the lock goes with the process (the kernel drops it when the file is closed)."""
    with path.open("a") as handle:
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                await asyncio.sleep(TASKS_LOCK_POLL_SECONDS)
        await asyncio.gather(*(_reported(task) for task in tasks))


async def _reported(task: Callable[[], Awaitable[None]]) -> None:
    """Run ``task``, logging its failure when it happens: a failure raised through ``gather`` would free the
    lock while the other tasks run on, and another worker would start them a second time."""
    try:
        await task()
    except Exception as exc:
        log.error("a background task of the dashboard failed: %s: %s", type(exc).__name__, exc)


def _exception_handlers() -> dict[Any, Any]:
    return {HTTPException: handle_http_exception, UnicodeDecodeError: handle_undecodable_body,
            Exception: handle_internal_error}
