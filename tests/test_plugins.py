"""Plugin host: built-ins, entry-point discovery, disabling, broken plugins, hook errors."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pluggy
import pytest

from claudeops import hookimpl
from claudeops.app import App
from claudeops.plugins import PluginError, describe_plugins

CORE_ONLY = ("claudeops.environment", "claudeops.escalation")


def install_fake_distribution(root: Path, name: str, module_source: str, entry_point: str | None = None) -> None:
    """Write a module plus a .dist-info with a ``claudeops`` entry point onto ``root``."""
    module = name.replace("-", "_")
    (root / f"{module}.py").write_text(textwrap.dedent(module_source))
    info = root / f"{module}-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.2.3\n")
    (info / "entry_points.txt").write_text(f"[claudeops]\n{entry_point or name} = {module}\n")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    return root


GOOD_PLUGIN = """
    from claudeops import hookimpl

    @hookimpl
    def before_session(session):
        session.add_prompt_section("good", "from a third party", 99)
"""


def test_third_party_plugin_is_discovered_through_entry_points(site):
    install_fake_distribution(site, "claudeops-good", GOOD_PLUGIN, "good")
    app = App.load(None, {}, builtins=CORE_ONLY)
    info = {plugin.name: plugin for plugin in describe_plugins(app.pm)}["good"]
    assert info.source == "entry point (claudeops-good)"
    assert info.version == "1.2.3"
    assert info.hooks == ("before_session",)


def test_plugin_that_fails_to_import_is_reported_by_name_and_others_still_load(site):
    install_fake_distribution(site, "claudeops-broken", "raise ImportError('needs libfoo')\n", "broken")
    install_fake_distribution(site, "claudeops-good", GOOD_PLUGIN, "good")
    app = App.load(None, {}, builtins=CORE_ONLY)
    assert app.load_report.errors == ["plugin 'broken' failed to load: ImportError: needs libfoo"]
    assert app.pm.get_plugin("good") is not None
    assert app.pm.get_plugin("claudeops.environment") is not None


def test_disabled_plugin_is_not_loaded_from_config_file(site, tmp_path):
    install_fake_distribution(site, "claudeops-good", GOOD_PLUGIN, "good")
    config = tmp_path / "c.toml"
    config.write_text('[plugins]\ndisable = ["good", "claudeops.escalation"]\n')
    app = App.load(str(config), {}, builtins=CORE_ONLY)
    assert app.pm.get_plugin("good") is None
    assert app.pm.get_plugin("claudeops.escalation") is None
    assert sorted(app.load_report.disabled) == ["claudeops.escalation", "good"]
    assert "ESCALATE" not in [marker.name for marker in app.markers.types]


def test_disabled_plugin_from_environment_variable(site):
    install_fake_distribution(site, "claudeops-good", GOOD_PLUGIN, "good")
    app = App.load(None, {"CLAUDEOPS_DISABLE_PLUGINS": "good"}, builtins=CORE_ONLY)
    assert app.pm.get_plugin("good") is None


def test_disabled_plugin_from_generic_environment_variable(site):
    """config.toml documents CLAUDEOPS_PLUGINS_DISABLE next to the alias; both must keep the plugin out."""
    install_fake_distribution(site, "claudeops-good", GOOD_PLUGIN, "good")
    app = App.load(None, {"CLAUDEOPS_PLUGINS_DISABLE": "good"}, builtins=CORE_ONLY)
    assert app.pm.get_plugin("good") is None
    assert app.load_report.disabled == ["good"]
    assert ("plugins.disable", ["good"], "env CLAUDEOPS_PLUGINS_DISABLE", False) in app.config.described()


def test_misspelt_hook_implementation_is_an_error(site):
    install_fake_distribution(site, "claudeops-typo", """
        from claudeops import hookimpl

        @hookimpl
        def befor_session(session):
            pass
    """, "typo")
    with pytest.raises(pluggy.PluginValidationError, match="befor_session"):
        App.load(None, {}, builtins=CORE_ONLY)


def test_plugin_raising_in_a_hook_is_a_one_line_error_naming_the_plugin():
    class Exploding:
        @hookimpl
        def after_session(self, session, outcome):
            raise ValueError("disk full")

    app = App.load(None, {}, entry_points=False, builtins=CORE_ONLY)
    app.pm.register(Exploding(), name="exploding")
    with pytest.raises(PluginError) as error:
        app.hook.after_session(session=None, outcome=None)
    assert str(error.value) == "plugin 'exploding' failed in hook after_session: ValueError: disk full"


@pytest.mark.anyio
async def test_async_hook_failure_names_the_plugin_too():
    class AsyncExploding:
        @hookimpl
        async def before_session(self, session):
            raise RuntimeError("no network")

    app = App.load(None, {}, entry_points=False, builtins=())
    app.pm.register(AsyncExploding(), name="async-exploding")
    (pending,) = app.hook.before_session(session=None)
    with pytest.raises(PluginError, match="plugin 'async-exploding' failed in hook before_session"):
        await pending


def test_every_hook_is_documented():
    app = App.load(None, {}, entry_points=False, builtins=())
    for name in ("before_session", "on_assistant_text", "after_session", "configure", "register_marker_types",
                 "on_marker", "on_message", "register_migrations", "register_commands", "register_web",
                 "judge_memory_relation", "check_tool_use", "record_event", "register_settings"):
        spec = getattr(app.hook, name).spec
        assert spec is not None and len((spec.function.__doc__ or "").strip()) > 40, name
    assert app.hook.judge_memory_relation.spec.opts["firstresult"] is True
    assert app.hook.check_tool_use.spec.opts["firstresult"] is True


def test_every_hook_is_in_the_plugin_authors_guide_with_its_arguments():
    import inspect

    from claudeops import hookspecs

    guide = (Path(__file__).resolve().parent.parent / "docs" / "plugins.md").read_text()
    for name, function in inspect.getmembers(hookspecs, inspect.isfunction):
        if hasattr(function, "claudeops_spec"):
            signature = f"`{name}({', '.join(inspect.signature(function).parameters)})`"
            assert signature in guide, signature
