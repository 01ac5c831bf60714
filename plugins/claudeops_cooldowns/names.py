"""The one spelling of a service name that actions are stored, counted, cleared and enforced under.

The agent's marker, the operator's ``cooldowns reset`` and the command the enforcement judges
name the same service in different ways (``Jellyfin``, ``"jellyfin"``, ``jellyfin.service``);
if any of them spelled it differently from the others, a restart would be counted under one
name and checked under another, and the limit would never bite.
"""

from __future__ import annotations

from claudeops import unquoted

SYSTEMD_SUFFIX = ".service"


def service_name(text: str) -> str:
    """``text`` without surrounding blanks and quotes, lower-cased, without a systemd ``.service``.

    Empty when nothing of a name is left (``''``, ``.service``).
    """
    return unquoted(text).lower().removesuffix(SYSTEMD_SUFFIX)
