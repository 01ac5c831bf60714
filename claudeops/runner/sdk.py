"""The one module that may touch the Claude Agent SDK's private modules.

The SDK is pinned exactly (``pyproject.toml``) because the runner relies on a few of its
internals: the message parser (replay feeds recorded frames through it), the CLI subprocess
transport (its command line, to start the CLI through the launcher that ties it to the runner;
its process, stopped at once on a timeout or signal) and where the wheel keeps the bundled CLI.
Everything else imports the SDK's public names. Moving the pin means reading this file; a ruff
rule (``flake8-tidy-imports`` banned-api in ``pyproject.toml``, waived for this file alone) keeps
it the only one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterable, Callable
from contextlib import suppress
from pathlib import Path
from typing import Any

from claude_agent_sdk import ClaudeAgentOptions, CLINotFoundError
from claude_agent_sdk._errors import MessageParseError
from claude_agent_sdk._internal.message_parser import parse_message
from claude_agent_sdk._internal.transport.subprocess_cli import SubprocessCLITransport

from claudeops.runner.cli_location import bundled_cli_path

__all__ = ["CLITransport", "MessageParseError", "bundled_cli_path", "parse_message"]

LAUNCHER = Path(__file__).with_name("cli_launcher.py")
"""Starts the CLI so that the kernel kills it when the runner dies (Linux)."""


class CLITransport(SubprocessCLITransport):
    """The Claude Code CLI, started so that it dies with the runner, plus an immediate stop for
    timeouts and signals.

    ``on_start(pid)`` and ``on_exit()`` let the runner keep a trail to a CLI that outlived a run
    (:mod:`claudeops.runner.orphans`).
    """

    def __init__(self, prompt: str | AsyncIterable[dict[str, Any]], options: ClaudeAgentOptions, *,
                 on_start: Callable[[int], None] | None = None, on_exit: Callable[[], None] | None = None) -> None:
        super().__init__(prompt, options)
        self._on_start = on_start
        self._on_exit = on_exit

    def _build_command(self) -> list[str]:
        """The SDK's command line, behind :data:`LAUNCHER` on Linux.

        A CLI path that is not an executable file is refused here, as the SDK would when starting
        it directly (the launcher would otherwise start and only then fail to become the CLI).
        """
        command = super()._build_command()
        if not (os.path.isfile(command[0]) and os.access(command[0], os.X_OK)):
            raise CLINotFoundError(f"Claude Code not found at: {command[0]}")
        if not sys.platform.startswith("linux"):
            return command
        return [sys.executable, "-I", "-S", str(LAUNCHER), str(os.getpid()), *command]

    async def connect(self) -> None:
        await super().connect()
        if self._process is not None and self._on_start is not None:
            self._on_start(self._process.pid)

    async def close(self) -> None:
        process = self._process
        try:
            await super().close()
        finally:  # a CLI that survived even SIGKILL keeps its trail for the next run
            if self._on_exit is not None and (process is None or process.returncode is not None):
                self._on_exit()

    def stop_now(self) -> None:
        """SIGTERM the CLI now; ``_process`` is SDK-internal, which is why the SDK is pinned exactly."""
        process = self._process
        if process is not None and process.returncode is None:
            with suppress(ProcessLookupError):
                process.terminate()


