"""Configuration: ``config.toml`` plus ``CLAUDEOPS_*`` variables plus flags, typed and traced.

Precedence, highest first: command-line flag > environment variable > config file > built-in
default. Every section is a dataclass registered by its owner (core or a plugin, through the
``register_settings`` hook), so one loader gives every setting the same type checks, the same
one-line errors and a recorded source for ``claudeops config show``.

Loading happens in two steps because the file itself says which plugins to disable:
:func:`read_config_file` reads the raw TOML, then :func:`build_config` validates it against
the sections the loaded plugins declared.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
import os
import tomllib
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claudeops.encoding import bytes_problem
from claudeops.inventory import Inventory
from claudeops.spelling import did_you_mean
from claudeops.windows import parse_window

log = logging.getLogger(__name__)

ENV_PREFIX = "CLAUDEOPS_"
CORE_SECTION = ""  # top-level keys of config.toml
INVENTORY_TABLE = "services"
"""``[services.NAME]`` tables: the inventory, read by :mod:`claudeops.inventory_file`, not a settings section."""
LOG_LEVELS = ("debug", "info", "warning", "error")
LOG_FORMATS = ("text", "json")


class ConfigError(Exception):
    """A configuration problem, phrased as one line for the operator."""


def setting(default: Any, help: str, *, env: str | None = None, secret: bool = False) -> Any:
    """A dataclass field with the documentation ``config show`` and ``config.toml`` rely on."""
    metadata = {"help": help, "env": env, "secret": secret}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=metadata)
    return field(default=default, metadata=metadata)


@dataclass
class CoreSettings:
    """Top-level keys of ``config.toml``."""

    state_dir: str = setting("", "Where the database, transcripts, lock and CLI config live "
                                 "(empty: $XDG_STATE_HOME/claudeops or ~/.local/state/claudeops)")
    database_url: str = setting("", "peewee database URL; empty means sqlite:///<state_dir>/claudeops.db",
                                secret=True)
    prompts_dir: str = setting("", "Folder with tier prompts overriding the shipped ones (empty: shipped)")
    max_tier: int = setting(3, "Highest tier an escalation may reach (1-3)")
    dry_run: bool = setting(False, "Suppress escalation and mutating tools, and tell the agent so")
    cwd: str = setting("", "Working directory of the agent (empty: <state_dir>/work)")
    setting_sources: list[str] = setting([], "Claude Code settings to load: user, project, local "
                                              "(empty: none, fully isolated)")
    log_level: str = setting("warning", "debug, info, warning or error")
    log_format: str = setting("text", "text, or json for log shippers")
    services_file: str = setting("", "TOML file of [services.NAME] tables, the service inventory (empty: "
                                     "[services.NAME] tables in this file); relative to this file's folder")
    ops_dir: str = setting("", "Folder with checks/*.md, playbooks/*.md and CLAUDEOPS.md the agent reads "
                               "(empty: none); relative to this file's folder")
    maintenance_windows: list[str] = setting([], "Maintenance windows of every service: cron fields, a "
                                                 "duration and optionally a zone, like '0 3 * * sun 2h'")
    cli_path: str = setting("", "The Claude Code CLI to run (empty: the one bundled with claude-agent-sdk)")
    lock_patience_seconds: float = setting(60.0, "How long a run waits out a database another process keeps "
                                                 "locked before it gives up, in seconds")


@dataclass
class TierSettings:
    """One ``[tierN]`` section: how a session of that tier runs."""

    model: str = setting("haiku", "Model alias or full name")
    prompt: str = setting("tier1-observe.md", "Prompt file name, looked up in prompts_dir")
    allowed_tools: list[str] = setting([], "Tools (and Bash(cmd:*) rules) approved without asking")
    disallowed_tools: list[str] = setting([], "Tools and Bash(cmd:*) rules always refused")
    permission_mode: str = setting("default", "default, acceptEdits, plan, dontAsk or bypassPermissions")
    max_turns: int = setting(30, "Stop the session after this many turns")
    max_budget_usd: float = setting(0.5, "Stop the session when it has cost this much in USD (0: no limit)")
    timeout_seconds: float = setting(600.0, "Wall-clock limit for the whole session, in seconds (0: no limit)")


@dataclass
class PluginSettings:
    """The ``[plugins]`` section."""

    disable: list[str] = setting([], "Plugin names not to load (see `claudeops plugins`)",
                                 env="CLAUDEOPS_DISABLE_PLUGINS")
    strict: bool = setting(False, "Stop a run when a plugin fails instead of logging and going on")


@dataclass
class ToolGateSettings:
    """The ``[toolgate]`` section: what tier 1 and dry runs may run besides the built-in read-only programs."""

    allow: list[str] = setting([], 'Extra read-only commands for tier 1 and dry runs: "program", "program '
                                   'subcommand", then the options allowed ("-v --long --value="), or a final '
                                   '"*" for any arguments of a program the gate does not know (see docs/runner.md)')
    read_only_tools: list[str] = setting([], "Tools other than Bash that tier 1 and dry runs may call besides the "
                                             "built-in ones that only read (Read, Grep, Glob, WebFetch…), by exact "
                                             "name, like mcp__grafana__query (see docs/runner.md)")


_READ_ONLY_BASH = ["Bash", "Read", "Grep", "Glob"]
_NEVER_IN_TIER_1 = [
    "Bash(docker restart:*)", "Bash(docker start:*)", "Bash(docker stop:*)", "Bash(docker compose:*)",
    "Bash(docker-compose:*)", "Bash(systemctl restart:*)", "Bash(systemctl start:*)",
    "Bash(systemctl stop:*)", "Bash(git push:*)", "Bash(apprise:*)", "Bash(ansible-playbook:*)",
    "Bash(helm upgrade:*)", "Write", "Edit", "NotebookEdit",
]
_NEVER_IN_TIER_2 = [
    "Bash(docker compose up:*)", "Bash(docker compose down:*)", "Bash(docker-compose up:*)",
    "Bash(docker-compose down:*)", "Bash(git push:*)", "Bash(ansible-playbook:*)", "Bash(helm upgrade:*)",
]
_NEVER = ["Bash(git push --force:*)", "Bash(rm -rf /:*)"]

TIER_DEFAULTS: dict[int, TierSettings] = {
    1: TierSettings("haiku", "tier1-observe.md", _READ_ONLY_BASH, _NEVER_IN_TIER_1, "default", 30, 0.5, 600.0),
    2: TierSettings("sonnet", "tier2-investigate.md", [*_READ_ONLY_BASH, "WebFetch"], _NEVER_IN_TIER_2,
                    "default", 50, 2.0, 900.0),
    3: TierSettings("opus", "tier3-remediate.md", [*_READ_ONLY_BASH, "WebFetch", "Write", "Edit"], _NEVER,
                    "default", 80, 5.0, 1800.0),
}


def tier_section(tier: int) -> str:
    """The config section name of a tier (``tier1``)."""
    return f"tier{tier}"


def core_schemas() -> dict[str, Any]:
    """The sections the core itself owns, as defaults (a dataclass type or instance)."""
    schemas: dict[str, Any] = {CORE_SECTION: CoreSettings, "plugins": PluginSettings, "toolgate": ToolGateSettings}
    schemas.update({tier_section(tier): defaults for tier, defaults in TIER_DEFAULTS.items()})
    return schemas


@dataclass(frozen=True)
class RawConfig:
    """What the config file said, before validation."""

    data: Mapping[str, Any]
    path: Path | None

    @property
    def label(self) -> str:
        return str(self.path) if self.path else "built-in defaults"


def locate_config_file(explicit: str | None, environ: Mapping[str, str]) -> Path | None:
    """``--config PATH`` > ``CLAUDEOPS_CONFIG`` > ``./config.toml`` > none (built-in defaults)."""
    chosen = explicit or environ.get("CLAUDEOPS_CONFIG")
    if chosen:
        path = Path(chosen).expanduser()
        if not path.is_file():
            raise ConfigError(f"{path}: config file not found")
        return path
    local = Path("config.toml")
    return local if local.is_file() else None


def read_config_file(path: Path | None) -> RawConfig:
    """Parse the TOML file; whatever is wrong with it becomes one line naming the file.

    TOML is UTF-8 by definition: other bytes are reported with their offset instead of
    Python's ``UnicodeDecodeError``, and nesting deep enough to exhaust the parser's recursion
    is reported as such instead of a ``RecursionError``.
    """
    if path is None:
        return RawConfig({}, None)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    if (problem := bytes_problem(data)) is not None:
        raise ConfigError(f"{path}: {problem}; save the file as UTF-8")
    try:
        return RawConfig(tomllib.loads(data.decode("utf-8")), path)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: tables or arrays nested too deeply") from None


def disabled_plugins(raw: RawConfig, environ: Mapping[str, str]) -> list[str]:
    """``plugins.disable`` from env or file, needed before the plugins (and their schemas) load.

    Read through the same variables as every other setting, so what ``config show`` reports is what loads.
    """
    disable = next(item for item in dataclasses.fields(PluginSettings) if item.name == "disable")
    if (found := _env_override("plugins", disable, environ)) is not None:
        return _split_list(found[1])
    value = raw.data.get("plugins", {}).get("disable", [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{raw.label}: plugins.disable must be a list of strings")
    return value


def _split_list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


# --------------------------------------------------------------------------- typed values


def _field_types(schema: type) -> dict[str, Any]:
    return typing.get_type_hints(schema)


def _type_name(kind: Any) -> str:
    if typing.get_origin(kind) is list:
        return "a list of strings"
    return {bool: "true or false", int: "an integer", float: "a number", str: "a string"}.get(kind, str(kind))


def _check_file_value(kind: Any, value: Any) -> Any:
    """Validate a TOML value against a field type; returns the value or raises TypeError."""
    if typing.get_origin(kind) is list:
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return list(value)
    elif kind is bool:
        if isinstance(value, bool):
            return value
    elif kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif kind is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    elif kind is str and isinstance(value, str):
        return value
    raise TypeError


TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def parse_flag(text: str) -> bool:
    """A yes/no given as text (a variable, a flag, a form field); ``ValueError`` for anything else.

    The one set of words for every path. A blank is neither: an empty ``CLAUDEOPS_DRY_RUN=``
    must not quietly switch dry run off, and a blank form field means "not given", which the
    form decides before asking here.
    """
    lowered = text.strip().lower()
    if lowered in TRUE_WORDS:
        return True
    if lowered in FALSE_WORDS:
        return False
    raise ValueError(f"expected true or false, not {text!r}")


def _parse_text_value(kind: Any, text: str) -> Any:
    """Convert an environment variable or flag string to the field type, or raise ValueError."""
    if typing.get_origin(kind) is list:
        return _split_list(text)
    if kind is bool:
        return parse_flag(text)
    if kind is int:
        return int(text)
    if kind is float:
        return float(text)
    return text


def env_name(section: str, key: str) -> str:
    """The generic variable for a setting: ``CLAUDEOPS_STATE_DIR``, ``CLAUDEOPS_TIER1_MODEL``."""
    parts = [section, key] if section else [key]
    return ENV_PREFIX + "_".join(part.upper().replace("-", "_") for part in parts)


def env_variables(section: str, item: dataclasses.Field[Any]) -> list[str]:
    """Every variable that sets a setting, the one that wins first: its ``env=`` alias, then the generic name."""
    return [variable for variable in (item.metadata.get("env"), env_name(section, item.name)) if variable]


def _env_override(section: str, item: dataclasses.Field[Any], environ: Mapping[str, str]) -> tuple[str, str] | None:
    """(variable, text) of the winning variable set for a setting, or None when none is set."""
    for variable in env_variables(section, item):
        if variable in environ:
            return variable, environ[variable]
    return None


def _dotted(section: str, key: str) -> str:
    return f"{section}.{key}" if section else key


@dataclass
class Config:
    """Validated settings of every registered section, with where each value came from."""

    raw: RawConfig
    sections: dict[str, Any]
    sources: dict[str, str]
    defaults: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    inventory: Inventory = field(default_factory=Inventory)
    """The service inventory (``[services.NAME]``), filled by :func:`claudeops.inventory_file.load_inventory`."""

    @property
    def core(self) -> CoreSettings:
        core: CoreSettings = self.sections[CORE_SECTION]
        return core

    @property
    def plugins(self) -> PluginSettings:
        plugins: PluginSettings = self.sections["plugins"]
        return plugins

    def section(self, name: str) -> Any:
        """A section's dataclass instance; a plugin reads its own with this."""
        try:
            return self.sections[name]
        except KeyError:
            raise ConfigError(f"no settings section [{name}] is registered") from None

    def tier(self, tier: int) -> TierSettings:
        if tier not in TIER_DEFAULTS:
            raise ConfigError(f"tier must be 1, 2 or 3, not {tier}")
        settings: TierSettings = self.sections[tier_section(tier)]
        return settings

    @property
    def state_dir(self) -> Path:
        return resolve_state_dir(self.core.state_dir)

    @property
    def database_url(self) -> str:
        return self.core.database_url or f"sqlite:///{self.state_dir / 'claudeops.db'}"

    def path_setting(self, key: str) -> Path | None:
        """A top-level path setting as a path, ``None`` when empty; relative to the config file's folder when
        the file set it (a config in /etc/claudeops names its services file beside it, whatever the cwd)."""
        value: str = getattr(self.core, key)
        if not value:
            return None
        path = Path(value).expanduser()
        if not path.is_absolute() and self.raw.path is not None and self.sources.get(key, "").startswith("file"):
            path = self.raw.path.parent / path
        return path

    def require(self, ok: bool, dotted: str, expected: str, *, item: str | None = None) -> None:
        """Unless ``ok``, raise :meth:`invalid`: the check core and plugins run on their sections."""
        if not ok:
            raise self.invalid(dotted, expected, item=item)

    def invalid(self, dotted: str, expected: str, *, item: str | None = None) -> ConfigError:
        """``<source>: '<dotted>' must be <expected>, not <value>``, for a value of the right type that means nothing.

        Every such error, the core's or a plugin's, names the file or variable to fix in the
        same words. ``item`` is the one wrong entry of a list, shown instead of the whole list.
        """
        section, _, key = dotted.rpartition(".")
        value = getattr(self.sections[section], key) if item is None else item
        return ConfigError(f"{self.sources[dotted]}: '{dotted}' must be {expected}, not {value!r}")

    def override(self, dotted: str, value: Any) -> None:
        """Apply a command-line flag (highest precedence). ``value`` of None means 'not given'."""
        if value is None:
            return
        section, _, key = dotted.rpartition(".")
        instance = self.sections[section]
        kind = _field_types(type(instance))[key]
        if isinstance(value, str) and kind is not str:
            value = _parse_text_value(kind, value)
        setattr(instance, key, value)
        self.sources[dotted] = "flag"

    def secret_values(self) -> list[str]:
        """Every secret setting's value (each entry of a list), for :func:`claudeops.redaction.use_secret_settings`."""
        values: list[str] = []
        for _, value, _, secret in self.described():
            if secret and value:
                values += [str(entry) for entry in value] if isinstance(value, list) else [str(value)]
        return values

    def variables(self, *, secret: bool) -> set[str]:
        """Every ``CLAUDEOPS_*`` variable that sets a secret setting (``secret=True``) or one that is not secret."""
        return {variable for name, instance in self.sections.items() for item in dataclasses.fields(instance)
                if bool(item.metadata.get("secret")) == secret for variable in env_variables(name, item)}

    def described(self) -> list[tuple[str, Any, str, bool]]:
        """(dotted key, value, source, is_secret) for every setting, for ``config show``."""
        rows = []
        for section, instance in sorted(self.sections.items()):
            for item in dataclasses.fields(instance):
                dotted = _dotted(section, item.name)
                rows.append((dotted, getattr(instance, item.name), self.sources[dotted],
                             bool(item.metadata.get("secret"))))
        return rows


