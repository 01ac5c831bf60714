"""A memory's confidence over time, as the points of an inline SVG step chart.

Confidence only changes at history entries and holds in between, so the chart is a step line:
each change is a dot (with its entry as a tooltip) and the line runs flat to the next change, and
to *now* for a memory that still exists. Times are placed on a real time axis, so a burst of
reinforcements and months of silence look like what they were. The threshold below which a
memory is inactive is drawn as a dashed line. Everything is computed here; the template only
draws numbers, so no script runs in the page.
"""

from __future__ import annotations

from dataclasses import dataclass

from claudeops import from_timestamp
from claudeops_memory.history import HistoryEntry

WIDTH, HEIGHT, PAD = 640, 160, 24


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    entry: HistoryEntry


@dataclass(frozen=True)
class Timeline:
    """What the template draws: the step line, a dot per change, the threshold, the time span."""

    width: int
    height: int
    lines: tuple[str, ...]
    """``points`` of one SVG ``polyline`` per stretch of time the memory existed."""
    dots: tuple[Dot, ...]
    threshold_y: float
    start: str
    end: str


def _y(confidence: float) -> float:
    return round(HEIGHT - PAD - confidence * (HEIGHT - 2 * PAD), 1)


def confidence_timeline(entries: list[HistoryEntry], min_confidence: float, now: str,
                        exists: bool) -> Timeline | None:
    """The chart of ``entries`` (a memory's history, oldest first); None when no entry sets a confidence."""
    changes = [entry for entry in entries if entry.new_confidence is not None or entry.old_confidence is not None]
    if not any(entry.new_confidence is not None for entry in changes):
        return None
    start = from_timestamp(changes[0].changed_at)
    end = from_timestamp(now if exists else changes[-1].changed_at)
    span = max((end - start).total_seconds(), 1.0)

    def x(stamp: str) -> float:
        return round(PAD + (from_timestamp(stamp) - start).total_seconds() / span * (WIDTH - 2 * PAD), 1)

    segments: list[list[tuple[float, float]]] = []
    points: list[tuple[float, float]] = []  # the segment being drawn; empty while the memory is removed
    dots = []
    for entry in changes:
        here = x(entry.changed_at)
        if points:
            points.append((here, points[-1][1]))  # flat until this change
        if entry.new_confidence is None:  # removed: the segment ends here
            if points:
                segments.append(points)
            points = []
            continue
        y = _y(entry.new_confidence)
        points.append((here, y))
        dots.append(Dot(here, y, entry))
    if points:
        if exists:
            points.append((float(WIDTH - PAD), points[-1][1]))
        segments.append(points)
    lines = tuple(" ".join(f"{px},{py}" for px, py in segment) for segment in segments)
    return Timeline(WIDTH, HEIGHT, lines, tuple(dots), _y(min_confidence), changes[0].changed_at,
                    now if exists else changes[-1].changed_at)
