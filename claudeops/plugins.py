"""The plugin manager: built-ins from ``DEFAULT_PLUGINS``, third parties from entry points.

Built-in plugins are ordinary modules with ``@hookimpl`` functions, imported and registered by
name exactly as a third-party plugin is (datasette, llm and pytest do the same). Third-party
plugins come from the entry-point group ``claudeops`` and are loaded one at a time, so a broken
one is reported by name and the rest still load. A hook implementation no spec declares (a
misspelt hook) is an error instead of a silently ignored function: a third-party plugin with
one is reported and left out like one that fails to import, and ``check_pending()`` raises for
the built-ins, where it is a bug in claudeops.
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import inspect
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pluggy

from claudeops import hookspecs
from claudeops.spelling import did_you_mean

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "claudeops"

DEFAULT_PLUGINS: tuple[str, ...] = (
    "claudeops.environment",
    "claudeops.escalation",
    "claudeops_budget",
    "claudeops_events",
    "claudeops_cooldowns",
    "claudeops_health",
    "claudeops_memory",
    "claudeops_inventory",
    "claudeops_alerts",
    "claudeops_metrics",
    "claudeops_notify",
    "claudeops_web",
)
"""Built-in plugins by the name they are registered (and disabled) under."""

BUILTIN_MODULES = {
    "claudeops.environment": "claudeops.default_plugins.environment",
    "claudeops.escalation": "claudeops.default_plugins.escalation",
}
"""Built-ins whose module path differs from their name: they moved into ``claudeops/default_plugins/``
and kept the names that existing ``plugins.disable`` settings use."""


REQUIRED_ATTRIBUTE = "claudeops_required"
"""A plugin module (or object) with ``claudeops_required = True`` is one a session cannot do without."""


def is_required(plugin: object) -> bool:
    """Whether a failure of ``plugin`` in a session hook must fail the session instead of being logged.

    Plugins that carry memory or limits (the memory and cooldowns built-ins) declare it: a session
    without its memory block, or without its remediation limits, would run weaker in silence. Every
    other plugin is optional unless it declares itself required, or ``plugins.strict`` is set.
    """
    return getattr(plugin, REQUIRED_ATTRIBUTE, False) is True


class PluginError(Exception):
    """A plugin failed to load or raised in a hook; the message names the plugin."""


@dataclass(frozen=True)
class PluginInfo:
    """One plugin, as ``claudeops plugins`` lists it: loaded, or failed with its one-line error."""

    name: str
    source: str
    version: str | None
    hooks: tuple[str, ...]
    builtin: bool
    status: str = "loaded"
    error: str | None = None


@dataclass
class LoadReport:
    """What happened while loading plugins: failures are kept, not raised, for third parties.

    ``warnings`` are names in ``plugins.disable`` that match no plugin: a typo there would
    otherwise leave the plugin running without a word.
    """

    failed: list[PluginInfo] = field(default_factory=list)
    disabled: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        """The one-line error of each plugin that failed to load."""
        return [info.error for info in self.failed if info.error is not None]


class PluginManager(pluggy.PluginManager):
    """pluggy's manager, but every hook implementation names its plugin when it raises.

    pluggy declares ``HookImpl.function`` final and has no public way to wrap an implementation,
    so each one gets a guarded twin at registration, kept here, and every call pluggy makes
    (``pm.hook.<name>(...)`` goes through ``_hookexec``) runs the twins instead. Code that calls
    ``impl.function`` itself, one implementation at a time (the runner's ``PluginCalls``, the
    dashboard's ``register_web``), names a failure with :func:`plugin_failure`.
    """

    def __init__(self, project_name: str) -> None:
        super().__init__(project_name)
        self._guarded: dict[pluggy.HookImpl, pluggy.HookImpl] = {}

    def register(self, plugin: object, name: str | None = None) -> str | None:
        registered = super().register(plugin, name)
        if registered is not None:
            for caller in self.get_hookcallers(plugin) or ():
                for impl in caller.get_hookimpls():
                    if impl.plugin is plugin and not (impl.wrapper or impl.hookwrapper):
                        guarded = _naming_failures(impl.function, impl.plugin_name, caller.name)
                        self._guarded[impl] = pluggy.HookImpl(impl.plugin, impl.plugin_name, guarded, impl.opts)
        return registered

    def unregister(self, plugin: object | None = None, name: str | None = None) -> Any | None:
        removed = super().unregister(plugin, name)
        for impl in [impl for impl in self._guarded if impl.plugin is removed]:
            del self._guarded[impl]
        return removed

    def _hookexec(self, hook_name: str, methods: Sequence[pluggy.HookImpl], kwargs: Mapping[str, object],
                  firstresult: bool) -> object | list[object]:
        guarded = self._guarded
        return super()._hookexec(hook_name, [guarded.get(impl, impl) for impl in methods], kwargs, firstresult)


def make_plugin_manager() -> PluginManager:
    pm = PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    return pm


def load_plugins(pm: pluggy.PluginManager, disabled: Iterable[str] = (), *, entry_points: bool = True,
                 builtins: Iterable[str] = DEFAULT_PLUGINS) -> LoadReport:
    """Register the built-ins, then third-party entry points, skipping ``disabled`` names.

    A built-in that fails to import or implements an unknown hook is a bug in claudeops and
    raises; a third-party one is reported in the returned :class:`LoadReport` and skipped.
    Disabled names are checked against every plugin only when entry points are scanned, as
    only then are all the names a user may disable known.
    """
    report = LoadReport()
    blocked = set(disabled)
    for name in builtins:
        if name in blocked:
            pm.set_blocked(name)
            report.disabled.append(name)
            continue
        pm.register(importlib.import_module(BUILTIN_MODULES.get(name, name)), name=name)
    if entry_points:
        found = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
        _load_entry_points(pm, found, blocked, report)
        _warn_unknown_disabled(blocked, {*DEFAULT_PLUGINS, *builtins, *found.names}, report)
    pm.check_pending()
    return report


def _load_entry_points(pm: pluggy.PluginManager, found: importlib.metadata.EntryPoints, blocked: set[str],
                       report: LoadReport) -> None:
    for entry_point in found:
        if entry_point.name in blocked:
            report.disabled.append(entry_point.name)
            continue
        if pm.get_plugin(entry_point.name) is not None:
            continue
        try:
            plugin = entry_point.load()
            pm.register(plugin, name=entry_point.name)
        except Exception as exc:
            _report_failure(report, entry_point, f"{type(exc).__name__}: {exc}")
            continue
        if unknown := _unknown_hooks(pm, plugin):
            pm.unregister(plugin)
            _report_failure(report, entry_point, "; ".join(unknown))
            continue
        if entry_point.dist is not None:
            _DISTRIBUTIONS[entry_point.name] = (entry_point.dist.name, entry_point.dist.version)


_DISTRIBUTIONS: dict[str, tuple[str, str]] = {}
"""Entry-point plugin name → (distribution, version), recorded as they load."""


def _unknown_hooks(pm: pluggy.PluginManager, plugin: object) -> list[str]:
    """What ``check_pending()`` would raise about ``plugin``, one phrase per misspelt hook, with a hint."""
    callers = [caller for caller in pm.get_hookcallers(plugin) or () if not caller.has_spec()]
    known = [name for name, caller in vars(pm.hook).items() if not name.startswith("_") and caller.has_spec()]
    return [f"unknown hook {caller.name!r}{did_you_mean(caller.name, known)}" for caller in callers
            if any(impl.plugin is plugin and not impl.optionalhook for impl in caller.get_hookimpls())]


def _report_failure(report: LoadReport, entry_point: importlib.metadata.EntryPoint, reason: str) -> None:
    """Log and keep a third-party plugin that is left out, as one line naming it."""
    message = f"plugin {entry_point.name!r} failed to load: {' '.join(reason.split())}"
    log.error(message)
    name, version = (entry_point.dist.name, entry_point.dist.version) if entry_point.dist is not None else (None, None)
    report.failed.append(PluginInfo(entry_point.name, _entry_point_source(name), version, (), builtin=False,
                                    status="failed", error=message))


def _entry_point_source(distribution: str | None) -> str:
    return f"entry point ({distribution})" if distribution else "entry point"


def _warn_unknown_disabled(blocked: set[str], known: set[str], report: LoadReport) -> None:
    for name in sorted(blocked - known):
        message = f"plugins.disable: no plugin is named {name!r}{did_you_mean(name, known)}; nothing disabled"
        log.warning(message)
        report.warnings.append(message)


def plugin_failure(plugin: str, hook: str, exc: Exception) -> PluginError:
    """The one-line error for a hook implementation that raised, naming the plugin and the hook."""
    return PluginError(f"plugin {plugin!r} failed in hook {hook}: {type(exc).__name__}: {exc}")


def _naming_failures(function: Callable[..., Any], plugin: str, hook: str) -> Callable[..., Any]:
    if inspect.iscoroutinefunction(function):
        @functools.wraps(function)
        async def guarded_async(*args: Any) -> Any:
            try:
                return await function(*args)
            except PluginError:
                raise
            except Exception as exc:
                raise plugin_failure(plugin, hook, exc) from exc
        return guarded_async

    @functools.wraps(function)
    def guarded(*args: Any) -> Any:
        try:
            return function(*args)
        except PluginError:
            raise
        except Exception as exc:
            raise plugin_failure(plugin, hook, exc) from exc
    return guarded


def describe_plugins(pm: pluggy.PluginManager) -> list[PluginInfo]:
    """Every registered plugin with its source, version and implemented hooks, by name."""
    infos = []
    for name, plugin in pm.list_name_plugin():
        if plugin is None:
            continue
        hooks = tuple(sorted(caller.name for caller in pm.get_hookcallers(plugin) or ()))
        builtin = name in DEFAULT_PLUGINS
        if builtin:
            source, version = "built-in", _builtin_version()
        elif name in _DISTRIBUTIONS:
            distribution, version = _DISTRIBUTIONS[name]
            source = _entry_point_source(distribution)
        else:
            source, version = f"registered ({getattr(plugin, '__name__', type(plugin).__name__)})", None
        infos.append(PluginInfo(name, source, version, hooks, builtin))
    return sorted(infos, key=lambda info: (not info.builtin, info.name))


def _builtin_version() -> str:
    from claudeops.version import __version__

    return __version__


async def await_me_maybe(value: Any) -> Any:
    """Await ``value`` if a hook implementation returned an awaitable (an ``async def`` hook)."""
    if inspect.isawaitable(value):
        return await value
    return value
