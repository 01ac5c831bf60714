"""The ``[alerts]`` section: which tier an alert starts, and how long a repeat counts as the same alert.

The token alert senders use is ``web.alert_token`` (the dashboard authenticates every request).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from claudeops import Config, setting

SECTION = "alerts"
MAX_BRIEFS = 200
"""Bound on ``max_briefs``: each brief is a line of the prompt and an argument of the run's command line."""
RULE = re.compile(r"(?P<key>source|severity|service|name)=(?P<value>[^:]+):(?P<tier>[123])")


@dataclass
class AlertSettings:
    """The ``[alerts]`` section."""

    default_tier: int = setting(1, "Tier an alert-triggered run starts at when no rule says otherwise")
    rules: list[str] = setting([], "KEY=VALUE:TIER rules (KEY: source, severity, service or name; VALUE may use * "
                                   "and ?), e.g. 'severity=critical:2'; a run starts at the highest tier its alerts "
                                   "match, at most max_tier")
    dedup_minutes: int = setting(30, "A firing alert whose fingerprint already started a run this many minutes ago "
                                     "(or is still queued) is recorded as a repeat, not run again")
    max_briefs: int = setting(20, "Most queued alerts whose briefs one run's prompt quotes (the oldest first); the "
                                  "rest start with it too, counted in one line with the services they name")


@dataclass(frozen=True)
class Rule:
    key: str
    pattern: str
    tier: int

    def matches(self, values: dict[str, list[str]]) -> bool:
        return any(fnmatch.fnmatchcase(value.lower(), self.pattern.lower()) for value in values.get(self.key, []))


def parse_rules(texts: list[str]) -> list[Rule]:
    """The rules as written; ``ValueError`` naming the first that is not ``KEY=VALUE:TIER``."""
    rules = []
    for text in texts:
        found = RULE.fullmatch(text.strip())
        if found is None:
            raise ValueError(text)
        rules.append(Rule(found["key"], found["value"].strip(), int(found["tier"])))
    return rules


def validate(config: Config) -> None:
    settings: AlertSettings = config.section(SECTION)
    config.require(1 <= settings.default_tier <= 3, f"{SECTION}.default_tier", "1, 2 or 3")
    config.require(settings.dedup_minutes >= 0, f"{SECTION}.dedup_minutes", "0 or more")
    config.require(1 <= settings.max_briefs <= MAX_BRIEFS, f"{SECTION}.max_briefs", f"1 to {MAX_BRIEFS}")
    try:
        parse_rules(settings.rules)
    except ValueError as exc:
        raise config.invalid(f"{SECTION}.rules", "KEY=VALUE:TIER rules (source, severity, service or name; tier 1-3)",
                             item=str(exc)) from None
