"""``claudeops memories list`` at 1k, 10k, 100k and 1M memories: a page, and every memory streamed
as JSON, with the peak memory of the process (issue 18 item 6).

Usage: ``python bench/memory_list.py [SIZES]`` (default ``1k,10k,100k,1M``).

Each command runs as its own process on a private copy of the cached database
(:func:`memory_data.cached_database`), its output read and thrown away; the figures are its wall
time and its peak resident memory (``ru_maxrss`` of the child). Target: constant memory at 1M
(``--limit 0 --json`` streams in keyset pages, so its peak must not grow with the table).
Before issue 18 listing 1M took 7.2 s and 805 MB.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from arguments import one_argument
from memory_data import SIZES, copy_database, parse_sizes, size_label

PYTHON = sys.executable
GROWTH_LIMIT_MB = 20.0
"""How much more the streamed listing of the largest size may use than that of the smallest."""


def run(command: list[str], environ: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of ``command`` in a child of its own."""
    started = time.perf_counter()
    child = subprocess.Popen(command, env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - started
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {child.returncode}")
    return elapsed, usage.ru_maxrss / 1024


def main(sizes: tuple[int, ...]) -> int:
    print(f"{'size':>5}  {'list (page of 100)':>20}  {'list --json --limit 0':>24}")
    streamed = {}
    for rows in sizes:
        with tempfile.TemporaryDirectory() as folder:
            copy_database(rows, Path(folder))
            config = Path(folder) / "config.toml"
            config.write_text("")
            environ = {**os.environ, "CLAUDEOPS_STATE_DIR": folder, "CLAUDEOPS_CONFIG": str(config)}
            claudeops = [PYTHON, "-m", "claudeops", "memories", "list"]
            run(claudeops, environ)  # the first run after the copy pays for reading the file
            page = run(claudeops, environ)
            every = run([*claudeops, "--json", "--limit", "0"], environ)
            streamed[rows] = every[1]
        print(f"{size_label(rows):>5}  {page[0]:7.2f} s {page[1]:6.0f} MB  {every[0]:10.2f} s {every[1]:6.0f} MB")
    growth = streamed[max(sizes)] - streamed[min(sizes)]
    flat = growth <= GROWTH_LIMIT_MB
    print(f"peak of the streamed listing, {size_label(max(sizes))} vs {size_label(min(sizes))}: {growth:+.0f} MB "
          f"(target: constant, <= {GROWTH_LIMIT_MB:g} MB more): {'met' if flat else 'NOT met'}")
    return 0 if flat else 1


if __name__ == "__main__":
    sys.exit(main(one_argument(__doc__, "SIZES", parse_sizes, SIZES)))
