"""Derived interval sets of one card: what the viewer draws as analysis lanes (metrics.md §2)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from timelineview.analysis.classify import Classification, classify
from timelineview.analysis.intervals import (
    Intervals,
    complement,
    covered_by,
    from_sorted_disjoint,
    intersect,
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

    @cached_property
    def gap_lengths(self) -> np.ndarray:
        """Length of every hole between consecutive compute segments (no threshold)."""
        return self.compute.starts[1:] - self.compute.ends[:-1]

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
    holes = Intervals(compute.ends[:-1], compute.starts[1:])
    keep = holes.lengths >= max(min_gap_ns, 1)
    idle = from_sorted_disjoint(holes.starts[keep], holes.ends[keep])
    return DerivedIntervals(
        compute=compute,
        communication=communication,
        overlapped=intersect(compute, communication),
        pure_communication=intersect(communication, no_compute),
        free=intersect(no_compute, no_comm),
        idle_gaps=idle,
        idle_gap_communication=intersect(idle, communication),
        idle_gap_free=intersect(idle, no_comm),
        span=span,
        min_gap_ns=min_gap_ns,
        classification=cls,
    )
