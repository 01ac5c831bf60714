"""The assembled application: configuration, plugins, marker types and the store.

Built by :meth:`App.load` in every command (and by the test fixtures), never at import time,
so each test and each process gets its own plugin manager (conda and pytest do the same).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pluggy

from claudeops import plugins
from claudeops.config import (
    Config,
    ConfigError,
    RawConfig,
    build_config,
    check_environment,
    core_schemas,
    disabled_plugins,
    locate_config_file,
    read_config_file,
    validate_core,
)
from claudeops.inventory_file import load_inventory
from claudeops.markers import MarkerRegistry
from claudeops.ops_dir import ops_dir_path
from claudeops.redaction import use_secret_settings
from claudeops.session_rows import CORE_MIGRATIONS, RENAMED_OWNERS
from claudeops.store import (
    Migration,
    SchemaDrift,
    apply_migrations,
    migration_status,
    open_store,
    recorded_migrations,
    refuse_newer,
    schema_drift,
)
from claudeops.version import __version__

log = logging.getLogger(__name__)

CORE_OWNER = "core"


@dataclass
class App:
    """Everything a command or a session needs, wired once."""

    config: Config
    pm: pluggy.PluginManager
    markers: MarkerRegistry
    load_report: plugins.LoadReport
    migrations: list[tuple[str, Sequence[Migration]]] = field(default_factory=list)

    @classmethod
    def load(cls, config_path: str | None = None, environ: Mapping[str, str] | None = None, *,
             entry_points: bool = True, builtins: Sequence[str] = plugins.DEFAULT_PLUGINS,
             extra_plugins: Sequence[Any] = ()) -> App:
        """Read the configuration, load plugins, validate settings and collect their contributions."""
        environ = os.environ if environ is None else environ
        check_environment(environ)
        raw = read_config_file(locate_config_file(config_path, environ))
        disabled = disabled_plugins(raw, environ)
        pm = plugins.make_plugin_manager()
        for plugin in extra_plugins:
            pm.register(plugin)
        report = plugins.load_plugins(pm, disabled, entry_points=entry_points, builtins=builtins)
        config = _validated_config(pm, raw, environ, disabled)
        use_secret_settings(config.secret_values())
        _configure(pm, config)
        app = cls(config, pm, MarkerRegistry(), report)
        pm.hook.register_marker_types(register=app.markers.register)
        app.migrations = [(CORE_OWNER, CORE_MIGRATIONS)]
        pm.hook.register_migrations(register=app._add_migrations)
        return app

    def _add_migrations(self, owner: str, migrations: Sequence[Migration]) -> None:
        if any(existing == owner for existing, _ in self.migrations):
            raise plugins.PluginError(f"two plugins registered migrations for the same owner {owner!r}")
        self.migrations.append((owner, tuple(migrations)))

    @property
    def hook(self) -> pluggy.HookRelay:
        return self.pm.hook

    def logged_packages(self) -> tuple[str, ...]:
        """The top-level package of every registered plugin, whose loggers ``log_level`` sets.

        Taken from the plugins actually loaded, third parties included, so a plugin's own
        ``logging.getLogger(__name__)`` follows ``--log-level`` like the core's.
        """
        names = (getattr(plugin, "__name__", None) or type(plugin).__module__
                 for _, plugin in self.pm.list_name_plugin() if plugin is not None)
        return tuple(dict.fromkeys(name.split(".")[0] for name in names))

    @property
    def state_dir(self) -> Path:
        return self.config.state_dir

    def ensure_state_dir(self) -> Path:
        """The state directory, created if missing; a ``ConfigError`` (one line) when it cannot be."""
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            source = self.config.sources.get("state_dir", "default")
            raise ConfigError(f"{source}: 'state_dir' {self.state_dir} cannot be created: "
                              f"{exc.strerror or exc}") from None
        return self.state_dir

    def open_store(self, *, migrate: bool = True, connection_per_thread: bool = False) -> None:
        """Open the configured database and (by default) apply pending migrations.

        Migrating refuses a database a newer claudeops wrote (:class:`~claudeops.store.NewerDatabase`)
        before changing anything: its schema is not one this version's code was written for.
        ``connection_per_thread``: each thread keeps its SQLite connection (a server, see
        :class:`~claudeops.store.ConnectionPerThread`).
        """
        self.ensure_state_dir()
        open_store(self.config.database_url, lock_patience=self.config.core.lock_patience_seconds,
                   connection_per_thread=connection_per_thread)
        if migrate:
            self.migrate()

    def migrate(self) -> list[Any]:
        """Apply pending migrations of the store just opened, after refusing a newer database (the migrations
        table is read once for both, at every start)."""
        recorded = recorded_migrations()
        drift = schema_drift(self.migrations, RENAMED_OWNERS, recorded)
        refuse_newer(drift, self.config.database_url, __version__)
        for owner, steps in drift.not_loaded.items():
            log.info("the database has %d migration(s) of %r, which no loaded plugin registers; left alone",
                     steps, owner)
        applied = apply_migrations(self.migrations, recorded)
        for step in applied:
            log.info("applied migration %s/%s", step.owner, step.name)
        return applied

    def schema_drift(self) -> SchemaDrift:
        """What the database's migrations table holds that this installation does not register."""
        return schema_drift(self.migrations, RENAMED_OWNERS)

    def migration_status(self) -> list[Any]:
        return migration_status(self.migrations)


def _configure(pm: pluggy.PluginManager, config: Config) -> None:
    """Call ``configure``; a setting a plugin rejects there stops the command as a config error.

    Plugins check their sections in ``configure`` with :meth:`Config.require`. The naming
    wrapper turns every exception in a hook into a plugin failure; a ``ConfigError`` is
    unwrapped again, so it reads (and exits) like the core's own: the file or variable, the key.
    """
    try:
        pm.hook.configure(config=config)
    except plugins.PluginError as exc:
        if isinstance(exc.__cause__, ConfigError):
            raise exc.__cause__ from None
        raise


def _section_names(plugin_names: Iterable[str]) -> Iterator[str]:
    """Config sections a plugin that is not loaded may own: ``claudeops_memory`` → ``memory``.

    Its section in the file is then left alone instead of rejected, so disabling a plugin (or
    loading only some built-ins) never breaks a config file written for all of them.
    """
    for name in plugin_names:
        yield name
        yield name.removeprefix("claudeops_").removeprefix("claudeops.")


def _validated_config(pm: pluggy.PluginManager, raw: RawConfig, environ: Mapping[str, str],
                      disabled: Sequence[str]) -> Config:
    schemas: dict[str, Any] = core_schemas()

    def register(section: str, schema: Any) -> None:
        if section in schemas:
            raise ConfigError(f"settings section [{section}] is declared twice")
        schemas[section] = schema

    pm.hook.register_settings(register=register)
    not_loaded = {*disabled, *(name for name in plugins.DEFAULT_PLUGINS if pm.get_plugin(name) is None)}
    config = build_config(raw, schemas, environ, frozenset(_section_names(not_loaded)))
    validate_core(config)
    config.inventory = load_inventory(raw, config)
    ops_dir_path(config)  # a mistyped ops_dir stops every command, as a mistyped prompts_dir does
    return config
