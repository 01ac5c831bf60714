"""Calling session hooks one plugin at a time, so one broken plugin cannot silence the others.

pluggy stops a hook call at the first implementation that raises. During a session that would
let a third-party ``on_message`` observer that crashes keep the memory plugin from ever
seeing a text block. The runner therefore calls each implementation itself, in pluggy's order
(``tryfirst`` first, later registrations before earlier ones), awaits async ones, and turns a
failure into one logged line naming the plugin — or, with ``plugins.strict``, stops the
session with that line as the reason.
"""

from __future__ import annotations

import inspect
import logging
from typing import Any

import pluggy

from claudeops.plugins import PluginError, plugin_failure

log = logging.getLogger(__name__)


class PluginCalls:
    """Per-implementation hook calls for one session, remembering what failed."""

    def __init__(self, pm: pluggy.PluginManager, *, strict: bool) -> None:
        self.pm = pm
        self.strict = strict
        self.failures: list[str] = []
        self._cache: dict[str, tuple[pluggy.HookImpl, ...]] = {}

    async def each(self, hook_name: str, **kwargs: Any) -> list[Any]:
        """Call every implementation of ``hook_name``; results of those that did not fail."""
        results = []
        for impl in self._implementations(hook_name):
            ok, value = await self._call(hook_name, impl, kwargs)
            if ok and value is not None:
                results.append(value)
        return results

    async def first(self, hook_name: str, **kwargs: Any) -> tuple[Any, str | None]:
        """The first non-``None`` answer of a ``firstresult`` hook, and the failure that stopped it.

        A failing implementation is skipped; the second item names it, so a safety hook such
        as ``check_tool_use`` can fail closed instead of letting the call through unchecked.
        """
        for impl in self._implementations(hook_name):
            ok, value = await self._call(hook_name, impl, kwargs)
            if not ok:
                return None, self.failures[-1]
            if value is not None:
                return value, None
        return None, None

    def has(self, hook_name: str) -> bool:
        """Whether any plugin implements ``hook_name``, so callers can skip a hook nobody implements.

        The stream asks this once per session for its per-message hooks: with no observer, a
        message costs no hook call at all.
        """
        return bool(self._implementations(hook_name))

    def _implementations(self, hook_name: str) -> tuple[pluggy.HookImpl, ...]:
        """In call order; looked up once per session, as plugins do not come and go mid-session."""
        impls = self._cache.get(hook_name)
        if impls is None:
            caller: pluggy.HookCaller = getattr(self.pm.hook, hook_name)
            impls = self._cache[hook_name] = tuple(reversed(caller.get_hookimpls()))
        return impls

    async def _call(self, hook_name: str, impl: pluggy.HookImpl, kwargs: dict[str, Any]) -> tuple[bool, Any]:
        try:
            if impl.wrapper or impl.hookwrapper:
                raise PluginError(f"plugin {impl.plugin_name!r} wraps hook {hook_name}, which the runner "
                                  "calls per implementation; implement it as a plain hook")
            value = impl.function(*[kwargs[name] for name in impl.argnames])  # positional, as pluggy calls them
            if value is not None and inspect.isawaitable(value):  # an ``async def`` hook
                value = await value  # inline, not plugins.await_me_maybe: no coroutine per plain call, per message
            return True, value
        except Exception as exc:
            failure = exc if isinstance(exc, PluginError) else plugin_failure(impl.plugin_name, hook_name, exc)
            self.fail(str(failure), exc)
            return False, None

    def fail(self, message: str, exc: BaseException | None = None) -> None:
        """Record a plugin failure: logged as one line, fatal only in strict mode."""
        self.failures.append(message)
        log.error("%s", message, exc_info=log.isEnabledFor(logging.DEBUG) and exc is not None)
        if self.strict:
            raise PluginError(message) from exc
