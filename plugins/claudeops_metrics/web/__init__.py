"""``/metrics`` (Prometheus text format) and ``GET /api/v1/status`` on the dashboard.

Both sit behind the dashboard's authentication: with ``web.token`` set they need it (Prometheus
sends it as ``authorization: credentials``, homepage as a header). Only the hook lives here;
prometheus_client and Litestar are imported when the dashboard is built.
"""

from __future__ import annotations

from collections.abc import Callable

from claudeops import hookimpl


@hookimpl
def register_web(register: Callable[..., None]) -> None:
    from claudeops_metrics.web import routes

    register(routes=[routes.metrics], api_routes=[routes.status])
