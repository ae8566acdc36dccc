"""Derived interval sets of one card: what the viewer draws as analysis lanes (metrics.md §2).

A card read from several files (CANN's per-iteration export) is captured only inside each file's
span, [first start, last end] over its compute and communication tasks (as the card's span): the
time between those spans is ``uncaptured``
(metrics.md §3). It is no part of any free time or idle gap: nobody looked at the device then.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from timelineview.analysis.classify import Classification, classify
from timelineview.analysis.intervals import (
    Intervals,
    complement,
    covered_by,
    from_sorted_disjoint,
    intersect,
    merge,
    union,
)
from timelineview.model.store.trace_store import TraceStore

DEFAULT_MIN_GAP_NS = 1000


@dataclass
class DerivedIntervals:
    """Whole-card interval sets (ns). ``span`` = [first start, last end] over compute ∪ communication."""

    compute: Intervals  # U(compute)
    communication: Intervals  # U(communication)
    overlapped: Intervals  # U(compute) ∩ U(communication)
    pure_communication: Intervals  # U(communication) − U(compute)
    free: Intervals  # span − (U(compute) ∪ U(communication))
    idle_gaps: Intervals  # holes of U(compute) of at least min_gap_ns
    idle_gap_communication: Intervals  # idle_gaps ∩ U(communication)
    idle_gap_free: Intervals  # idle_gaps − U(communication)
    span: tuple[int, int]
    min_gap_ns: int = DEFAULT_MIN_GAP_NS
    classification: Classification | None = None
    uncaptured: Intervals = field(default_factory=Intervals.empty)  # inside span, between the files' spans
    # the classification's mode where the classification itself is not kept (a card read from its summary)
    producer: str = ""

    @property
    def mode(self) -> str:
        """The card's producer as the classification names it ("kineto", "msprof", …; "" when not known):
        the words of its device depend on it."""
        return self.classification.mode if self.classification is not None else self.producer

    @cached_property
    def gap_lengths(self) -> np.ndarray:
        """Captured length of every hole between consecutive compute segments (no threshold)."""
        return _captured_hole_lengths(self.compute, self.uncaptured)

    @cached_property
    def busy(self) -> Intervals:
        """U(compute) ∪ U(communication)."""
        return merge(self.compute, self.communication)

    @cached_property
    def gap_communication(self) -> np.ndarray:
        """Time of each hole (as ``gap_lengths``) covered by communication."""
        holes = Intervals(self.compute.ends[:-1], self.compute.starts[1:])
        return covered_by(holes, self.communication)


def _span(start: np.ndarray, end: np.ndarray, mask: np.ndarray) -> tuple[int, int]:
    # Zero-length tasks still mark when the card was busy, so they count for the span.
    if not mask.any():
        return (0, 0)
    return int(start[mask].min()), int(end[mask].max())


def _captured_hole_lengths(compute: Intervals, uncaptured: Intervals) -> np.ndarray:
    holes = Intervals(compute.ends[:-1], compute.starts[1:])
    if not len(uncaptured):
        return holes.lengths
    return holes.lengths - covered_by(holes, uncaptured)


def uncaptured_time(store: TraceStore, busy: np.ndarray, span: tuple[int, int]) -> Intervals:
    """The parts of ``span`` between the files' spans over their ``busy`` slices (empty for one file)."""
    files = store.slice_files() if len(store.paths) > 1 and busy.any() else None
    if files is None or span[1] <= span[0]:
        return Intervals.empty()
    files = files[busy]
    n = int(files.max()) + 1
    starts = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    ends = np.full(n, np.iinfo(np.int64).min, dtype=np.int64)
    np.minimum.at(starts, files, store.slices.start[busy])
    np.maximum.at(ends, files, store.slices.end[busy])
    seen = ends >= starts
    captured = union(starts[seen], ends[seen])
    return complement(captured, *span)


def derive(store: TraceStore, min_gap_ns: int = DEFAULT_MIN_GAP_NS,
           classification: Classification | None = None) -> DerivedIntervals:
    """Compute all derived interval sets of ``store`` (vectorised, O(n log n))."""
    cls = classification if classification is not None else classify(store)
    start = store.slices.start
    end = store.slices.end
    compute = union(start[cls.compute], end[cls.compute])
    communication = union(start[cls.communication], end[cls.communication])
    span = _span(start, end, cls.compute | cls.communication)
    # Differences as intersections with complements: intersect() searches the bigger set for
    # the smaller one's intervals, which keeps a card with millions of holes fast.
    no_compute = complement(compute, *span)
    no_comm = complement(communication, *span)
    uncaptured = uncaptured_time(store, cls.compute | cls.communication, span)
    holes = Intervals(compute.ends[:-1], compute.starts[1:])
    keep = _captured_hole_lengths(compute, uncaptured) >= max(min_gap_ns, 1)
    idle = from_sorted_disjoint(holes.starts[keep], holes.ends[keep])
    free = intersect(no_compute, no_comm)
    if len(uncaptured):  # one file (the usual card) captures its whole span: nothing to cut away
        captured = complement(uncaptured, *span)
        idle = intersect(idle, captured)
        free = intersect(free, captured)
    return DerivedIntervals(
        compute=compute,
        communication=communication,
        overlapped=intersect(compute, communication),
        pure_communication=intersect(communication, no_compute),
        free=free,
        idle_gaps=idle,
        idle_gap_communication=intersect(idle, communication),
        idle_gap_free=intersect(idle, no_comm),
        span=span,
        min_gap_ns=min_gap_ns,
        classification=cls,
        uncaptured=uncaptured,
    )
