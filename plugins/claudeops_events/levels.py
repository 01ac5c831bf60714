"""Event levels: the three the dashboard shows, and the words models use for them.

Models write ``[EVENT:error]`` or ``[EVENT:healthy]`` as often as the canonical names, so the
level is normalised once, here, instead of every reader coping with synonyms.
"""

from __future__ import annotations

import logging

from claudeops import EVENT_LEVELS as LEVELS

log = logging.getLogger(__name__)

SYNONYMS: dict[str, str] = {
    "warn": "warning",
    "degraded": "warning",
    "error": "critical",
    "fatal": "critical",
    "failed": "critical",
    "down": "critical",
    "ok": "info",
    "healthy": "info",
    "success": "info",
}


def normalise_level(text: str) -> str:
    """``info``, ``warning`` or ``critical`` for ``text``; unknown words become ``info``.

    Unknown words are logged at debug level only: an odd level is not worth losing the event,
    nor worth a warning in every cron mail.
    """
    try:
        return parse_level(text)
    except ValueError:
        log.debug("unknown event level %r stored as info", text)
        return "info"


def parse_level(text: str) -> str:
    """The canonical level for a filter the operator typed; raises ``ValueError`` when unknown."""
    word = text.strip().lower()
    level = word if word in LEVELS else SYNONYMS.get(word)
    if level is None:
        raise ValueError(f"unknown level {text!r}: use info, warning or critical")
    return level
