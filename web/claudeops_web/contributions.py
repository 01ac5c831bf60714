"""What plugins hand the dashboard through ``register_web``, collected per plugin.

This module imports nothing from Litestar: every ``claudeops`` process loads the web plugin
(``claudeops run`` from cron included), and only ``claudeops web`` should pay for the web stack.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pluggy

from claudeops import PluginError, plugin_failure


@dataclass(frozen=True)
class NavEntry:
    """One sidebar link. Entries are shown in ascending ``order`` (then label).

    Built-in orders: Overview 0, Sessions 10, Events 20, Memories 30, Cooldowns 40; pick a
    number between them to slot a page in.
    """

    label: str
    path: str
    order: int


@dataclass(frozen=True)
class OverviewCard:
    """A card on the overview page: ``template`` rendered with ``card`` = what ``context(web)`` returns.

    ``context`` gets the :class:`~claudeops_web.context.WebContext` (settings of every plugin)
    and runs in the request's worker thread inside an open database connection, so it may query
    the store directly; keep it to a few indexed queries, the overview polls.

    Placement (the host owns the layout): ``wide`` cards take the whole width, above the grid,
    in ascending ``order`` (the service status board is one, at -10); the others fill the grid
    below in ascending ``order`` (sessions 0, events 20, memories 30, cooldowns 40: a review
    queue or a notifications card picks a number between).
    """

    template: str
    context: Callable[[Any], Mapping[str, Any]]
    order: int
    wide: bool = False


@dataclass(frozen=True)
class SessionPanel:
    """A section of a session's detail page (the memories or events that session recorded).

    ``template`` is rendered with ``panel`` = what ``context(web, session_id)`` returns; it runs
    like :attr:`OverviewCard.context`.
    """

    template: str
    context: Callable[[Any, int], Mapping[str, Any]]
    order: int


@dataclass
class WebContributions:
    """Everything the loaded plugins contributed, in plugin registration order."""

    routes: list[Any] = field(default_factory=list)
    api_routes: list[Any] = field(default_factory=list)
    nav: list[NavEntry] = field(default_factory=list)
    template_dirs: list[Path] = field(default_factory=list)
    static_dirs: dict[str, Path] = field(default_factory=dict)
    overview_cards: list[OverviewCard] = field(default_factory=list)
    session_panels: list[SessionPanel] = field(default_factory=list)
    tasks: list[Callable[[Any], Awaitable[None]]] = field(default_factory=list)
    """``async task(web)`` run for the dashboard's lifetime (started with it, cancelled when it stops)."""
    webhooks: list[str] = field(default_factory=list)
    """Paths for machines, not browsers: only ``Authorization: Bearer`` with ``web.alert_token`` or
    ``web.token`` gets through (no login cookie, no CSRF, any Host), and nothing when neither is set."""

    def sorted_nav(self) -> list[NavEntry]:
        return sorted(self.nav, key=lambda entry: (entry.order, entry.label))


def collect_contributions(pm: pluggy.PluginManager) -> WebContributions:
    """Call every ``register_web`` implementation with a ``register`` bound to its plugin.

    The implementations are called one by one (instead of through ``pm.hook``) so each
    ``static_dir`` can be served under its own plugin's name.
    """
    found = WebContributions()
    for impl in pm.hook.register_web.get_hookimpls():
        register = _register_for(impl.plugin_name, found)
        arguments = {"register": register}
        try:
            result = impl.function(*[arguments[name] for name in impl.argnames])
        except PluginError:
            raise
        except Exception as exc:
            raise plugin_failure(impl.plugin_name, "register_web", exc) from exc
        if inspect.isawaitable(result):
            raise PluginError(f"plugin {impl.plugin_name!r}: register_web must not be async")
    return found


def _register_for(plugin_name: str, found: WebContributions) -> Callable[..., None]:
    def register(*, routes: Sequence[Any] = (), api_routes: Sequence[Any] = (),
                 nav: Iterable[NavEntry] = (), template_dir: str | Path | None = None,
                 static_dir: str | Path | None = None, overview_cards: Iterable[OverviewCard] = (),
                 session_panels: Iterable[SessionPanel] = (),
                 tasks: Iterable[Callable[[Any], Awaitable[None]]] = (), webhooks: Iterable[str] = ()) -> None:
        found.tasks.extend(tasks)
        found.webhooks.extend(webhooks)
        found.routes.extend(routes)
        found.api_routes.extend(api_routes)
        found.nav.extend(nav)
        found.overview_cards.extend(overview_cards)
        found.session_panels.extend(session_panels)
        if template_dir is not None:
            found.template_dirs.append(_existing_dir(plugin_name, "template_dir", template_dir))
        if static_dir is not None:
            found.static_dirs[plugin_name] = _existing_dir(plugin_name, "static_dir", static_dir)

    return register


def _existing_dir(plugin_name: str, what: str, value: str | Path) -> Path:
    path = Path(value)
    if not path.is_dir():
        raise PluginError(f"plugin {plugin_name!r} registered {what} {path}, which is not a directory")
    return path
