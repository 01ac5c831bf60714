"""The exit statuses of every ``claudeops`` command, in one place (core and plugin commands alike).

Cron and wrappers branch on these numbers, so they are part of the interface: ``run --help``
is written from :data:`EXIT_MEANINGS`, a test holds the table in docs/runner.md to it, and a
test fails on an exit status written as a bare number anywhere in the code. Plugins import the
names from the ``claudeops`` API. click's own errors agree with the table: a
``click.UsageError`` (a bad flag or value) exits 2, a ``click.ClickException`` 1.
"""

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_NEWER_DATABASE = 65  # EX_DATAERR: the data is not what this version can use; retrying will not help
EXIT_LOCKED = 75  # EX_TEMPFAIL: "try again later", which is exactly the situation
EXIT_REFUSED = 77  # EX_NOPERM: the run was not permitted to start a session (a spend cap)
EXIT_INTERRUPTED = 130

EXIT_MEANINGS = {
    EXIT_OK: "success (run: every session completed or escalated)",
    EXIT_FAILED: "failed: a session failed, a check failed (doctor), or something claudeops needs could not "
                 "be used (the database, the dashboard's port)",
    EXIT_USAGE: "usage or configuration error: a bad flag or value, an id or name that matches nothing, a file "
                "that would be overwritten, an unreadable config or --replay file, a database URL no driver knows, "
                "no Claude credentials for a real run",
    EXIT_NEWER_DATABASE: "the database was written by a newer claudeops (or plugin); nothing was changed: upgrade",
    EXIT_LOCKED: "another run holds the lock (EX_TEMPFAIL: try later)",
    EXIT_REFUSED: "a session was not started: a plugin refused it, e.g. a spend cap was reached (EX_NOPERM)",
    EXIT_INTERRUPTED: "interrupted (SIGTERM/SIGINT; the session is recorded as interrupted)",
}
"""What each status means, for every command, as ``run --help``, docs/runner.md and the README say it."""
