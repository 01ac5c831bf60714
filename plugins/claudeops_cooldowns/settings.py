"""The ``[cooldowns]`` section: how often a service may be restarted or redeployed, and which
shell commands count as doing so."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache

from claudeops import Config, setting

RESTART = "restart"
REDEPLOYMENT = "redeployment"
ACTIONS = (RESTART, REDEPLOYMENT)

_COMPOSE = r"(?:docker\s+compose|docker-compose|podman\s+compose|podman-compose)"

DEFAULT_RESTART_PATTERNS = [
    r"^(?:docker|podman)\s+(?:container\s+)?(?:re)?start\s+(?P<service>.+)$",
    "^" + _COMPOSE + r"\b.*?\s(?:re)?start(?P<service>(?:\s.*)?)$",
    r"^systemctl\b.*?\s(?:start|restart|try-restart|reload-or-restart|try-reload-or-restart)\s+(?P<service>.+)$",
    r"^service\s+(?P<service>\S+)\s+(?:re)?start\b",
]
"""A start counts as a restart: stopping (or killing) a service and starting it again is a restart in
two commands, and starting a stopped service is a remediation too; a stop alone restarts nothing."""
DEFAULT_REDEPLOY_PATTERNS = [
    "^" + _COMPOSE + r"\b.*?\sup(?P<service>(?:\s.*)?)$",
    r"^ansible-playbook\b.*?\s(?:-l|--limit)(?:\s+|=)(?P<service>\S+)",
    r"^ansible-playbook\b.*?\bservice=(?P<service>[^\s,;]+)",
    r"^ansible-playbook\b(?:.*\s)?(?:\S*/)?(?P<service>[^\s/]+?)\.ya?ml(?:\s|$)",
    r"^helm\b.*?\supgrade\s+(?P<service>.+)$",
]


@dataclass
class CooldownSettings:
    """The ``[cooldowns]`` section."""

    restart_limit: int = setting(2, "Restarts allowed per service within restart_window_hours")
    restart_window_hours: float = setting(4.0, "Length of the sliding restart window, in hours")
    redeploy_limit: int = setting(1, "Redeployments allowed per service within redeploy_window_hours")
    redeploy_window_hours: float = setting(24.0, "Length of the sliding redeployment window, in hours")
    restart_patterns: list[str] = setting(
        DEFAULT_RESTART_PATTERNS,
        "Regexes for shell commands that restart a service (a start counts as one); the named group 'service' "
        "captures it "
        "(see docs/cooldowns.md)")
    redeploy_patterns: list[str] = setting(
        DEFAULT_REDEPLOY_PATTERNS,
        "Regexes for shell commands that redeploy a service; the named group 'service' captures it")


@dataclass(frozen=True)
class Rule:
    """At most ``limit`` actions per service within any ``window``."""

    limit: int
    window: timedelta

    @property
    def window_hours(self) -> float:
        return self.window.total_seconds() / 3600


Rules = dict[str, Rule]


def rules_from(settings: CooldownSettings) -> Rules:
    """The limit and window of each action, as the state and the enforcement use them."""
    return {
        RESTART: Rule(settings.restart_limit, timedelta(hours=settings.restart_window_hours)),
        REDEPLOYMENT: Rule(settings.redeploy_limit, timedelta(hours=settings.redeploy_window_hours)),
    }


def patterns_from(settings: CooldownSettings) -> dict[str, tuple[re.Pattern[str], ...]]:
    """The compiled command patterns of each action."""
    return {RESTART: compile_patterns(tuple(settings.restart_patterns)),
            REDEPLOYMENT: compile_patterns(tuple(settings.redeploy_patterns))}


@lru_cache(maxsize=16)
def compile_patterns(sources: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """Compile once per distinct list (every tool call is checked); :func:`validate` vetted them at start-up."""
    return tuple(re.compile(source) for source in sources)


def validate(config: Config) -> None:
    """Refuse limits and windows that make no sense, and patterns that cannot name the service."""
    settings: CooldownSettings = config.section("cooldowns")
    for key in ("restart_limit", "redeploy_limit"):
        config.require(getattr(settings, key) >= 0, f"cooldowns.{key}", "0 or more")
    for key in ("restart_window_hours", "redeploy_window_hours"):
        config.require(getattr(settings, key) > 0, f"cooldowns.{key}", "more than 0")
    for key in ("restart_patterns", "redeploy_patterns"):
        for source in getattr(settings, key):
            try:
                groups = re.compile(source).groupindex
            except re.error as exc:
                raise config.invalid(f"cooldowns.{key}", f"valid regexes ({exc})", item=source) from None
            config.require("service" in groups, f"cooldowns.{key}", "regexes with a (?P<service>...) group",
                           item=source)
