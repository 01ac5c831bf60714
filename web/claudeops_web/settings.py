"""The ``[web]`` section of ``config.toml``: where the dashboard listens and who may use it."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass

from claudeops import setting

MIN_TOKEN_LENGTH = 16
"""A token shorter than this is guessable over a network; refusing it is cheaper than a breach."""
MIN_TOKEN_GUESSES_LOG10 = 12
"""A token zxcvbn can guess in fewer than 10^12 tries (about 40 bits) is refused: repeats
(``aaaaaaaaaaaaaaaa``), sequences, keyboard rows and words are found long before that. With
login attempts limited to 5 a minute per client, 10^12 guesses take longer than anyone waits,
and the session cookie cannot be used to test guesses offline (it is signed with a secret of
the installation). ``secrets.token_urlsafe(32)`` scores 10^43."""
MAX_WORKERS = 64
"""More dashboard processes than this is a typo: each holds a Python interpreter and its own connections."""
MAKE_A_TOKEN = "make one with: python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"


@dataclass
class WebSettings:
    """How ``claudeops web`` serves the dashboard."""

    host: str = setting("127.0.0.1", "Address the dashboard binds to; any non-loopback address requires a token")
    port: int = setting(8080, "TCP port of the dashboard")
    token: str = setting("", "Access token; when set, every page and API call needs it (login form or "
                             "'Authorization: Bearer'). Required to bind off loopback", secret=True)
    page_size: int = setting(50, "Rows per page in dashboard tables")
    poll_seconds: int = setting(5, "How often live pages refresh themselves, in seconds")
    public_url: str = setting("", "The dashboard's address as others reach it (https://ops.example.net), for links "
                                  "in notifications; empty: messages name the session without a link")
    htmx_path: str = setting("", "htmx.min.js to serve (empty: web/node_modules/htmx.org of the source "
                                 "checkout, installed by `npm ci --prefix web`)", env="CLAUDEOPS_HTMX_PATH")
    run_command: list[str] = setting([], "The command Run now and alerts start, to which the dashboard adds "
                                         "--tier, --trigger… (empty: this installation's `claudeops run`)")
    alert_token: str = setting("", "Bearer token alert senders use on POST /api/v1/alerts (empty: web.token; "
                                   "with neither set, every alert is refused)", secret=True)
    workers: int = setting(0, "Processes serving the dashboard (0: one per CPU core). They share the database, the "
                              "count of failed logins and the login sessions; one of them runs the background tasks")
    trust_proxy_headers: bool = setting(False, "Take the client's address and scheme from X-Forwarded-For and "
                                               "X-Forwarded-Proto sent from 127.0.0.1 (a reverse proxy on this "
                                               "machine). Off: any local process could send them and reset its "
                                               "count of failed logins")


def worker_count(settings: WebSettings) -> int:
    """How many processes serve the dashboard: ``web.workers``, or one per CPU core this process may use."""
    return settings.workers or len(os.sched_getaffinity(0))


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def binding_problem(settings: WebSettings) -> str | None:
    """Why the dashboard must not start with these settings, or None when it may."""
    if not 0 < settings.port < 65536:
        return f"web.port must be between 1 and 65535, not {settings.port}"
    if settings.page_size < 1:
        return f"web.page_size must be at least 1, not {settings.page_size}"
    if not 0 <= settings.workers <= MAX_WORKERS:
        return f"web.workers must be between 0 (one per CPU core) and {MAX_WORKERS}, not {settings.workers}"
    if settings.poll_seconds < 1:
        return f"web.poll_seconds must be at least 1, not {settings.poll_seconds}"
    for name, token in (("web.token", settings.token), ("web.alert_token", settings.alert_token)):
        if token and (problem := token_weakness(token, name)):
            return problem
    if not is_loopback(settings.host) and not settings.token:
        return (f"refusing to serve the dashboard on {settings.host} without a token: anyone who can reach it "
                "could edit the agent's memory. Set web.token in config.toml or CLAUDEOPS_WEB_TOKEN, "
                "or bind to 127.0.0.1")
    return None


def token_weakness(token: str, name: str = "web.token") -> str | None:
    """Why ``token`` (the setting ``name``) is too easy to guess to protect the dashboard, or None."""
    if len(token) < MIN_TOKEN_LENGTH:
        return f"{name} is too short ({len(token)} characters, at least {MIN_TOKEN_LENGTH}); {MAKE_A_TOKEN}"
    from zxcvbn import zxcvbn  # imported here: only `claudeops web` with a token pays for its word lists

    guesses_log10 = zxcvbn(token)["guesses_log10"]
    if guesses_log10 < MIN_TOKEN_GUESSES_LOG10:
        return (f"{name} is too easy to guess (about 10^{guesses_log10:.0f} guesses, at least "
                f"10^{MIN_TOKEN_GUESSES_LOG10} needed: no repeats, sequences or words); {MAKE_A_TOKEN}")
    return None
