"""The cooldowns part of the JSON API: ``GET /api/v1/cooldowns``."""

from __future__ import annotations

from claudeops_web.context import WebContext
from litestar import get
from litestar.di import NamedDependency

from claudeops import db
from claudeops_cooldowns import repository
from claudeops_cooldowns.repository import ServiceCooldown
from claudeops_cooldowns.web.pages import configured_rules


@get("/cooldowns", sync_to_thread=True, tags=["cooldowns"])
def list_cooldowns(web: NamedDependency[WebContext]) -> list[ServiceCooldown]:
    """Each (service, action) with recorded actions: count in the window, limit, cooldown and its end."""
    with db.connection_context():
        return repository.cooldown_state(rules=configured_rules(web))
