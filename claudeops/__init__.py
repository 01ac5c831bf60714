"""claudeops: scheduled Claude Agent SDK sessions that watch and repair a home lab.

Plugin authors import what they need from here: ``hookimpl`` to implement hooks, and the
record types hooks exchange.
"""

from claudeops.hookspecs import hookimpl
from claudeops.markers import Marker, MarkerType
from claudeops.notable import NotableEvent
from claudeops.session import Outcome, Session
from claudeops.store import BaseModel, Migration

__version__ = "0.1.0"

__all__ = [
    "BaseModel",
    "Marker",
    "MarkerType",
    "Migration",
    "NotableEvent",
    "Outcome",
    "Session",
    "__version__",
    "hookimpl",
]
