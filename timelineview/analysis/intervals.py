"""Sets of half-open time intervals [start, end) as sorted, disjoint int64 arrays.

Every operation is vectorised: no Python loop runs over intervals. Zero-length
intervals occupy no time, so they are dropped when a set is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

_I64 = np.int64
# Sentinels for "unbounded": far outside any trace time (ns since 1970 are ~1.7e18).
_NEG_INF = np.iinfo(np.int64).min // 4
_POS_INF = np.iinfo(np.int64).max // 4


@dataclass(frozen=True, eq=False)
class Intervals:
    """Sorted, disjoint, non-empty [start, end) intervals; adjacent ones are merged."""

    starts: np.ndarray  # int64 ns, strictly increasing
    ends: np.ndarray  # int64 ns, ends[i] < starts[i + 1]

    @staticmethod
    def empty() -> Intervals:
        return Intervals(np.zeros(0, _I64), np.zeros(0, _I64))

    def __len__(self) -> int:
        return len(self.starts)

    @property
    def lengths(self) -> np.ndarray:
        return self.ends - self.starts

    def total(self) -> int:
        """Covered time in ns."""
        return int(self.lengths.sum())

    def clip(self, t0: int, t1: int) -> Intervals:
        """The part of the set inside [t0, t1)."""
        lo = int(np.searchsorted(self.ends, t0, side="right"))
        hi = int(np.searchsorted(self.starts, t1, side="left"))
        if hi <= lo:
            return Intervals.empty()
        starts = np.maximum(self.starts[lo:hi], t0)
        ends = np.minimum(self.ends[lo:hi], t1)
        return Intervals(starts, ends)

    @cached_property
    def _cumulative(self) -> np.ndarray:
        """cum[k] = covered time of the first k intervals (prefix sums for window queries)."""
        cum = np.zeros(len(self.starts) + 1, dtype=_I64)
        np.cumsum(self.lengths, out=cum[1:])
        return cum

    def covered_before(self, t: np.ndarray | int) -> np.ndarray:
        """Covered time in (-inf, t) for each t: O(log n) per query via prefix sums."""
        t = np.asarray(t, dtype=_I64)
        k = np.searchsorted(self.starts, t, side="right")  # intervals starting at or before t
        cum = self._cumulative
        last_end = self.ends[np.maximum(k - 1, 0)] if len(self.ends) else np.zeros_like(t)
        overshoot = np.where(k > 0, np.maximum(last_end - t, 0), 0)
        return cum[k] - overshoot

    def measure(self, t0: int, t1: int) -> int:
        """Covered time inside [t0, t1) without building the clipped set."""
        if t1 <= t0 or not len(self.starts):
            return 0
        a, b = self.covered_before(np.array([t0, t1], dtype=_I64))
        return int(b - a)


def union(starts: np.ndarray, ends: np.ndarray) -> Intervals:
    """Union of arbitrary intervals (any order, nested, overlapping, touching, zero-length)."""
    starts = np.asarray(starts, dtype=_I64)
    ends = np.asarray(ends, dtype=_I64)
    keep = ends > starts
    if not keep.all():
        starts, ends = starts[keep], ends[keep]
    n = len(starts)
    if n == 0:
        return Intervals.empty()
    # One sort of all boundaries instead of an argsort by start (several times faster):
    # key = 2 * t + is_end, so at equal times starts come first and touching intervals merge.
    base = int(starts.min())
    keys = np.empty(2 * n, dtype=_I64)
    np.subtract(starts, base, out=keys[:n])
    np.subtract(ends, base, out=keys[n:])
    keys <<= 1
    keys[n:] |= 1
    # a merge sort: traces list each lane's slices nearly in time order, so the keys are a few long
    # sorted runs, which it merges 5-30x faster than the default quicksort sorts them
    keys.sort(kind="stable")
    is_end = (keys & 1).astype(np.int8)
    depth = np.cumsum(1 - 2 * is_end, dtype=np.int32)
    closing = np.flatnonzero(depth == 0)
    opening = np.empty_like(closing)
    opening[0] = 0
    opening[1:] = closing[:-1] + 1
    times = (keys >> 1) + base
    return Intervals(times[opening], times[closing])


def from_sorted_disjoint(starts: np.ndarray, ends: np.ndarray) -> Intervals:
    """Wrap arrays already sorted and disjoint; drops empty pieces and merges touching ones."""
    starts = np.asarray(starts, dtype=_I64)
    ends = np.asarray(ends, dtype=_I64)
    keep = ends > starts
    starts, ends = starts[keep], ends[keep]
    if len(starts) > 1:
        touching = starts[1:] == ends[:-1]
        if touching.any():
            first = np.ones(len(starts), dtype=bool)
            first[1:] = ~touching
            last = np.ones(len(starts), dtype=bool)
            last[:-1] = ~touching
            starts, ends = starts[first], ends[last]
    return Intervals(starts, ends)


def _overlapping_pairs(a: Intervals, b: Intervals) -> tuple[np.ndarray, np.ndarray]:
    """(i, j) of every a[i], b[j] that overlap by > 0, ordered by time.

    Each interval of one set meets a contiguous run of the other, so there are at most
    |a| + |b| pairs; the smaller set's intervals are binary-searched in the bigger one.
    """
    swap = len(a) > len(b)
    if swap:
        a, b = b, a
    lo = np.searchsorted(b.ends, a.starts, side="right")  # first b ending after a starts
    hi = np.searchsorted(b.starts, a.ends, side="left")  # first b starting at or after a ends
    counts = np.maximum(hi - lo, 0)
    total = int(counts.sum())
    ai = np.repeat(np.arange(len(a), dtype=_I64), counts)
    # j runs lo[i], lo[i]+1, ... within each a-interval's group
    group_first = np.cumsum(counts) - counts
    bj = np.arange(total, dtype=_I64) - np.repeat(group_first - lo, counts)
    return (bj, ai) if swap else (ai, bj)


def intersect(a: Intervals, b: Intervals) -> Intervals:
    """a ∩ b in O((|a| + |b|) + min · log max)."""
    if not len(a) or not len(b):
        return Intervals.empty()
    i, j = _overlapping_pairs(a, b)
    # Every pair overlaps by > 0 and consecutive pieces are separated by a gap of a or b,
    # so the pieces are already sorted, disjoint and non-touching.
    return Intervals(np.maximum(a.starts[i], b.starts[j]), np.minimum(a.ends[i], b.ends[j]))


def covered_by(a: Intervals, b: Intervals) -> np.ndarray:
    """For each interval of ``a``, how much of it ``b`` covers (int64 ns)."""
    if not len(a) or not len(b):
        return np.zeros(len(a), dtype=_I64)
    i, j = _overlapping_pairs(a, b)
    piece = np.minimum(a.ends[i], b.ends[j]) - np.maximum(a.starts[i], b.starts[j])
    return np.bincount(i, weights=piece, minlength=len(a)).astype(_I64)


def complement(a: Intervals, t0: int = _NEG_INF, t1: int = _POS_INF) -> Intervals:
    """[t0, t1) minus a."""
    if t1 <= t0:
        return Intervals.empty()
    starts = np.concatenate(([t0], a.ends))
    ends = np.concatenate((a.starts, [t1]))
    starts = np.maximum(starts, t0)
    ends = np.minimum(ends, t1)
    return from_sorted_disjoint(starts, ends)


def subtract(a: Intervals, b: Intervals) -> Intervals:
    """a − b."""
    if not len(a) or not len(b):
        return a
    return intersect(a, complement(b, int(a.starts[0]), int(a.ends[-1])))


def merge(a: Intervals, b: Intervals) -> Intervals:
    """a ∪ b for two interval sets."""
    return union(np.concatenate((a.starts, b.starts)), np.concatenate((a.ends, b.ends)))


def gaps(a: Intervals, within: tuple[int, int] | None = None) -> Intervals:
    """The holes strictly between consecutive intervals of ``a``.

    With ``within=(t0, t1)`` the set is clipped to the window first, so time before the
    first (or after the last) interval inside the window is not a gap: a hole cut by the
    window edge is not bounded on both sides inside the window.
    """
    if within is not None:
        a = a.clip(*within)
    if len(a) < 2:
        return Intervals.empty()
    return Intervals(a.ends[:-1].copy(), a.starts[1:].copy())
