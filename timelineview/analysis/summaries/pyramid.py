"""Level-of-detail pyramid of a card: per row (a lane or a derived interval set), at a few widths,
the share of each time bucket that the row's intervals cover.

This is what the timeline draws when zoomed out (``viewstate/lod.py`` asks "is this pixel covered"
per pixel; the pyramid keeps "how much of it", at fixed bucket counts). A bucket's occupancy is a
uint8, 0 (empty) .. 255 (covered), rounded up so that no covered bucket ever reads empty. Coverage
of a union of intervals up to time t is a prefix sum, so a level costs O(n + buckets × log n).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.intervals import Intervals, union

LEVEL_BUCKETS = (4096, 1024, 256)  # finest first: enough for an overview of a card on a 4K screen
FULL = 255  # occupancy of a fully covered bucket


@dataclass
class Pyramid:
    """Occupancy of ``rows`` over [t0, t1) (ns): ``levels[k]`` is uint8 (rows, LEVEL_BUCKETS[k])."""

    t0: int
    t1: int
    rows: list[str]
    levels: list[np.ndarray]

    def level_index(self, buckets_wanted: int) -> int:
        """Index in ``levels`` of the coarsest level with at least ``buckets_wanted`` buckets (the finest
        when none has)."""
        sizes = [lv.shape[1] for lv in self.levels]
        fitting = [k for k, n in enumerate(sizes) if n >= buckets_wanted]
        if fitting:
            return min(fitting, key=lambda k: sizes[k])
        return max(range(len(sizes)), key=lambda k: sizes[k])

    def level_for(self, buckets_wanted: int) -> np.ndarray:
        """The coarsest level with at least ``buckets_wanted`` buckets (the finest when none has)."""
        return self.levels[self.level_index(buckets_wanted)]

    def bucket_range(self, level: int, t0: float, t1: float) -> tuple[int, int]:
        """The buckets of ``levels[level]`` that [t0, t1) (absolute ns) overlaps, as [first, stop)."""
        buckets = self.levels[level].shape[1]
        scale = buckets / max(self.t1 - self.t0, 1)
        first = int(np.floor((t0 - self.t0) * scale))
        stop = int(np.ceil((t1 - self.t0) * scale))
        return min(max(first, 0), buckets), min(max(stop, 0), buckets)


def bucket_edges(t0: int, t1: int, buckets: int) -> np.ndarray:
    """The ``buckets + 1`` edges (ns) of the buckets of [t0, t1)."""
    return t0 + (np.arange(buckets + 1, dtype=np.float64) * (max(t1 - t0, 1) / buckets)).astype(np.int64)


def _shares(covered_at_edges: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Occupancy per bucket from the covered time at each edge (the last axis: one row or many)."""
    covered = np.diff(covered_at_edges, axis=-1).astype(np.float64)
    width = np.maximum(np.diff(edges), 1).astype(np.float64)
    return np.minimum(np.ceil(covered / width * FULL), FULL).astype(np.uint8)


def occupancy(iv: Intervals, t0: int, t1: int, buckets: int) -> np.ndarray:
    """uint8 per bucket of [t0, t1): covered share × 255, rounded up."""
    edges = bucket_edges(t0, t1, buckets)
    return _shares(iv.covered_before(edges), edges)


def lane_intervals(lane: np.ndarray, start: np.ndarray, end: np.ndarray, n_lanes: int) -> list[Intervals]:
    """The union of each lane's slices (nested slices count once)."""
    order = np.argsort(lane, kind="stable")
    ptr = np.searchsorted(lane[order], np.arange(n_lanes + 1))
    return [union(start[order[ptr[k]:ptr[k + 1]]], end[order[ptr[k]:ptr[k + 1]]]) for k in range(n_lanes)]


def build_pyramid(rows: list[tuple[str, Intervals]], t0: int, t1: int,
                  level_buckets: tuple[int, ...] = LEVEL_BUCKETS) -> Pyramid:
    """The pyramid of named interval sets over [t0, t1). A level whose edges are every k-th edge of the
    finest (bucket counts in powers of two: always) takes its covered time from the finest's, per row:
    one search of the intervals per row instead of one per level, and the same numbers."""
    finest = bucket_edges(t0, t1, max(level_buckets, default=1))
    covered = np.zeros((len(rows), len(finest)), np.int64)
    for r, (_, iv) in enumerate(rows):
        covered[r] = iv.covered_before(finest)
    levels = []
    for buckets in level_buckets:
        step = (len(finest) - 1) // buckets
        if np.array_equal(bucket_edges(t0, t1, buckets), finest[::step]):
            levels.append(_shares(covered[:, ::step], finest[::step]).reshape(len(rows), buckets))
        else:
            levels.append(np.array([occupancy(iv, t0, t1, buckets) for _, iv in rows], np.uint8)
                          .reshape(len(rows), buckets))
    return Pyramid(int(t0), int(t1), [name for name, _ in rows], levels)