PERMISSION_MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions", "auto")
SETTING_SOURCES = ("user", "project", "local")
"""What the CLI's ``--setting-sources`` accepts; anything else makes it exit before the session starts."""


def validate_core(config: Config) -> None:
    """Check values whose type is right but whose meaning is not (one line naming key and source)."""
    core = config.core
    require = config.require
    require(1 <= core.max_tier <= 3, "max_tier", "1, 2 or 3")
    require(core.log_level in LOG_LEVELS, "log_level", " or ".join(LOG_LEVELS))
    require(core.log_format in LOG_FORMATS, "log_format", " or ".join(LOG_FORMATS))
    require(set(core.setting_sources) <= set(SETTING_SOURCES), "setting_sources",
            "a list of " + ", ".join(SETTING_SOURCES))
    for window in core.maintenance_windows:
        try:
            parse_window(window)
        except ValueError as exc:
            raise ConfigError(f"{config.sources['maintenance_windows']}: 'maintenance_windows': {exc}") from None
    require(core.lock_patience_seconds >= 0, "lock_patience_seconds", "0 (no waiting) or more")
    for tier in TIER_DEFAULTS:
        section, settings = tier_section(tier), config.tier(tier)
        # an empty model would make the SDK leave out --model, and the CLI's default is its most expensive one
        require(bool(settings.model) and not any(char.isspace() for char in settings.model), f"{section}.model",
                "a model alias or name without blanks")
        require(bool(settings.prompt.strip()), f"{section}.prompt", "a prompt file name or path")
        require(settings.permission_mode in PERMISSION_MODES, f"{section}.permission_mode",
                ", ".join(PERMISSION_MODES))
        require(settings.max_turns > 0, f"{section}.max_turns", "a positive integer")
        require(settings.max_budget_usd >= 0, f"{section}.max_budget_usd", "0 (no limit) or more")
        require(settings.timeout_seconds >= 0, f"{section}.timeout_seconds", "0 (no limit) or more")


