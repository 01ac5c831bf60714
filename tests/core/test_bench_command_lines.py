"""The benches a newcomer runs by hand: ``--help`` explains them, a bad argument is one line.

Only the command line is exercised (argparse exits before any database is built); the benches
themselves are run by hand, never timed in the suite (docs/testing.md).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
WITH_ONE_ARGUMENT = sorted(path.name for path in BENCH.glob("*.py") if "one_argument(__doc__" in path.read_text())


def _run(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(BENCH / name), *args], capture_output=True, text=True, timeout=60,
                          cwd=BENCH.parent)


def test_the_benches_with_one_argument_are_found() -> None:
    assert {"memory_upsert.py", "memory_judge_scale.py", "startup.py"} <= set(WITH_ONE_ARGUMENT)


@pytest.mark.parametrize("name", WITH_ONE_ARGUMENT)
def test_help_shows_what_the_bench_measures_and_a_bad_value_is_one_line(name: str) -> None:
    helped = _run(name, "--help")
    assert helped.returncode == 0 and helped.stdout.startswith("usage:"), helped.stderr
    docstring = ast.get_docstring(ast.parse((BENCH / name).read_text()))
    assert docstring and docstring.splitlines()[0] in helped.stdout, helped.stdout
    bad = _run(name, "1x")
    assert bad.returncode == 2 and "Traceback" not in bad.stderr, bad.stderr
    assert bad.stderr.strip().splitlines()[-1].endswith("invalid value '1x'"), bad.stderr
