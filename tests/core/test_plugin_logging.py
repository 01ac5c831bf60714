"""``--log-level`` reaches every loaded plugin's loggers, third parties included."""

from __future__ import annotations

import logging
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from claudeops import hookimpl
from claudeops.app import App
from claudeops.cli.group import build_cli

CORE_ONLY = ("claudeops.environment", "claudeops.escalation")


def third_party_plugin() -> types.ModuleType:
    """A plugin package as an entry point would load it: its own top-level name and logger."""
    module = types.ModuleType("acme_claudeops_probe")
    logger = logging.getLogger("acme_claudeops_probe.commands")

    @hookimpl
    def register_commands(cli: click.Group) -> None:
        @cli.command("probe")
        def probe() -> None:
            logger.debug("probe debug record")
            logger.info("probe info record")

    module.register_commands = register_commands  # type: ignore[attr-defined]
    return module


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    handlers = list(root.handlers)
    names = ("claudeops", "acme_claudeops_probe")
    levels = {name: logging.getLogger(name).level for name in names}
    yield
    root.handlers[:] = handlers
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


def test_log_level_debug_shows_a_third_party_plugins_debug_records(tmp_path: Path, restore_logging: None) -> None:
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(tmp_path)}, entry_points=False, builtins=CORE_ONLY,
                   extra_plugins=[third_party_plugin()])
    assert "acme_claudeops_probe" in app.logged_packages()
    result = CliRunner().invoke(build_cli(app), ["--log-level", "debug", "probe"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "claudeops: DEBUG: probe debug record" in result.stderr
    assert "probe info record" in result.stderr


def test_the_default_level_keeps_a_third_party_plugins_info_records_quiet(tmp_path: Path,
                                                                          restore_logging: None) -> None:
    app = App.load(None, {"CLAUDEOPS_STATE_DIR": str(tmp_path)}, entry_points=False, builtins=CORE_ONLY,
                   extra_plugins=[third_party_plugin()])
    result = CliRunner().invoke(build_cli(app), ["probe"], catch_exceptions=False)
    assert result.exit_code == 0 and "probe" not in result.stderr
    assert sys.modules.get("acme_claudeops_probe") is None  # nothing installed: the plugin is this module object
