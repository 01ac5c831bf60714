"""``ClaudeAgentOptions`` for one session, from the tier's settings and the session's sections.

Everything the CLI is told comes from configuration, never from the parent environment by
accident: the model is always explicit (the CLI default is the most expensive model), the
filesystem settings are off unless configured (``setting_sources``), the CLI keeps its state in
``<state_dir>/claude-config`` so sessions do not mix with a person's own Claude Code, and the
switches that stop telemetry, update checks and error reports are always set, because an
unattended runner should talk to the model API and nothing else. The CLI keeps no copy of the
conversation (``--no-session-persistence``): it would be an unredacted transcript of every
session under ``claude-config/projects/``, and claudeops never resumes a session; the redacted
transcript is ours (:mod:`claudeops.runner.transcript`).

The SDK starts the CLI with the runner's whole environment under ``options.env`` (it cannot
remove a variable, only set one), and the agent's tools inherit it: ``cat /proc/self/environ``
at tier 1 would show a ``CLAUDEOPS_NOTIFY_URLS`` bot token. So every ``CLAUDEOPS_*`` variable
that sets a secret setting, or that sets no setting we know of (a disabled plugin's, a typo's:
what cannot be judged is hidden), is overridden with an empty value (:func:`hidden_variables`).
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from claude_agent_sdk import ClaudeAgentOptions, HookMatcher

from claudeops.config import ENV_PREFIX, Config
from claudeops.session import Session

log = logging.getLogger(__name__)
cli_log = logging.getLogger("claudeops.cli_stderr")

QUIET_CLI_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
}
"""The four switches that keep the CLI off every host but the model API (measured with strace)."""

NO_SESSION_PERSISTENCE = "no-session-persistence"
"""The CLI flag that keeps it from writing its own, unredacted copy of the conversation to disk."""

PreToolUseCallback = Callable[[Any, str | None, Any], Any]
SHOWN_TO_THE_CLI = frozenset({"CLAUDEOPS_CONFIG"})
"""``CLAUDEOPS_*`` variables that are no setting and hold no secret (a path)."""


def claude_config_dir(state_dir: Path) -> Path:
    return state_dir / "claude-config"


def agent_cwd(config: Config) -> Path:
    """The agent's working directory: ``cwd`` from config, else ``<state_dir>/work``."""
    return Path(config.core.cwd).expanduser() if config.core.cwd else config.state_dir / "work"


def configured_cli_path(config: Config) -> str | None:
    """``cli_path`` as the SDK should get it (a bare name looked up on ``PATH``), or ``None``: the
    SDK's own search, which prefers the CLI bundled in its wheel, then ``claude`` on ``PATH``."""
    path = config.core.cli_path.strip()
    if not path:
        return None
    if os.sep not in path:
        return shutil.which(path) or path
    return str(Path(path).expanduser())


def hidden_variables(config: Config, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """An empty value for each ``CLAUDEOPS_*`` variable of ``environ`` (the runner's) the CLI must not see:
    those of secret settings, and any that names no setting of ``config`` besides :data:`SHOWN_TO_THE_CLI`."""
    environ = os.environ if environ is None else environ
    shown = config.variables(secret=False) | SHOWN_TO_THE_CLI
    return {name: "" for name in environ if name.startswith(ENV_PREFIX) and name not in shown}


def system_prompt_append(session: Session) -> str:
    """The sections ``before_session`` hooks contributed, in their documented order."""
    return "\n\n".join(section.text for section in session.ordered_sections())


def build_options(session: Session, *, pre_tool_use: PreToolUseCallback | None,
                  stderr: Callable[[str], None] | None = None) -> ClaudeAgentOptions:
    """The SDK options for ``session``: its tier's limits, our sections, an isolated CLI state.

    ``pre_tool_use`` is the tool gate, asked before every tool call; ``None`` when nothing would
    refuse anything (no ``check_tool_use`` plugin, not a dry run), which spares the CLI a control
    round trip per tool call.
    """
    config = session.config
    tier = session.settings
    cwd = agent_cwd(config)
    config_dir = claude_config_dir(config.state_dir)
    for folder in (cwd, config_dir):
        folder.mkdir(parents=True, exist_ok=True)
    # The two ignores below: config holds validated plain strings where the SDK wants its Literal
    # types; tests/core/test_types.py checks that config accepts exactly the SDK's values.
    return ClaudeAgentOptions(
        model=tier.model,
        system_prompt={"type": "preset", "preset": "claude_code", "append": system_prompt_append(session)},
        allowed_tools=list(tier.allowed_tools),
        disallowed_tools=list(tier.disallowed_tools),
        permission_mode=tier.permission_mode,  # type: ignore[arg-type]
        max_turns=tier.max_turns,
        max_budget_usd=tier.max_budget_usd if tier.max_budget_usd > 0 else None,
        cwd=str(cwd),
        setting_sources=list(config.core.setting_sources),  # type: ignore[arg-type]
        stderr=stderr or log_cli_stderr,
        env={**hidden_variables(config), **QUIET_CLI_ENV, "CLAUDE_CONFIG_DIR": str(config_dir)},
        cli_path=configured_cli_path(config),
        extra_args={NO_SESSION_PERSISTENCE: None},
        hooks={"PreToolUse": [HookMatcher(matcher=None, hooks=[pre_tool_use])]} if pre_tool_use else None,
    )


def log_cli_stderr(line: str) -> None:
    """Default ``stderr`` callback: the CLI's diagnostics go to our log, one record per line."""
    cli_log.info("claude: %s", line)
