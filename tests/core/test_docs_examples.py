"""The Python examples in the docs import what they name from claudeops and the dashboard host:
a name that moves breaks this test, not the reader's first try. (Imports of the plugin an example
is writing, such as ``from claudeops_ticket import pages``, are the reader's own code.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
PYTHON_BLOCK = re.compile(r"^[ \t]*```python\n(.*?)^[ \t]*```", re.DOTALL | re.MULTILINE)


def imports_of(block: str) -> list[ast.stmt]:
    """The import statements of an example; a block that is a fragment is read line by line."""
    try:
        tree = ast.parse(block)
    except SyntaxError:
        tree = ast.Module(body=[], type_ignores=[])
        for line in block.splitlines():
            if line.lstrip().startswith(("from ", "import ")):
                tree.body.extend(ast.parse(line.strip()).body)
    return [node for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)) and ours(node)]


def ours(node: ast.Import | ast.ImportFrom) -> bool:
    modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
    return any(module.split(".")[0] in ("claudeops", "claudeops_web") for module in modules)


def examples() -> list[tuple[str, ast.stmt]]:
    found = []
    for document in DOCUMENTS:
        for block in PYTHON_BLOCK.findall(document.read_text()):
            found.extend((f"{document.name}: {ast.unparse(node)}", node) for node in imports_of(block))
    return found


@pytest.mark.parametrize(("where", "statement"), examples(), ids=[where for where, _ in examples()])
def test_a_docs_example_imports_what_it_names(where: str, statement: ast.stmt) -> None:
    module = ast.Module(body=[statement], type_ignores=[])
    exec(compile(module, where, "exec"), {})  # an import statement from our own docs
