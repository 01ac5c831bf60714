"""Suggestions for misspelt names (hooks, plugin names, environment variables).

A typo in a name claudeops does not know is reported rather than ignored; naming the closest
known name turns that report into the fix.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(word: str, known: Iterable[str], prefix: str = "") -> str:
    """`` (did you mean X?)`` for the known name closest to ``word``, or ``""`` when none is close.

    Names are compared without their common ``prefix``: ``CLAUDEOPS_COOLDOWNS_`` alone would
    make every variable of a section look close to every other.
    """
    by_rest = {name.removeprefix(prefix): name for name in known}
    matches = difflib.get_close_matches(word.removeprefix(prefix), list(by_rest), n=1)
    return f" (did you mean {by_rest[matches[0]]}?)" if matches else ""
