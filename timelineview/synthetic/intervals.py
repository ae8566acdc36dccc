"""Interval-set arithmetic on int64 ns, and the producers' overlap lanes computed step by step.

Sets are (starts, ends) of disjoint, sorted, non-touching segments. Touching segments merge,
as both producers do (MindSpore: ``if start > last_end: new segment``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from timelineview.producers import mindspore
from timelineview.producers.ascend_lanes import OVERLAP_LANES

Segs = tuple[np.ndarray, np.ndarray]
_EMPTY: Segs = (np.zeros(0, np.int64), np.zeros(0, np.int64))


def union(starts: np.ndarray, ends: np.ndarray) -> Segs:
    """Merged segments covering all [start, end) intervals (empty intervals dropped)."""
    keep = ends > starts
    s, e = np.asarray(starts, np.int64)[keep], np.asarray(ends, np.int64)[keep]
    if not len(s):
        return _EMPTY
    order = np.argsort(s, kind="stable")
    s, e = s[order], e[order]
    reach = np.maximum.accumulate(e)
    new = np.ones(len(s), bool)
    new[1:] = s[1:] > reach[:-1]
    first = np.flatnonzero(new)
    return s[first], np.maximum.reduceat(e, first)


def union_of(*sets: Segs) -> Segs:
    return union(np.concatenate([s for s, _ in sets]), np.concatenate([e for _, e in sets]))


def combine(sets: list[Segs], keep: Callable[..., np.ndarray]) -> Segs:
    """Segments where ``keep(covered_0, covered_1, ...)`` holds (boolean arrays per elementary piece)."""
    bounds = np.unique(np.concatenate([np.concatenate(x) for x in sets]))
    if len(bounds) < 2:
        return _EMPTY
    left, right = bounds[:-1], bounds[1:]
    mask = keep(*[_covered(s, e, left) for s, e in sets])
    idx = np.flatnonzero(mask)
    if not len(idx):
        return _EMPTY
    brk = np.flatnonzero(np.diff(idx) != 1)
    first = np.concatenate(([idx[0]], idx[brk + 1]))
    last = np.concatenate((idx[brk], [idx[-1]]))
    return left[first], right[last]


def _covered(s: np.ndarray, e: np.ndarray, x: np.ndarray) -> np.ndarray:
    i = np.searchsorted(s, x, side="right") - 1
    out = np.zeros(len(x), bool)
    ok = i >= 0
    out[ok] = x[ok] < e[i[ok]]
    return out


def one(lo: int, hi: int) -> Segs:
    """A single segment (or nothing when empty)."""
    if hi <= lo:
        return _EMPTY
    return np.array([lo], np.int64), np.array([hi], np.int64)


class CannOverlap:
    """CANN ``Overlap Analysis`` (docs/trace-format.md §5.2), fed one step at a time.

    Computing = U(compute), Communication = U(comm ops), Not Overlapped = Communication −
    Computing, Free = [first start, last end] − (Computing ∪ Communication), where the range
    spans every hardware task and communication operator of the card.
    """

    LANES = OVERLAP_LANES

    def __init__(self) -> None:
        self._busy_end: int | None = None  # end of the last busy segment so far

    def step(self, compute: Segs, comm: Segs, lo: int, hi: int, last: bool) -> list[Segs]:
        """Lanes for one step. ``lo``/``hi``: extent of all tasks of the step."""
        busy = union_of(compute, comm)
        not_ov = combine([comm, compute], lambda m, c: m & ~c)
        start = lo if self._busy_end is None else self._busy_end
        stop = hi if last else int(busy[1][-1])
        free = combine([one(start, stop), busy], lambda r, b: r & ~b)
        self._busy_end = int(busy[1][-1])
        return [compute, comm, not_ov, free]


class MindSporeOverlap:
    """MindSpore <= 2.1 ``Op Overlap Analyse`` lanes (docs/trace-format.md §5.1), one step at a time.

    Merged Computation = U(compute), Merged Communication = U(comm), Pure Communication =
    G(compute) ∩ U(comm) (only inside the compute span), Free Time = G(compute ∪ comm),
    where G(x) are the gaps between consecutive segments of U(x) over the whole card.
    """

    LANES = mindspore.OVERLAP_SLICES

    def __init__(self) -> None:
        self._compute_end: int | None = None
        self._busy_end: int | None = None
        self._carried_comm: Segs = _EMPTY  # communication after the last compute so far

    def step(self, compute: Segs, comm: Segs) -> list[Segs]:
        busy = union_of(compute, comm)
        c_lo = int(compute[0][0]) if self._compute_end is None else self._compute_end
        c_hi = int(compute[1][-1])
        all_comm = union_of(self._carried_comm, comm)
        pure = combine([one(c_lo, c_hi), compute, all_comm], lambda r, c, m: r & ~c & m)
        b_lo = int(busy[0][0]) if self._busy_end is None else self._busy_end
        free = combine([one(b_lo, int(busy[1][-1])), busy], lambda r, b: r & ~b)
        self._carried_comm = combine([comm, one(c_hi, int(busy[1][-1]) + 1)], lambda m, r: m & r)
        self._compute_end, self._busy_end = c_hi, int(busy[1][-1])
        return [compute, pure, comm, free]
