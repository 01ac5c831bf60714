"""The ``[health]`` section: the dead-man's switch claudeops pings so that its own silence is noticed."""

from __future__ import annotations

from dataclasses import dataclass

from claudeops import Config, setting

SECTION = "health"
STYLES = ("healthchecks", "uptime-kuma")


@dataclass
class HealthSettings:
    """The ``[health]`` section."""

    ping_url: str = setting("", "Dead-man's switch pinged by every run: at its start (/start), on success and on "
                                "failure (/fail with the reason); e.g. https://hc-ping.com/<uuid> (empty: none)",
                            secret=True)
    style: str = setting("healthchecks", "How the URL is pinged: healthchecks (Healthchecks.io and compatible: "
                                         "/start, the URL, /fail) or uptime-kuma (a push URL: ?status=up|down&msg=)")
    timeout_seconds: float = setting(5.0, "Longest wait for one ping; a ping that fails is logged, never fatal")


def validate(config: Config) -> None:
    settings: HealthSettings = config.section(SECTION)
    config.require(settings.style in STYLES, f"{SECTION}.style", " or ".join(STYLES))
    config.require(0 < settings.timeout_seconds <= 60, f"{SECTION}.timeout_seconds", "between 0 and 60 seconds")
    config.require(not settings.ping_url or settings.ping_url.startswith(("http://", "https://")),
                   f"{SECTION}.ping_url", "an http:// or https:// URL",
                   item="a URL of another scheme")  # the value is a secret: never echoed
