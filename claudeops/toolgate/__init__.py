"""The tool gate: what a tool call may run at tier 1 and in a dry run, and what it would restart.

Tier-1 sessions and dry runs allow a call only when it is known to only read (deny by default);
the cooldowns plugin finds restarts through the same parse. Entry surface:

* :func:`tool_refusal` — why a tool call (``Bash``, ``Write``, …) is refused in a read-only mode, or ``None``;
* :func:`command_refusal` — the same for one shell command line, as a :class:`Refusal`;
* :class:`AllowList` / :data:`BUILT_IN_LIST` — the allow-list, extended with ``[toolgate] allow`` entries
  (:func:`parse_entry`) and ``read_only_tools`` (:func:`parse_tool`; :data:`READ_ONLY_TOOLS` built in);
* :func:`simple_commands` — every simple command a command line runs, wrappers seen through;
* :func:`shell_commands` — the same as :class:`ShellCommand` (its ssh hosts, xargs input, redirections), with
  :class:`ComputedWord` marking what Bash computes when it runs;
* :func:`without_global_options` — a program's words with its global options removed.

Inside: ``syntax`` reads a command line with tree-sitter-bash, ``rules`` reads a program's
arguments against what it may be given, ``allowlist`` holds the read-only programs, ``judges``
the programs whose options alone do not decide, ``inline_code`` sed scripts and awk programs,
``queries`` read-only SQL and redis commands, ``gate`` puts them together; ``shell`` and
``argv`` unwrap commands for the cooldown patterns.
"""

from claudeops.toolgate.allowlist import (
    BUILT_IN_LIST,
    ENTRY_SYNTAX,
    READ_ONLY_TOOLS,
    WRITING_TOOLS,
    AllowList,
    Entry,
    parse_entry,
    parse_tool,
)
from claudeops.toolgate.argv import without_global_options
from claudeops.toolgate.gate import Refusal, command_refusal, tool_refusal
from claudeops.toolgate.shell import ShellCommand, shell_commands, simple_commands
from claudeops.toolgate.syntax import ComputedWord

__all__ = ["BUILT_IN_LIST", "ENTRY_SYNTAX", "READ_ONLY_TOOLS", "WRITING_TOOLS", "AllowList", "ComputedWord", "Entry",
           "Refusal", "ShellCommand", "command_refusal", "parse_entry", "parse_tool", "shell_commands",
           "simple_commands", "tool_refusal", "without_global_options"]
