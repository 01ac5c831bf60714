"""The allow-list a run's read-only gate uses: the built-in one and the operator's ``[toolgate] allow`` entries."""

from __future__ import annotations

from claudeops.config import Config
from claudeops.toolgate import BUILT_IN_LIST, ENTRY_SYNTAX, AllowList, parse_entry


def configured_allow_list(config: Config) -> AllowList:
    """The built-in allow-list extended by ``toolgate.allow``; a bad entry is a ``ConfigError`` naming it.

    Checked when the configuration loads (every command, ``doctor`` included) and again when a run
    starts, so a typo in an entry stops the run before any session instead of weakening or
    breaking the gate.
    """
    entries = []
    for text in config.section("toolgate").allow:
        try:
            entries.append(parse_entry(text))
        except ValueError as exc:
            raise config.invalid("toolgate.allow", f"{ENTRY_SYNTAX} ({exc})", item=text) from None
    return BUILT_IN_LIST.extended(entries)
