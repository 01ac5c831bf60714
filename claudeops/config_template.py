"""Render a commented ``config.toml`` from the registered settings.

The shipped ``config.toml`` is this output (a test keeps them equal), so the documentation of
every setting lives next to its declaration and cannot drift from the code.
"""

from __future__ import annotations

import dataclasses
import json
import textwrap
from typing import Any

from claudeops.config import CORE_SECTION, Config, env_variables

HEADER = """\
# claudeops configuration. Every setting is shown with its built-in default.
#
# Precedence, highest first: command-line flag > CLAUDEOPS_* environment variable >
# this file (--config PATH, $CLAUDEOPS_CONFIG, or ./config.toml) > built-in default.
# `claudeops config show` prints the effective value of each setting and where it came from.
"""


INVENTORY_EXAMPLE = """\
# The service inventory: one [services.NAME] table per service, here or in the file services_file
# names (not both). See docs/configuration.md, "Service inventory". For example:
#
# [services.postgres]
# kind = "container"               # container, systemd, vm or external
# host = "local"                   # or an ssh target: "nas", "admin@nas.lan:2222"
# container = "postgres-16"        # the container name (default: the service name)
# notes = "Shared by nextcloud and immich; backups at 03:00"
# maintenance = ["0 3 * * sun 1h"] # cron fields, a duration, optionally a time zone
#
# [services.nextcloud]
# kind = "container"
# health_url = "https://cloud.example.net/status.php"
# expected_status = 200
# after = ["postgres"]             # check postgres first when nextcloud fails
# remediate = false                # tiers 2 and 3 may look, never act on it
"""


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        items = [json.dumps(item) for item in value]
        inline = "[" + ", ".join(items) + "]"
        if len(inline) <= 80:
            return inline
        return "[\n" + "".join(f"    {item},\n" for item in items) + "]"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(name)} = {_toml_value(item)}" for name, item in value.items()) + " }" \
            if value else "{}"
    return repr(value)


def _render_section(name: str, instance: Any) -> list[str]:
    lines = [f"[{name}]"] if name != CORE_SECTION else []
    for item in dataclasses.fields(instance):
        comment = f"{item.metadata.get('help', '')} (env: {', '.join(env_variables(name, item))})"
        lines += [f"# {line}" for line in textwrap.wrap(comment, 96)]
        lines.append(f"{item.name} = {_toml_value(getattr(instance, item.name))}")
    return lines


def render_config_template(config: Config) -> str:
    """A complete, commented config file with every section's defaults."""
    blocks = [HEADER.rstrip("\n")]
    ordered = [CORE_SECTION, *sorted(name for name in config.sections if name != CORE_SECTION)]
    for name in ordered:
        blocks.append("\n".join(_render_section(name, config.defaults[name])))
    blocks.append(INVENTORY_EXAMPLE.rstrip("\n"))
    return "\n\n".join(blocks) + "\n"
