"""The handlers of ``/metrics`` and ``/api/v1/status``; each opens its own connection in its worker thread."""

from __future__ import annotations

from claudeops_web.context import WebContext
from claudeops_web.rendering import MACHINE_READABLE
from litestar import Response, get
from litestar.di import NamedDependency
from prometheus_client import CollectorRegistry, generate_latest

from claudeops import db, utc_now
from claudeops_metrics.figures import PluginFigures
from claudeops_metrics.status import Status, status_summary

TEXT_FORMAT = "text/plain; version=0.0.4"
"""The Prometheus text format generate_latest writes, which every Prometheus version scrapes."""


@get("/metrics", name="metrics", sync_to_thread=True, include_in_schema=False, opt={MACHINE_READABLE: True})
def metrics(web: NamedDependency[WebContext]) -> Response[bytes]:
    """Every figure in the Prometheus text format, read from the database now."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(PluginFigures(web.config, web.hook))
    with db.connection_context():
        body = generate_latest(registry)
    return Response(body, media_type=TEXT_FORMAT)  # Litestar adds "; charset=utf-8"


@get("/status", sync_to_thread=True, tags=["status"])
def status(web: NamedDependency[WebContext]) -> Status:
    """The last run, its status and age, the services down or degraded, and the items waiting for review."""
    with db.connection_context():
        return status_summary(PluginFigures(web.config, web.hook), utc_now())
