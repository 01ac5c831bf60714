"""How every page names a service: a link to its page, flagged when the inventory does not declare it.

Markers may name any service and what they name is stored as written; a name the inventory does
not know (a typo, or a service the inventory forgot) is shown with *not in the inventory*, on
the events, memories and cooldowns pages alike (the ``service_ref`` template global). Without an
inventory nothing is flagged.
"""

from __future__ import annotations

from markupsafe import Markup

from claudeops import Inventory


def service_ref(inventory: Inventory, name: str) -> Markup:
    """``<a href="/services/x">x</a>``, plus the flag when an inventory exists and does not know ``name``."""
    known = inventory.named_by(name)
    target = known.name if known is not None else name
    link = Markup('<a href="/services/{}">{}</a>').format(target, name)
    if inventory.knows(name):
        return link
    return link + Markup(' <span class="stranger" title="not declared in the service inventory">'
                         'not in the inventory</span>')

