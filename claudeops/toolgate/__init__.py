"""The tool gate: what a tool call would change, judged before it runs.

Tier-1 sessions and dry runs refuse every call this gate finds could change state; the cooldowns
plugin finds restarts through the same parse. Entry surface:

* :func:`mutating_reason` — why a tool call (``Bash``, ``Write``, …) would change state, or ``None``;
* :func:`mutating_command` — the same for one shell command line;
* :func:`simple_commands` — every simple command a command line runs, wrappers seen through;
* :func:`without_global_options` — a program's words with its global options removed.

Inside: ``shell`` tokenizes and unwraps command lines, ``argv`` reads a program's options,
``dry_run`` holds the policy, ``queries`` tells read-only SQL and redis commands, and
``inline_code`` judges ``python3 -c`` and friends.
"""

from claudeops.toolgate.argv import without_global_options
from claudeops.toolgate.dry_run import WRITING_TOOLS, mutating_command, mutating_reason
from claudeops.toolgate.shell import simple_commands

__all__ = ["WRITING_TOOLS", "mutating_command", "mutating_reason", "simple_commands", "without_global_options"]
