"""The Claude judge: a small model decides how a new memory relates to the ones it might restate.

Chosen with ``memory.judge = "claude"``; the offline judge stays the default and the fallback. For
each marker that cites no memory, one direct Messages API request (the ``anthropic`` package, not
a Claude Code CLI process, which would cost ~0.6 s of start-up per marker) asks the model about
every candidate memory of the marker's service and category at once (``request``). It
authenticates with the runner's ``ANTHROPIC_API_KEY`` and honours ``ANTHROPIC_BASE_URL``; a CLI
login or OAuth token (``CLAUDE_CODE_OAUTH_TOKEN``) cannot call the Messages API directly, so with
only that the judge is unavailable (``claudeops doctor`` says so). No key, a timeout
(``memory.judge_timeout_seconds``), an API error or an answer that does not follow the schema
make it step aside with a warning: the offline judge answers instead. Its cost, computed from the
response's usage (``pricing``), is added to the session's cost.

It runs in the marker handler before the store opens its write transaction (``upsert``), so the
database is never locked while the model thinks; the session's event loop waits for it, at most
the timeout.  One client serves the whole session (``session_client``): its connection to the API
stays open from one marker to the next instead of a new TLS handshake per marker, and it is closed
when the session ends (``close_session_client``).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

from claudeops import Config, Session
from claudeops_memory.claude_judge.pricing import api_model, cost_usd
from claudeops_memory.claude_judge.request import MalformedAnswer, read_verdicts, request_arguments
from claudeops_memory.settings import SECTION, MemorySettings
from claudeops_memory.verdict import JudgeVerdict

if TYPE_CHECKING:
    import anthropic

log = logging.getLogger(__name__)

API_KEY = "ANTHROPIC_API_KEY"
LOGIN_VARIABLES = ("CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN")
_WARNED = "claudeops_memory.claude_judge.unavailable_warned"
_CLIENT = "claudeops_memory.claude_judge.client"


def unavailable_reason(environ: Mapping[str, str]) -> str | None:
    """Why the Claude judge cannot be asked (``None`` when it can): it needs an API key."""
    if environ.get(API_KEY, "").strip():
        return None
    login = next((name for name in LOGIN_VARIABLES if environ.get(name, "").strip()), None)
    if login is not None:
        return (f"only a Claude Code login ({login}) is set, and the Claude judge calls the Messages API directly: "
                f"set {API_KEY}")
    return f"no {API_KEY} in the runner's environment"


def judge_model_of(config: Config) -> str:
    """The model to ask: ``memory.judge_model``, else the tier 1 model, aliases resolved."""
    settings: MemorySettings = config.section(SECTION)
    return api_model(settings.judge_model or config.tier(1).model)


def session_client(session: Session, timeout: float) -> anthropic.Anthropic:
    """The session's client, made on its first marker: later markers reuse its open connection."""
    client: anthropic.Anthropic | None = session.plugin_state.get(_CLIENT)
    if client is None:
        import anthropic  # ~0.3 s to import: only when the Claude judge is really asked

        client = anthropic.Anthropic(api_key=os.environ[API_KEY], base_url=os.environ.get("ANTHROPIC_BASE_URL") or None,
                                     timeout=timeout, max_retries=0)
        session.plugin_state[_CLIENT] = client
    return client


def close_session_client(session: Session) -> None:
    """Close the session's client, if the Claude judge made one (its connection is not left to the
    garbage collector)."""
    client: anthropic.Anthropic | None = session.plugin_state.pop(_CLIENT, None)
    if client is not None:
        client.close()


def ask_claude(session: Session, new: str, existing: list[str], service: str | None,
               category: str) -> list[JudgeVerdict | None] | None:
    """One verdict (or ``None``, left to the offline judge) per text of ``existing``; ``None`` for all
    when the judge is unavailable or fails, with a warning."""
    reason = unavailable_reason(os.environ)
    if reason is not None:
        if not session.plugin_state.get(_WARNED):  # once per session: every marker would say the same
            session.plugin_state[_WARNED] = True
            log.warning("memory.judge is claude, but the Claude judge is unavailable (%s); the offline judge "
                        "decides instead", reason)
        return None
    model = judge_model_of(session.config)
    settings: MemorySettings = session.config.section(SECTION)
    started = time.monotonic()
    import anthropic  # its error types; imported here, as in session_client, only when the judge is asked

    try:
        client = session_client(session, settings.judge_timeout_seconds)
        response = client.messages.create(**request_arguments(model, new, existing, service, category))
    except anthropic.APITimeoutError:
        log.warning("the Claude judge (%s) did not answer within memory.judge_timeout_seconds (%g s); the offline "
                    "judge decides instead", model, settings.judge_timeout_seconds)
        return None
    except anthropic.AnthropicError as exc:
        log.warning("the Claude judge (%s) failed: %s: %s; the offline judge decides instead", model,
                    type(exc).__name__, exc)
        return None
    cost = cost_usd(model, response.usage)
    session.add_cost(cost)
    log.info("Claude judge (%s): %d memories in %.1f s, %d input and %d output tokens, $%.6f", model, len(existing),
             time.monotonic() - started, response.usage.input_tokens, response.usage.output_tokens, cost)
    try:
        verdicts = read_verdicts(list(response.content), len(existing))
    except MalformedAnswer as exc:
        log.warning("the Claude judge's answer was malformed (%s); the offline judge decides instead", exc)
        return None
    missing = verdicts.count(None)
    if missing:
        log.warning("the Claude judge's answer left %d of %d memories without a well-formed verdict; the offline "
                    "judge decides those", missing, len(existing))
    return verdicts
