"""Counting the markers a session records, and keeping the counts when it ends."""

from __future__ import annotations

from collections import Counter

from claudeops import Marker, Session, db, write_patiently
from claudeops_metrics.models import MarkerCountRow

STATE_KEY = "claudeops_metrics"


def count_marker(session: Session, marker: Marker) -> None:
    counts: Counter[str] = session.plugin_state.setdefault(STATE_KEY, Counter())
    counts[marker.type] += 1


def keep_counts(session: Session) -> None:
    counts: Counter[str] = session.plugin_state.get(STATE_KEY, Counter())
    if not counts:
        return

    def write() -> None:
        with db.atomic():
            MarkerCountRow.insert_many([{"session": session.id, "marker_type": marker_type, "count": count}
                                        for marker_type, count in sorted(counts.items())]).execute()

    write_patiently(write, f"counting the markers of session #{session.id}")
