"""The one spelling of a service name that actions are stored, counted, cleared and enforced under.

The agent's marker, the operator's ``cooldowns reset`` and the command the enforcement judges
name the same service in different ways (``Jellyfin``, ``"jellyfin"``, ``jellyfin.service``);
if any of them spelled it differently from the others, a restart would be counted under one
name and checked under another, and the limit would never bite.
"""

from __future__ import annotations

from claudeops import canonical_service

SYSTEMD_SUFFIX = ".service"


def service_name(text: str) -> str:
    """``text`` in the core's canonical spelling (:func:`claudeops.canonical_service`: unquoted,
    lower-cased), without a systemd ``.service``, so a unit and its service count as one.

    Empty when nothing of a name is left (``''``, ``.service``).
    """
    return canonical_service(text).removesuffix(SYSTEMD_SUFFIX)
