"""One-line reasons for sessions that did not complete, as cron mails and the dashboard show them.

The SDK reports trouble in several places: an ``AssistantMessage.error`` code, an ``is_error``
``ResultMessage`` (followed by ``ResultError`` when the CLI exits), or an exception with no
result at all (CLI missing, CLI crashed, unreadable output). These functions turn whichever
arrived into a short sentence an operator can act on.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from claude_agent_sdk import (
    CLIConnectionError,
    CLIJSONDecodeError,
    CLINotFoundError,
    ProcessError,
    ResultError,
    ResultMessage,
)

from claudeops.config import Config
from claudeops.plugins import PluginError
from claudeops.runner.cli_location import configured_cli_path
from claudeops.runner.sdk import MessageParseError, bundled_cli_path
from claudeops.store import StoreError

AUTH_STATUSES = frozenset({401, 403})
AUTH_HINT = "check ANTHROPIC_API_KEY or CLAUDE_CODE_OAUTH_TOKEN in the runner's environment"
_API_ERROR_PREFIX = re.compile(r"^API Error:\s*", re.IGNORECASE)


def result_failure(result: ResultMessage, api_error: str | None, max_turns: int | None = None) -> str:
    """Why an ``is_error`` result ended the session.

    For the turn limit the reason quotes ``max_turns``, the setting the operator can change: the
    CLI's own ``num_turns`` counts differently (2 when the limit of 1 stops it).
    """
    if result.subtype == "error_max_turns":
        return f"max turns reached (max_turns is {max_turns})" if max_turns else "max turns reached"
    if result.subtype == "error_max_budget_usd":
        cost = f"${result.total_cost_usd:.2f}" if result.total_cost_usd is not None else "the limit"
        return f"budget exceeded ({cost} spent)"
    status = result.api_error_status
    detail = _first_line(result.errors or []) or _first_line([result.result or ""])
    detail = _API_ERROR_PREFIX.sub("", detail)
    if status in AUTH_STATUSES or api_error == "authentication_failed":
        what = f"API status {status}" if status else detail or "no details"
        return f"authentication failed ({what}): {AUTH_HINT}"
    if status is not None:
        return f"API error status {status}"
    if result.subtype not in ("success", None) and not detail:
        return f"Claude Code ended with {result.subtype}"
    return f"API error: {detail}" if detail else "Claude Code reported an error without details"


def cli_not_found(config: Config) -> str:
    """Why the CLI could not be started, naming the setting that chooses it and where that was set."""
    if config.core.cli_path:
        return (f"the Claude Code CLI was not found at {configured_cli_path(config)} (cli_path, from "
                f"{config.sources.get('cli_path', 'default')}); set cli_path (CLAUDEOPS_CLI_PATH) to the claude "
                "executable, or empty for the one bundled with claude-agent-sdk")
    return (f"the Claude Code CLI was not found: the one bundled with claude-agent-sdk ({bundled_cli_path()}) is "
            "missing and there is no claude on PATH; reinstall claude-agent-sdk, or set cli_path "
            "(CLAUDEOPS_CLI_PATH) to a claude executable")


def exception_failure(exc: BaseException, stderr_tail: Sequence[str] = (), config: Config | None = None) -> str:
    """Why an exception ended the session before (or instead of) a usable result."""
    if isinstance(exc, CLINotFoundError):
        if config is not None:
            return cli_not_found(config)
        return f"Claude Code CLI not found ({_first_line([str(exc)])}); set cli_path (CLAUDEOPS_CLI_PATH)"
    if isinstance(exc, ResultError):
        return _first_line(exc.errors) or _first_line([exc.result or ""]) or str(exc)
    if isinstance(exc, ProcessError):
        detail = _first_line(list(reversed(stderr_tail)))
        code = f"exit code {exc.exit_code}" if exc.exit_code is not None else "an error"
        return f"Claude Code exited with {code}" + (f": {detail}" if detail else "")
    if isinstance(exc, CLIJSONDecodeError):
        return f"unreadable output from Claude Code: {exc}"
    if isinstance(exc, MessageParseError):
        return f"unreadable message in the stream: {exc}"
    if isinstance(exc, PluginError | StoreError):  # already one line naming the plugin, or what was written
        return _first_line([str(exc)]) or type(exc).__name__
    if isinstance(exc, CLIConnectionError):
        return f"cannot talk to Claude Code: {_first_line([str(exc)])}"
    return f"{type(exc).__name__}: {_first_line([str(exc)]) or 'no details'}"


def _first_line(texts: Sequence[str]) -> str:
    for text in texts:
        line = text.strip().splitlines()[0].strip() if text and text.strip() else ""
        if line:
            return line[:300]
    return ""
