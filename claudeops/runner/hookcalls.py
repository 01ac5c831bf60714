"""Calling session hooks one plugin at a time, so one broken plugin cannot silence the others.

pluggy stops a hook call at the first implementation that raises. During a session that would
let a third-party ``on_message`` observer that crashes keep the memory plugin from ever
seeing a text block. The runner therefore calls each implementation itself, in pluggy's order
(``tryfirst`` first, later registrations before earlier ones), awaits async ones, and turns a
failure into one logged line naming the plugin — or, for a plugin the session cannot do
without (one that declares ``claudeops_required``, or any plugin with ``plugins.strict``),
stops the session with that line as the reason: a session must never run weaker in silence.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any

import pluggy

from claudeops.plugins import PluginError, is_required, plugin_failure
from claudeops.store import LockedPatience

log = logging.getLogger(__name__)

Checkpoint = Callable[[], Callable[[], None]]
"""Remembers a state before a hook implementation runs and returns what restores it."""


class PluginCalls:
    """Per-implementation hook calls for one session, remembering what failed."""

    def __init__(self, pm: pluggy.PluginManager, *, strict: bool) -> None:
        self.pm = pm
        self.strict = strict
        self.failures: list[str] = []
        self._cache: dict[str, tuple[pluggy.HookImpl, ...]] = {}

    async def each(self, hook_name: str, /, *, checkpoint: Checkpoint | None = None, **kwargs: Any) -> list[Any]:
        """Call every implementation of ``hook_name``; results of those that did not fail.

        With a ``checkpoint`` (called before each implementation, it returns what takes back that
        implementation's partial effects, such as the prompt sections it added), an implementation
        that meets a locked database is called again, for up to the lock patience, as the runner's
        own writes are. Its database writes were rolled back with the transaction that failed.
        """
        results = []
        for impl in self._implementations(hook_name):
            ok, value = await self._call(hook_name, impl, kwargs, checkpoint() if checkpoint else None)
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

    async def _call(self, hook_name: str, impl: pluggy.HookImpl, kwargs: dict[str, Any],
                    undo: Callable[[], None] | None = None) -> tuple[bool, Any]:
        patience: LockedPatience | None = None
        while True:
            try:
                if impl.wrapper or impl.hookwrapper:
                    raise PluginError(f"plugin {impl.plugin_name!r} wraps hook {hook_name}, which the runner "
                                      "calls per implementation; implement it as a plain hook")
                value = impl.function(*[kwargs[name] for name in impl.argnames])  # positional, as pluggy calls them
                if value is not None and inspect.isawaitable(value):  # an ``async def`` hook
                    value = await value  # inline, not plugins.await_me_maybe: no coroutine per plain call, per message
                return True, value
            except Exception as exc:
                problem = None
                if undo is not None:
                    patience = patience or LockedPatience(f"plugin {impl.plugin_name!r} in hook {hook_name}")
                    if (delay := patience.delay_after(exc)) is not None:
                        undo()
                        await asyncio.sleep(delay)
                        continue
                    problem = patience.problem(exc)
                if problem is not None:
                    message = f"plugin {impl.plugin_name!r} failed in hook {hook_name}: {problem}"
                elif isinstance(exc, PluginError):
                    message = str(exc)
                else:
                    message = str(plugin_failure(impl.plugin_name, hook_name, exc))
                self.fail(message, exc, required=is_required(impl.plugin))
                return False, None

    def fail(self, message: str, exc: BaseException | None = None, *, required: bool = False) -> None:
        """Record a plugin failure: logged as one line, fatal for a required plugin or in strict mode."""
        self.failures.append(message)
        log.error("%s", message, exc_info=log.isEnabledFor(logging.DEBUG) and exc is not None)
        if self.strict or required:
            raise PluginError(message) from exc
