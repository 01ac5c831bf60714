"""What every dashboard handler may need, injected as the ``web`` dependency.

Handlers (the host's and every plugin's) declare ``web: NamedDependency[WebContext]`` instead of
reaching for globals, so a test can build an app per configuration.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from claudeops import Config, MarkerRegistry
from claudeops_web.contributions import WebContributions
from claudeops_web.settings import WebSettings


@dataclass(frozen=True)
class WebContext:
    """The loaded configuration, the ``[web]`` settings, plugin contributions, marker types and the hooks."""

    config: Config
    settings: WebSettings
    contributions: WebContributions
    markers: MarkerRegistry
    hook: Any = None
    """The plugin manager's hook relay, for pages that ask every plugin (``/metrics``: ``collect_metrics``)."""

    def section(self, name: str) -> Any:
        """Another plugin's settings section (``web.section("memory").budget_tokens``)."""
        return self.config.section(name)

    @property
    def auth_enabled(self) -> bool:
        return bool(self.settings.token)
