"""The one module that may touch the Claude Agent SDK's private modules.

The SDK is pinned exactly (``pyproject.toml``) because the runner relies on a few of its
internals: the message parser (replay feeds recorded frames through it), the CLI subprocess
transport (stopped at once on a timeout or signal) and where the wheel keeps the bundled CLI.
Everything else imports the SDK's public names. Moving the pin means reading this file; a ruff
rule (``flake8-tidy-imports`` banned-api in ``pyproject.toml``, waived for this file alone) keeps
it the only one.
"""

from __future__ import annotations

from contextlib import suppress
from pathlib import Path

import claude_agent_sdk
from claude_agent_sdk._errors import MessageParseError
from claude_agent_sdk._internal.message_parser import parse_message
from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

__all__ = ["CLITransport", "MessageParseError", "bundled_cli_path", "parse_message"]


class CLITransport(SubprocessCLITransport):
    """The bundled Claude Code CLI, plus an immediate stop for timeouts and signals."""

    def stop_now(self) -> None:
        """SIGTERM the CLI now; ``_process`` is SDK-internal, which is why the SDK is pinned exactly."""
        process = self._process
        if process is not None and process.returncode is None:
            with suppress(ProcessLookupError):
                process.terminate()


def bundled_cli_path() -> Path:
    """Where the wheel keeps the Claude Code CLI it bundles (the SDK prefers it to one on PATH)."""
    return Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
