"""The exit statuses of ``claudeops``, in one place: the CLI, ``claudeops run`` and the runner share them.

Cron and wrappers branch on these numbers, so they are part of the interface (see docs/runner.md).
"""

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_LOCKED = 75  # EX_TEMPFAIL: "try again later", which is exactly the situation
EXIT_INTERRUPTED = 130
