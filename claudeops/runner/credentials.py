"""Whether the Claude Code CLI will find credentials, checked before a real session starts.

The CLI runs with its own ``CLAUDE_CONFIG_DIR`` under the state dir, so a person's
``claude login`` does not carry over: an unattended runner needs its key in the environment.
Checking first turns "the model call failed after spawning the CLI" into one line that says
what to set, before any session row exists.
"""

from __future__ import annotations

from collections.abc import Mapping

from claudeops.config import ConfigError
from claudeops.redaction import CREDENTIAL_VARIABLES

PROVIDER_SWITCHES = ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX")
"""Cloud providers authenticate with their own credentials (AWS, Google), not an Anthropic key."""


class MissingCredentials(ConfigError):
    """No way for the CLI to authenticate; the message says what to set."""


def credential_source(environ: Mapping[str, str]) -> str | None:
    """The variable that will authenticate the CLI, or ``None`` when there is none."""
    for name in (*CREDENTIAL_VARIABLES, *PROVIDER_SWITCHES):
        if environ.get(name, "").strip():
            return name
    return None


def require_credentials(environ: Mapping[str, str], setting_sources: list[str]) -> None:
    """Raise :class:`MissingCredentials` unless the CLI can authenticate.

    With the ``user`` setting source loaded, an ``apiKeyHelper`` in the user's Claude Code
    settings may provide the key, so the check steps aside.
    """
    if credential_source(environ) is None and "user" not in setting_sources:
        raise MissingCredentials("no Claude credentials: set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN) in the "
                                 "runner's environment, or replay a recording with --replay FILE")
