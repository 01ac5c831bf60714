"""Static files: our CSS, each plugin's ``static_dir``, and htmx from the npm package.

htmx is never copied into the repository: ``npm ci --prefix web`` installs the version pinned in
``web/package-lock.json`` and it is served from there (or from ``web.htmx_path`` /
``CLAUDEOPS_HTMX_PATH`` for installs without the source checkout). Without it the pages still
render for reading; only live updates and editing need it.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from litestar import Router, get
from litestar.response import File
from litestar.static_files import create_static_files_router

from claudeops_web.settings import WebSettings

log = logging.getLogger(__name__)

HOST_STATIC = Path(__file__).parent / "static"
CHECKOUT_HTMX = Path(__file__).resolve().parent.parent / "node_modules" / "htmx.org" / "dist" / "htmx.min.js"
HTMX_URL = "/static/vendor/htmx.min.js"
CACHE_SECONDS = 3600


def locate_htmx(settings: WebSettings) -> Path | None:
    """The htmx file to serve, or None (with the reason logged) when it is not installed."""
    if settings.htmx_path:
        configured = Path(settings.htmx_path).expanduser()
        if configured.is_file():
            return configured
        log.warning("web.htmx_path (CLAUDEOPS_HTMX_PATH) points at %s, which does not exist", configured)
        return None
    if CHECKOUT_HTMX.is_file():
        return CHECKOUT_HTMX
    return None


HTMX_MISSING = ("htmx is not installed, so dashboard pages are read-only (no live updates, no editing): "
                "run `npm ci --prefix web` in the source checkout, or set CLAUDEOPS_HTMX_PATH to htmx.min.js 2.x")


def static_routes(htmx: Path | None, plugin_dirs: dict[str, Path]) -> list[Any]:
    """Routers for ``/static`` (host), ``/static/plugins/<plugin>`` and, if installed, htmx."""
    routes: list[Any] = [
        create_static_files_router(path="/static/app", directories=[HOST_STATIC], name="static",
                                   include_in_schema=False),
    ]
    routes.extend(
        create_static_files_router(path=f"/static/plugins/{plugin}", directories=[directory],
                                   name=f"static-{plugin}", include_in_schema=False)
        for plugin, directory in sorted(plugin_dirs.items()))
    if htmx is not None:
        routes.append(_htmx_router(htmx))
    return routes


def _htmx_router(htmx: Path) -> Router:
    @get(HTMX_URL, sync_to_thread=False, include_in_schema=False, cache_control=None)
    def serve_htmx() -> File:
        return File(htmx, media_type="text/javascript", headers={"Cache-Control": f"public, max-age={CACHE_SECONDS}"})

    return Router("/", route_handlers=[serve_htmx], include_in_schema=False)
