"""The exit statuses of ``claudeops``, in one place: the CLI, ``claudeops run`` and the runner share them.

Cron and wrappers branch on these numbers, so they are part of the interface: ``run --help``
is written from :data:`EXIT_MEANINGS`, and a test holds the table in docs/runner.md to it.
"""

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_LOCKED = 75  # EX_TEMPFAIL: "try again later", which is exactly the situation
EXIT_INTERRUPTED = 130

EXIT_MEANINGS = {
    EXIT_OK: "every session completed or escalated",
    EXIT_FAILED: "a session failed, or the database could not be opened or written",
    EXIT_USAGE: "usage or configuration error",
    EXIT_LOCKED: "another run holds the lock (EX_TEMPFAIL: try later)",
    EXIT_INTERRUPTED: "interrupted (SIGTERM/SIGINT; the session is recorded as interrupted)",
}
"""What each status of ``claudeops run`` means, as its help and docs/runner.md say it."""
