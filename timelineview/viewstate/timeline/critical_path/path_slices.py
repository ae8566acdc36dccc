"""Which slices of the timeline's cards lie on a step's critical path (no Qt).

A step's path (a ``critical_path`` item of the stats document, metrics.md §12) is a chain of segments,
each on one card's own clock: compute intervals, collectives, launch waits and the data wait. On the
timeline the path is its slices outlined: a compute segment's compute tasks, a collective segment's
operator slice. Launch waits and the data wait hold no slice (the card ran nothing of the path there).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from timelineview.viewstate.card_view import CardView

COMPUTE, COLLECTIVE = "compute", "collective"  # the segment kinds that hold slices
NS_PER_US = 1000


@dataclass(frozen=True)
class PathOnTimeline:
    """The slices of one step's path, per card number (sorted indices), and the step's span."""

    step: int
    slices: dict[int, np.ndarray]
    start_ns: int  # the path's first instant, on its first card's clock
    end_ns: int  # that instant plus the step's length
    first_card: int  # number of the card of the first segment (-1: none on the timeline's cards)

    @property
    def count(self) -> int:
        return sum(len(v) for v in self.slices.values())


def segment_end_ns(segment: dict) -> int:
    """A segment's end on its card's clock (its start plus its length)."""
    return int(segment["start_ns"]) + int(round(float(segment["dur_us"]) * NS_PER_US))


def segment_slices(card: CardView, segment: dict) -> np.ndarray:
    """The slices of ``card`` one segment covers: compute tasks meeting a compute segment, the operator
    slices of a collective segment's name meeting it; empty for other kinds or without a classification."""
    kind = segment["kind"]
    cls = card.analysis.classification if card.analysis is not None else None
    if kind not in (COMPUTE, COLLECTIVE) or cls is None:
        return np.zeros(0, np.int64)
    s = card.store.slices
    t0, t1 = int(segment["start_ns"]), segment_end_ns(segment)
    meets = (s.start < t1) & (s.start + s.dur > t0)
    if kind == COMPUTE:
        return np.flatnonzero(meets & cls.compute)
    sid = card.store.string_id(segment["name"]) if segment["name"] else -1
    return np.flatnonzero(meets & cls.communication & (s.name == sid)) if sid >= 0 else np.zeros(0, np.int64)


def path_on_timeline(step: dict, cards: Sequence[CardView]) -> PathOnTimeline:
    """The slices of ``step``'s path on the given cards (matched by card name)."""
    by_name = {c.store.card: c for c in cards}
    parts: dict[int, list[np.ndarray]] = {}
    first, start = -1, 0
    for seg in step["segments"]:
        card = by_name.get(seg["card"] or "")
        if card is None:
            continue
        if first < 0:
            first, start = card.number, int(seg["start_ns"])
        parts.setdefault(card.number, []).append(segment_slices(card, seg))
    slices = {number: np.unique(np.concatenate(p)) for number, p in parts.items()}
    return PathOnTimeline(int(step["step"]), {n: v for n, v in slices.items() if len(v)}, start,
                          start + int(round(float(step["step_us"]) * NS_PER_US)), first)
