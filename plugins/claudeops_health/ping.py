"""Pinging the dead-man's switch: start, success and failure, each bounded by ``health.timeout_seconds``.

Healthchecks.io's conventions (``style = "healthchecks"``): ``GET <url>/start`` when a run
starts, ``POST <url>`` when it succeeds, ``POST <url>/fail`` with the one-line reason as the body
when it fails; every ping carries ``?rid=<run id>`` so the service pairs a start with its end
and measures the run. Uptime Kuma's push monitors (``style = "uptime-kuma"``) have no start:
``GET <url>?status=up&msg=OK`` or ``?status=down&msg=<reason>``.

A ping never changes how a run ends and never holds it up for longer than its timeout: the
request runs in a daemon thread that is waited for at most ``timeout_seconds`` (the socket has
the same timeout, so the thread ends soon after). Failures are logged without the URL, which
holds the check's secret.
"""

from __future__ import annotations

import logging
import threading
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

from claudeops import __version__, one_line, redact

log = logging.getLogger(__name__)

MAX_BODY = 10_000
"""Healthchecks.io keeps the first 100 kB of a body; a reason is one line, this is ample."""


@dataclass(frozen=True)
class Ping:
    """One request to the switch: what it is for (``start``, ``success``, ``fail``), where, what it says."""

    what: str
    url: str
    body: str | None = None


def start_ping(url: str, style: str, run_id: str) -> Ping | None:
    if style == "uptime-kuma":
        return None  # a push monitor has no start signal
    return Ping("start", _with_query(_joined(url, "start"), {"rid": run_id}))


def end_ping(url: str, style: str, run_id: str, reason: str | None) -> Ping:
    """Success when ``reason`` is ``None``, else failure with the reason."""
    if style == "uptime-kuma":
        query = {"status": "up", "msg": "OK"} if reason is None else {"status": "down", "msg": _text(reason)[:250]}
        return Ping("success" if reason is None else "fail", _with_query(url, query))
    if reason is None:
        return Ping("success", _with_query(url, {"rid": run_id}), "")
    return Ping("fail", _with_query(_joined(url, "fail"), {"rid": run_id}), _text(reason)[:MAX_BODY])


def send(ping: Ping, timeout: float) -> bool:
    """Send ``ping`` and wait for it at most ``timeout`` seconds; whether the switch answered 2xx."""
    outcome: list[str] = []
    worker = threading.Thread(target=_request, args=(ping, timeout, outcome), name="claudeops-health-ping",
                              daemon=True)
    worker.start()
    worker.join(timeout)
    problem = outcome[0] if outcome else f"no answer within {timeout:g} s"
    if problem:
        log.warning("dead-man's switch ping (%s) failed: %s", ping.what, problem)
        return False
    log.info("dead-man's switch pinged (%s)", ping.what)
    return True


def _request(ping: Ping, timeout: float, outcome: list[str]) -> None:
    data = ping.body.encode() if ping.body is not None else None
    request = urllib.request.Request(ping.url, data=data, method="POST" if data is not None else "GET",
                                     headers={"User-Agent": f"claudeops/{__version__}",
                                              "Content-Type": "text/plain; charset=utf-8"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            response.read(1024)
            outcome.append("" if 200 <= response.status < 300 else f"HTTP {response.status}")
    except urllib.error.HTTPError as exc:
        outcome.append(f"HTTP {exc.code}")
    except (urllib.error.URLError, OSError) as exc:  # the reason, never the URL: it holds the check's secret
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        outcome.append(type(reason).__name__ if not str(reason) else one_line(str(reason))[:120])
    except Exception as exc:  # a malformed URL (http.client.InvalidURL quotes it): the error's name only
        outcome.append(f"{type(exc).__name__} (check health.ping_url)")


def _joined(url: str, suffix: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/" + suffix))


def _with_query(url: str, values: dict[str, str]) -> str:
    parts = urllib.parse.urlsplit(url)
    query = "&".join(item for item in (parts.query, urllib.parse.urlencode(values)) if item)
    return urllib.parse.urlunsplit(parts._replace(query=query))


def _text(reason: str) -> str:
    return redact(one_line(reason))
