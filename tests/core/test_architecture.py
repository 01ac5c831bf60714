"""The shape of the code, checked: no import circles, no layer reaching back up, plugins only
through the declared API.

The import graph is read with ``ast`` from the source, counting imports inside functions too
(a circle dodged by a function-level import is still a circle); imports under ``if
TYPE_CHECKING:`` are left out because they never run. Run it alone with
``.venv/bin/python -m pytest tests/core/test_architecture.py``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import claudeops

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "claudeops"
PLUGIN_PACKAGES = {
    "claudeops_memory": REPO / "plugins" / "claudeops_memory",
    "claudeops_events": REPO / "plugins" / "claudeops_events",
    "claudeops_cooldowns": REPO / "plugins" / "claudeops_cooldowns",
    "claudeops_inventory": REPO / "plugins" / "claudeops_inventory",
    "claudeops_alerts": REPO / "plugins" / "claudeops_alerts",
    "claudeops_notify": REPO / "plugins" / "claudeops_notify",
    "claudeops_health": REPO / "plugins" / "claudeops_health",
    "claudeops_budget": REPO / "plugins" / "claudeops_budget",
    "claudeops_metrics": REPO / "plugins" / "claudeops_metrics",
    "claudeops_web": REPO / "web" / "claudeops_web",
    "claudeops_ticket": REPO / "examples" / "claudeops-ticket" / "claudeops_ticket",
    "claudeops.default_plugins": CORE / "default_plugins",
}
HOST_PLUGIN = "claudeops_web"
"""The dashboard host: the one plugin other plugins may import (page contributions, helpers)."""

LAYERS = {
    "claudeops.toolgate": {"claudeops.toolgate"},
    "claudeops.runner": {"claudeops.runner", "claudeops.toolgate", "<machinery>"},
    "claudeops.cli": {"claudeops.cli", "claudeops.runner", "claudeops.toolgate", "<machinery>"},
    "<machinery>": {"<machinery>"},
}
"""What each part of the core may import: the tool gate is self-contained, the runner builds on the
machinery and the gate, the command line on everything; the machinery (app, config, store, …)
imports none of the three. The API package, ``testing`` and the default plugins sit on top."""
TOP = {"claudeops", "claudeops.testing", "claudeops.__main__"}


def module_name(path: Path, base: Path, package: str) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([package, *parts])


def core_modules() -> dict[str, Path]:
    return {module_name(path, CORE, "claudeops"): path for path in CORE.rglob("*.py")}


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports(path: Path, module: str) -> Iterator[tuple[str, str | None, int]]:
    """``(module, name, line)`` for every import that runs: ``name`` is the imported name of a
    ``from`` import, ``None`` for a plain ``import``. Relative imports are made absolute."""
    is_package = path.name == "__init__.py"

    def visit(node: ast.AST) -> Iterator[tuple[str, str | None, int]]:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                yield from visit(child)
            return
        if isinstance(node, ast.Import):
            yield from ((alias.name, None, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".") if is_package else module.split(".")[:-1]
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            yield from ((base, alias.name, node.lineno) for alias in node.names)
        for child in ast.iter_child_nodes(node):
            yield from visit(child)

    yield from visit(ast.parse(path.read_text(), str(path)))


def import_graph() -> dict[str, set[str]]:
    """Core module → the core modules it imports (a ``from package import submodule`` counts as the submodule)."""
    modules = core_modules()
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets = set()
        for target, name, _ in imports(path, module):
            if name is not None and f"{target}.{name}" in modules:
                target = f"{target}.{name}"
            if target in modules and target != module:
                targets.add(target)
        graph[module] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def layer(module: str) -> str | None:
    if module in TOP or module.startswith("claudeops.default_plugins"):
        return None
    for part in ("claudeops.toolgate", "claudeops.runner", "claudeops.cli"):
        if module == part or module.startswith(part + "."):
            return part
    return "<machinery>"


def test_the_core_has_no_import_circle() -> None:
    assert circles(import_graph()) == []


def test_circles_are_found_including_imports_inside_functions() -> None:
    """The check itself: a circle closed by a function-level import is one."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    source = Path(claudeops.__file__).parent / "runner" / "chain.py"
    assert any(name == "read_checked_recording" or target.endswith("replay")
               for target, name, _ in imports(source, "claudeops.runner.chain"))


def test_no_part_of_the_core_reaches_back_up() -> None:
    graph = import_graph()
    wrong = [f"{module} imports {target}" for module, targets in sorted(graph.items())
             for target in sorted(targets)
             if (own := layer(module)) is not None and (theirs := layer(target)) is not None
             and theirs not in LAYERS[own]]
    assert wrong == []


