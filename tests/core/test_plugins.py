"""Plugin host: built-ins, entry-point discovery, disabling, broken plugins, hook errors."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pluggy
import pytest
from click.testing import CliRunner, Result

from claudeops import hookimpl
from claudeops.app import App
from claudeops.cli.group import build_cli
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


TYPO_PLUGIN = """
    from claudeops import hookimpl

    @hookimpl
    def before_sesion(session):
        pass
"""
TYPO_ERROR = "plugin 'typo' failed to load: unknown hook 'before_sesion' (did you mean before_session?)"


def test_plugin_with_a_misspelt_hook_is_reported_by_name_and_left_out_while_others_load(site, caplog):
    install_fake_distribution(site, "claudeops-typo", TYPO_PLUGIN, "typo")
    install_fake_distribution(site, "claudeops-good", GOOD_PLUGIN, "good")
    app = App.load(None, {}, builtins=CORE_ONLY)
    assert app.load_report.errors == [TYPO_ERROR]
    assert TYPO_ERROR in caplog.messages
    assert app.pm.get_plugin("typo") is None
    assert app.pm.get_plugin("good") is not None


def test_misspelt_hook_in_a_plugin_registered_by_claudeops_itself_is_still_an_error():
    """A built-in (or a test's own plugin object) with an unknown hook is a bug to fix, not a plugin to skip."""
    class Typo:
        @hookimpl
        def after_sesion(self, session):
            pass

    with pytest.raises(pluggy.PluginValidationError, match="after_sesion"):
        App.load(None, {}, entry_points=False, builtins=(), extra_plugins=[Typo()])


def test_plugin_failing_hook_validation_is_one_line_and_keeps_none_of_its_hooks(site):
    """pluggy's message spans lines; the report is one, and the hook checked before the bad one never runs."""
    install_fake_distribution(site, "claudeops-halfway", """
        from claudeops import hookimpl

        @hookimpl
        def after_session(session, outcome):
            pass

        @hookimpl
        def before_session(session, weather):
            pass
    """, "halfway")
    app = App.load(None, {}, builtins=CORE_ONLY)
    [error] = app.load_report.errors
    assert error.startswith("plugin 'halfway' failed to load: PluginValidationError: ") and "\n" not in error
    assert app.pm.get_plugin("halfway") is None
    assert not app.hook.after_session.get_hookimpls()


def invoke(app: App, *args: str) -> Result:
    return CliRunner().invoke(build_cli(app), list(args), catch_exceptions=False)


def test_plugins_lists_a_plugin_that_failed_to_load_with_its_error_and_exits_1(site):
    install_fake_distribution(site, "claudeops-broken", "raise ImportError('needs libfoo')\n", "broken")
    app = App.load(None, {}, builtins=CORE_ONLY)
    listed = invoke(app, "plugins")
    assert "broken 1.2.3  [entry point (claudeops-broken)]\n" \
           "    FAILED: plugin 'broken' failed to load: ImportError: needs libfoo\n" in listed.stdout
    as_json = invoke(app, "plugins", "--json")
    assert {entry["name"]: entry for entry in json.loads(as_json.stdout)}["broken"] == {
        "name": "broken", "source": "entry point (claudeops-broken)", "version": "1.2.3", "hooks": [],
        "builtin": False, "status": "failed", "error": "plugin 'broken' failed to load: ImportError: needs libfoo"}
    assert (listed.exit_code, as_json.exit_code) == (1, 1)
    assert listed.stderr == as_json.stderr == ""  # loading logged the failure once; the listing does not repeat it


def test_doctor_fails_on_a_plugin_with_a_misspelt_hook(site):
    install_fake_distribution(site, "claudeops-typo", TYPO_PLUGIN, "typo")
    result = invoke(App.load(None, {}, builtins=CORE_ONLY), "doctor")
    assert f"FAIL plugins: {TYPO_ERROR}" in result.stdout.splitlines()
    assert result.exit_code == 1


def test_disabling_a_name_no_plugin_has_is_a_warning(site, caplog):
    install_fake_distribution(site, "claudeops-good", GOOD_PLUGIN, "good")
    app = App.load(None, {"CLAUDEOPS_DISABLE_PLUGINS": "nosuchplugin,goood,claudeops_memory"}, builtins=CORE_ONLY)
    assert app.load_report.warnings == [
        "plugins.disable: no plugin is named 'goood' (did you mean good?); nothing disabled",
        "plugins.disable: no plugin is named 'nosuchplugin'; nothing disabled",
    ]
    assert app.load_report.warnings == [record.message for record in caplog.records if record.levelname == "WARNING"]
    assert app.pm.get_plugin("good") is not None
    doctor = invoke(app, "doctor").stdout.splitlines()
    assert "warn plugins: plugins.disable: no plugin is named 'nosuchplugin'; nothing disabled" in doctor


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

    guide = (Path(__file__).resolve().parents[2] / "docs" / "plugins.md").read_text()
    for name, function in inspect.getmembers(hookspecs, inspect.isfunction):
        if hasattr(function, "claudeops_spec"):
            signature = f"`{name}({', '.join(inspect.signature(function).parameters)})`"
            assert signature in guide, signature


def test_every_name_of_the_plugin_api_is_in_the_plugin_authors_guide():
    import claudeops

    guide = (Path(__file__).resolve().parents[2] / "docs" / "plugins.md").read_text()
    assert [name for name in claudeops.__all__ if f"`{name}" not in guide] == []
