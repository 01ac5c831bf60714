"""Make the checkout start like an installed claudeops: its own modules byte-compiled.

``pip install claudeops`` byte-compiles every module it installs, and ``.ci/setup`` compiles the
dependencies; an editable checkout is compiled only as Python writes caches, which it never does
where ``PYTHONDONTWRITEBYTECODE`` is set (CI, agents' shells). A start-up bench run there would
time the compiler (about 0.2 s of every ``claudeops run``), not claudeops. A stale cache is never
used (Python compares it with the source), so compiling here changes nothing else.
"""

from __future__ import annotations

import compileall
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("claudeops", "plugins", "web/claudeops_web", "examples/claudeops-ticket/claudeops_ticket")


def compile_project() -> None:
    for package in PACKAGES:
        if not compileall.compile_dir(REPO / package, quiet=1):
            raise SystemExit(f"cannot byte-compile {package}")
