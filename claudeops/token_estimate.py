"""The one token estimate of a prompt section: SPEC-0015's characters / 4, rounded up.

Every budgeted section (the memory block, the environment) is cut by it, so they agree on what
a token is and none of them ever exceeds its budget.
"""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """Tokens of ``text``: characters / 4, rounded up so a budget is never exceeded."""
    return estimate_tokens_of(len(text))


def estimate_tokens_of(chars: int) -> int:
    """:func:`estimate_tokens` of a text ``chars`` characters long, for blocks not rendered yet."""
    return math.ceil(chars / CHARS_PER_TOKEN)