def resolve_state_dir(configured: str) -> Path:
    """The state directory: configured, else XDG state home, else ``~/.local/state``."""
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_STATE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "state"
    return base / "claudeops"


def build_config(raw: RawConfig, schemas: Mapping[str, Any], environ: Mapping[str, str],
                 ignored_sections: frozenset[str] = frozenset()) -> Config:
    """Validate ``raw`` against ``schemas`` and layer the environment over it.

    ``ignored_sections`` are sections of disabled plugins: present in the file, not validated.
    """
    _reject_unknown_sections(raw, schemas, ignored_sections)
    sections: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name, schema in schemas.items():
        file_values = raw.data if name == CORE_SECTION else raw.data.get(name, {})
        if not isinstance(file_values, Mapping):
            raise ConfigError(f"{raw.label}: [{name}] must be a table")
        sections[name] = _build_section(name, _fresh(schema), file_values, raw, environ, sources)
    warnings = list(_unknown_variables(schemas, environ))
    for warning in warnings:
        log.warning("%s", warning)
    return Config(raw, sections, sources, {name: _fresh(schema) for name, schema in schemas.items()}, warnings)


def _unknown_variables(schemas: Mapping[str, Any], environ: Mapping[str, str]) -> Iterator[str]:
    """A warning for each ``CLAUDEOPS_<SECTION>_…`` variable that sets nothing, so a typo is not silent.

    Not an error, unlike an unknown key in the file: one environment may serve claudeops
    versions with other settings. Only a declared section's prefix is checked, because other
    ``CLAUDEOPS_*`` variables (``CLAUDEOPS_CONFIG``, a test suite's own) are not settings.
    """
    known = {variable for name, schema in schemas.items() for item in dataclasses.fields(schema)
             for variable in env_variables(name, item)}
    for section in sorted(name for name in schemas if name != CORE_SECTION):
        prefix = env_name(section, "")
        for variable in sorted(name for name in environ if name.startswith(prefix) and name not in known):
            hint = did_you_mean(variable, (name for name in known if name.startswith(prefix)), prefix)
            yield f"environment: {variable} is not a setting of [{section}], ignored{hint}"


