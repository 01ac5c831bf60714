"""The allow-list a run's read-only gate uses: the built-in one, the operator's ``[toolgate] allow`` entries
and ``[toolgate] read_only_tools``."""

from __future__ import annotations

from claudeops.config import Config
from claudeops.toolgate import BUILT_IN_LIST, ENTRY_SYNTAX, AllowList, parse_entry, parse_tool


def configured_allow_list(config: Config) -> AllowList:
    """The built-in allow-list extended by ``toolgate.allow`` and ``toolgate.read_only_tools``; a bad entry or
    tool name is a ``ConfigError`` naming it.

    Checked when the configuration loads (every command, ``doctor`` included) and again when a run
    starts, so a typo stops the run before any session instead of weakening or breaking the gate.
    """
    settings = config.section("toolgate")
    entries = []
    for text in settings.allow:
        try:
            entries.append(parse_entry(text))
        except ValueError as exc:
            raise config.invalid("toolgate.allow", f"{ENTRY_SYNTAX} ({exc})", item=text) from None
    tools = []
    for name in settings.read_only_tools:
        try:
            tools.append(parse_tool(name))
        except ValueError as exc:
            raise config.invalid("toolgate.read_only_tools", f"names of tools that only read ({exc})",
                                 item=name) from None
    return BUILT_IN_LIST.extended(entries, tools)
