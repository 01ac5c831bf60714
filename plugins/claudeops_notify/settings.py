"""The ``[notify]`` section: where notifications go, which happenings send one, and how hard to try.

The URLs are credentials (a Telegram bot token, an ntfy topic, a mail password), so the
setting is secret: ``config show`` masks it, and nothing else ever prints, logs, stores or
serves one (see :mod:`claudeops_notify.targets`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claudeops import Config, ConfigError, setting

SECTION = "notify"

EVENT_THRESHOLDS = {"warning": ("degraded", "down"), "critical": ("down",), "off": ()}
"""``notify.events`` → the service statuses whose start notifies (a finding's level decides the status)."""
SESSION_OUTCOMES = ("failed", "interrupted", "escalated", "remediated")
"""What ``notify.sessions`` may list; ``remediated`` is a tier-3 session that completed."""
DIGEST_TIME = re.compile(r"^(?:[01]\d|2[0-3]):[0-5]\d$")


@dataclass
class NotifySettings:
    """The ``[notify]`` section."""

    urls: list[str] = setting([], "Apprise URLs that receive notifications (ntfy://, tgram://, mailtos://, json://, "
                                  "…; see docs/notifications.md); 'tag1,tag2=URL' sends only those kinds to it",
                              secret=True)
    urls_file: str = setting("", "A file of more Apprise URLs, one per line ('tags=URL' allowed, # comments), "
                                 "to keep them out of config.toml")
    events: str = setting("warning", "Which service problems the agent finds notify: warning (degraded and down), "
                                     "critical (down only) or off")
    sessions: list[str] = setting(list(SESSION_OUTCOMES), "Session outcomes that notify: failed, interrupted, "
                                                          "escalated, remediated (a tier-3 session completed)")
    cooldown_refusals: bool = setting(True, "Notify when a cooldown refuses a restart or redeployment")
    start_refusals: bool = setting(True, "Notify when a run or a tier is refused (a spend cap was reached)")
    review_items: bool = setting(True, "Notify when something joins the memory review queue")
    repeat_hours: float = setting(24.0, "A repeat of a notification that is not about a service's status (the same "
                                        "session failure, a cooldown refusal) is suppressed this long")
    flap_minutes: float = setting(60.0, "A service back in trouble within this many minutes of recovering is "
                                        "flapping: one message, then quiet until it has been stable this long")
    digest: str = setting("", "Send a daily digest with the first run after this local time, HH:MM (empty: none)")
    timeout_seconds: float = setting(5.0, "Longest wait for one delivery attempt to one URL")
    retries: int = setting(2, "Attempts after the first for a URL that failed, with back-off (1 s, 2 s, 4 s …)")
    max_seconds: float = setting(20.0, "Most time notifications may add to the end of a session or run, retries "
                                       "included; what is not delivered by then is recorded as failed")


def validate(config: Config) -> None:
    """One-line errors for values that cannot work (the URLs themselves are checked by apprise when used)."""
    settings: NotifySettings = config.section(SECTION)
    config.require(settings.events in EVENT_THRESHOLDS, f"{SECTION}.events", "warning, critical or off")
    for outcome in settings.sessions:
        config.require(outcome in SESSION_OUTCOMES, f"{SECTION}.sessions", "a list of " + ", ".join(SESSION_OUTCOMES),
                       item=outcome)
    config.require(not settings.digest or bool(DIGEST_TIME.match(settings.digest)), f"{SECTION}.digest",
                   "a local time HH:MM (24 h) or empty")
    for name in ("repeat_hours", "flap_minutes", "timeout_seconds", "max_seconds"):
        config.require(getattr(settings, name) >= 0, f"{SECTION}.{name}", "0 or more")
    config.require(settings.timeout_seconds > 0, f"{SECTION}.timeout_seconds", "more than 0")
    config.require(0 <= settings.retries <= 10, f"{SECTION}.retries", "between 0 and 10")
    from claudeops_notify.targets import TargetError, load_targets  # no Apprise: only the syntax is checked

    try:
        load_targets(settings.urls, "")
    except TargetError as exc:  # names the entry by position: a mistyped token is still a secret
        raise ConfigError(f"{config.sources[f'{SECTION}.urls']}: {exc}") from None
