"""Starts the Claude Code CLI so that it dies with the runner. Run as a script, never imported.

``python -I -S cli_launcher.py RUNNER_PID CLI [ARGUMENTS...]``

The SDK starts the CLI itself, as a plain child: a runner killed with SIGKILL (the OOM killer,
``kill -9``, a cron wrapper's timeout) would leave it running, still calling the model API with
nobody reading its answers. So the runner starts the CLI through this script, which

1. asks the kernel to SIGKILL it when its parent dies (``prctl(PR_SET_PDEATHSIG)``, which
   ``exec`` keeps), then checks the parent is still the runner (it may have died a moment ago);
2. makes itself the leader of a session of its own, so that what the CLI starts (a Bash tool's
   command) can be found and killed as one group by the next run (:mod:`claudeops.runner.orphans`);
3. becomes the CLI (``exec``): the same process, so the SDK's pipes and signals reach the CLI.

Only the standard library, and no site packages (``-S``): it starts in about 20 ms. Linux only;
the runner starts the CLI directly elsewhere.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1
EXIT_CANNOT_EXECUTE = 126
EXIT_NOT_FOUND = 127


def main(argv: list[str]) -> int:
    runner, command = int(argv[1]), argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        print(f"claudeops: cannot tie the Claude Code CLI to the runner (prctl: "
              f"{os.strerror(ctypes.get_errno())})", file=sys.stderr)
        return EXIT_CANNOT_EXECUTE
    if os.getppid() != runner:  # the runner died before the death signal was armed: nobody is listening
        return EXIT_CANNOT_EXECUTE
    os.setsid()
    try:
        os.execv(command[0], command)
    except OSError as exc:
        print(f"claudeops: cannot start the Claude Code CLI {command[0]}: {exc.strerror}", file=sys.stderr)
    return EXIT_NOT_FOUND


if __name__ == "__main__":
    sys.exit(main(sys.argv))