def test_nothing_in_the_core_imports_the_api_package_or_a_plugin() -> None:
    """The API package re-exports the core; a core module importing it (or a plugin) closes a circle."""
    wrong = []
    modules = core_modules()
    for module, path in modules.items():
        if module in TOP or module.startswith("claudeops.default_plugins"):
            continue
        for target, name, line in imports(path, module):
            api_package = target == "claudeops" and f"claudeops.{name}" not in modules
            if api_package or target.split(".")[0] in PLUGIN_PACKAGES:
                wrong.append(f"{path.relative_to(REPO)}:{line} imports {target}")
    assert wrong == []


def plugin_import_problems(package: str, folder: Path) -> Iterator[str]:
    """Imports of a plugin that reach past the declared API or into another plugin."""
    api = set(claudeops.__all__)
    own = package.split(".")[0] if package.startswith("claudeops_") else package
    for path in sorted(folder.rglob("*.py")):
        module = module_name(path, folder, package)
        for target, name, line in imports(path, module):
            where = f"{path.relative_to(folder.parent)}:{line}"
            top = target.split(".")[0]
            if target == "claudeops":
                if name not in api:
                    yield f"{where} imports {name!r}, which claudeops.__all__ does not declare"
            elif target.startswith(own + ".") or target == own:
                continue
            elif top == "claudeops":
                yield f"{where} imports the core module {target} (use `from claudeops import ...`)"
            elif top in PLUGIN_PACKAGES and top not in (own, HOST_PLUGIN):
                yield f"{where} imports the plugin {top}"


@pytest.mark.parametrize("package", sorted(PLUGIN_PACKAGES))
def test_plugins_import_only_the_declared_api(package: str) -> None:
    assert list(plugin_import_problems(package, PLUGIN_PACKAGES[package])) == []


def test_the_api_check_catches_a_plugin_reaching_into_the_core(tmp_path: Path) -> None:
    plugin = tmp_path / "claudeops_bad"
    plugin.mkdir()
    (plugin / "__init__.py").write_text(
        "from claudeops import hookimpl, Session\n"
        "from claudeops import not_a_public_name\n"
        "def later():\n    from claudeops.store import db\n"
        "from claudeops_memory import repository\n")
    problems = list(plugin_import_problems("claudeops_bad", plugin))
    assert len(problems) == 3, problems
    assert "not_a_public_name" in problems[0] and "claudeops.store" in problems[1] and "claudeops_memory" in problems[2]


def test_every_declared_api_name_exists() -> None:
    missing = [name for name in claudeops.__all__ if not hasattr(claudeops, name)]
    assert missing == []


def test_only_the_sdk_module_imports_private_sdk_modules() -> None:
    """``claudeops/runner/sdk.py`` is the one place; ruff's banned-api rule says so too, this
    checks every part of the repository ruff might be told to skip."""
    offenders = []
    for path in [*CORE.rglob("*.py"), *REPO.joinpath("plugins").rglob("*.py"), *REPO.joinpath("web").glob(
            "claudeops_web/**/*.py"), *REPO.joinpath("tests").rglob("*.py"), *REPO.joinpath("bench").rglob("*.py")]:
        if path == CORE / "runner" / "sdk.py":
            continue
        for target, _, line in imports(path, "x"):
            if target.startswith("claude_agent_sdk._"):
                offenders.append(f"{path.relative_to(REPO)}:{line} {target}")
    assert offenders == []


def _bare_exit_statuses(path: Path) -> Iterator[str]:
    """``sys.exit(3)``, ``ctx.exit(1)``, ``fail(msg, 2)``, ``SystemExit(2)``: a status as a bare number."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if name in ("exit", "SystemExit", "fail", "_exit"):
            arguments = [*node.args[1:]] if name == "fail" else [*node.args]
            arguments += [keyword.value for keyword in node.keywords if keyword.arg in ("code", "status")]
            if any(isinstance(argument, ast.Constant) and isinstance(argument.value, int) for argument in arguments):
                yield f"{path.relative_to(REPO)}:{node.lineno}"


def test_every_exit_status_comes_from_the_one_table() -> None:
    """``claudeops/exit_codes.py`` names every status; a bare number would drift from the docs."""
    sources = [*CORE.rglob("*.py"), *(path for folder in PLUGIN_PACKAGES.values() for path in folder.rglob("*.py"))]
    assert [where for path in sources for where in _bare_exit_statuses(path)] == []