def _fresh(schema: Any) -> Any:
    """A new instance holding the defaults of ``schema`` (a dataclass type or instance)."""
    return schema() if isinstance(schema, type) else copy.deepcopy(schema)


def _reject_unknown_sections(raw: RawConfig, schemas: Mapping[str, Any], ignored: frozenset[str]) -> None:
    for key, value in raw.data.items():
        if isinstance(value, Mapping) and key not in schemas and key not in ignored and key != INVENTORY_TABLE:
            raise ConfigError(f"{raw.label}: unknown section [{key}] (no loaded plugin declares it)")


def _build_section(name: str, defaults: Any, file_values: Mapping[str, Any], raw: RawConfig,
                   environ: Mapping[str, str], sources: dict[str, str]) -> Any:
    kinds = _field_types(type(defaults))
    known = {item.name: item for item in dataclasses.fields(defaults)}
    for key, value in file_values.items():
        if name == CORE_SECTION and (isinstance(value, Mapping) or key == INVENTORY_TABLE):
            continue  # a section (or the inventory), handled on its own
        if key not in known:
            raise ConfigError(f"{raw.label}: unknown key '{_dotted(name, key)}'")
        try:
            setattr(defaults, key, _check_file_value(kinds[key], value))
        except TypeError:
            raise ConfigError(f"{raw.label}: '{_dotted(name, key)}' must be {_type_name(kinds[key])}, "
                              f"not {value!r}") from None
        sources[_dotted(name, key)] = f"file {raw.label}"
    for key, item in known.items():
        dotted = _dotted(name, key)
        sources.setdefault(dotted, "default")
        if (found := _env_override(name, item, environ)) is None:
            continue
        variable, text = found
        try:
            setattr(defaults, key, _parse_text_value(kinds[key], text))
        except ValueError:
            raise ConfigError(f"environment: {variable} must be {_type_name(kinds[key])}, not {text!r}") from None
        sources[dotted] = f"env {variable}"
    return defaults
