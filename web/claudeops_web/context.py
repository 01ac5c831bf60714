"""What every dashboard handler may need, injected as the ``web`` dependency.

Handlers (the host's and every plugin's) declare ``web: NamedDependency[WebContext]`` instead of
reaching for globals, so a test can build an app per configuration.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pluggy

from claudeops import Config, MarkerRegistry, NotableEvent
from claudeops_web.contributions import WebContributions
from claudeops_web.settings import WebSettings


@dataclass(frozen=True)
class WebContext:
    """The loaded configuration, the ``[web]`` settings, plugin contributions, marker types and the hooks
    (``web.hook.service_statuses()``: what any plugin answers, never a plugin's internals)."""

    config: Config
    settings: WebSettings
    contributions: WebContributions
    markers: MarkerRegistry
    hook: pluggy.HookRelay

    def section(self, name: str) -> Any:
        """Another plugin's settings section (``web.section("memory").budget_tokens``)."""
        return self.config.section(name)

    def record_event(self, event: NotableEvent) -> None:
        """Tell every ``record_event`` implementation about something that happened in the dashboard."""
        if self.hook is not None:
            self.hook.record_event(event=event)

    @property
    def auth_enabled(self) -> bool:
        return bool(self.settings.token)
