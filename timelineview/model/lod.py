"""Per-pixel level of detail over rows of disjoint sorted intervals.

A row is a slice ``[a, b)`` of two sorted arrays (``starts``, ``ends``) of disjoint intervals, as
in :class:`~timelineview.model.interval_index.IntervalIndex` rows or the analysis interval sets.
For each pixel column one ``searchsorted`` finds the first interval ending after the column starts;
the column is covered when that interval starts before the column ends. So the work is
O(rows × width × log n), whatever the number of intervals, and no covered pixel is ever lost.

Columns whose representative is at least ``min_px`` wide become one rect per interval (coloured by
name, labelled when there is room); runs of narrower ones fold into one "busy" rect carrying the
number of intervals folded (Tracy's fold, Perfetto's per-bucket mipmap).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MIN_DETAIL_PX = 3


@dataclass
class LodRects:
    """Rects of many rows in pixel columns ``[x0, x1)``; ``pos`` = -1 marks a folded run."""

    row: np.ndarray  # int32, index into the ``bounds`` given
    x0: np.ndarray  # int32
    x1: np.ndarray  # int32 (exclusive)
    pos: np.ndarray  # int64 position into starts/ends of the interval drawn, -1 when folded
    first: np.ndarray  # int64 first position covered (folded runs: first folded interval)
    count: np.ndarray  # int64 intervals represented (1 for detail rects)

    def __len__(self) -> int:
        return len(self.row)

    @staticmethod
    def empty() -> LodRects:
        z32 = np.zeros(0, np.int32)
        z64 = np.zeros(0, np.int64)
        return LodRects(z32, z32, z32, z64, z64, z64)


def column_edges(t0: int, t1: int, width: int) -> np.ndarray:
    """``width + 1`` int64 column boundaries, exact integer division of [t0, t1]."""
    span = int(t1) - int(t0)
    return int(t0) + (np.arange(width + 1, dtype=np.int64) * span) // width


def _representatives(starts: np.ndarray, ends: np.ndarray, bounds: list[tuple[int, int]],
                     edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(R, W) positions of each column's representative and whether the column is covered."""
    n_rows, width = len(bounds), len(edges) - 1
    rep = np.empty((n_rows, width), dtype=np.int64)
    limit = np.empty((n_rows, 1), dtype=np.int64)
    lo_t, hi_t = edges[0], edges[-1]
    for r, (a, b) in enumerate(bounds):
        # only the part of the row that can touch the window is searched (two scalar searches first)
        lo = a + int(np.searchsorted(ends[a:b], lo_t, side="right"))
        hi = a + int(np.searchsorted(starts[a:b], hi_t, side="left"))
        hi = max(lo, hi)
        rep[r] = lo + np.searchsorted(ends[lo:hi], edges[:-1], side="right")
        limit[r, 0] = hi
    if len(starts) == 0:
        return rep, np.zeros(rep.shape, dtype=bool)
    safe = np.minimum(rep, len(starts) - 1)
    covered = (rep < limit) & (starts[safe] < edges[1:][None, :])
    return rep, covered


def lod_rects(starts: np.ndarray, ends: np.ndarray, bounds: list[tuple[int, int]],
              t0: int, t1: int, width: int, min_px: int = MIN_DETAIL_PX) -> LodRects:
    """Detail and folded rects of every row in ``bounds`` for the window [t0, t1] over ``width`` px."""
    width = int(width)
    if not bounds or width <= 0 or t1 <= t0:
        return LodRects.empty()
    span = int(t1) - int(t0)
    edges = column_edges(t0, t1, width)
    rep, covered = _representatives(starts, ends, bounds, edges)
    if not covered.any():
        return LodRects.empty()
    safe = np.minimum(rep, max(len(starts) - 1, 0))
    wide = covered & ((ends[safe] - starts[safe]) * width >= min_px * span)
    narrow = covered & ~wide

    # detail rects: one per distinct wide representative
    prev_rep = np.empty_like(rep)
    prev_rep[:, 0] = -1
    prev_rep[:, 1:] = rep[:, :-1]
    prev_wide = np.zeros_like(wide)
    prev_wide[:, 1:] = wide[:, :-1]
    d_row, d_col = np.nonzero(wide & ~(prev_wide & (prev_rep == rep)))
    d_pos = rep[d_row, d_col]
    scale = width / span
    d_x0 = np.floor((starts[d_pos] - t0) * scale)
    d_x1 = np.ceil((ends[d_pos] - t0) * scale)
    d_x0 = np.clip(d_x0, 0, width).astype(np.int32)
    d_x1 = np.clip(d_x1, 0, width).astype(np.int32)

    # folded runs: maximal runs of narrow columns
    prev_narrow = np.zeros_like(narrow)
    prev_narrow[:, 1:] = narrow[:, :-1]
    next_narrow = np.zeros_like(narrow)
    next_narrow[:, :-1] = narrow[:, 1:]
    s_row, s_col = np.nonzero(narrow & ~prev_narrow)
    _, e_col = np.nonzero(narrow & ~next_narrow)  # same row-major order as the starts
    first = rep[s_row, s_col]
    last = rep[s_row, e_col]
    count = last - first + 1
    f_pos = np.where(count == 1, first, -1)

    row = np.concatenate([s_row, d_row]).astype(np.int32)
    return LodRects(
        row=row,
        x0=np.concatenate([s_col.astype(np.int32), d_x0]),
        x1=np.concatenate([(e_col + 1).astype(np.int32), np.maximum(d_x1, d_x0 + 1)]),
        pos=np.concatenate([f_pos, d_pos]).astype(np.int64),
        first=np.concatenate([first, d_pos]).astype(np.int64),
        count=np.concatenate([count, np.ones(len(d_pos), np.int64)]),
    )


def coverage(starts: np.ndarray, ends: np.ndarray, bounds: list[tuple[int, int]],
             t0: int, t1: int, width: int) -> np.ndarray:
    """(R, W) bool: is each pixel column of each row touched by an interval."""
    if not bounds or width <= 0 or t1 <= t0:
        return np.zeros((len(bounds), max(int(width), 0)), dtype=bool)
    _, covered = _representatives(starts, ends, bounds, column_edges(t0, t1, int(width)))
    return covered


def runs(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Maximal runs of True in each row of a 2-D mask: ``(row, x0, x1)`` with x1 exclusive."""
    mask = np.atleast_2d(mask)
    padded = np.zeros((mask.shape[0], mask.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = mask
    diff = np.diff(padded, axis=1)
    s_row, s_col = np.nonzero(diff == 1)
    _, e_col = np.nonzero(diff == -1)
    return s_row.astype(np.int32), s_col.astype(np.int32), e_col.astype(np.int32)


def level_runs(levels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Runs of equal non-zero values in each row of a 2-D int array: ``(row, x0, x1, level)``."""
    levels = np.atleast_2d(levels)
    n_rows, width = levels.shape
    prev = np.full((n_rows, width), -1, dtype=levels.dtype)
    prev[:, 1:] = levels[:, :-1]
    nxt = np.full((n_rows, width), -1, dtype=levels.dtype)
    nxt[:, :-1] = levels[:, 1:]
    nz = levels != 0
    s_row, s_col = np.nonzero(nz & (prev != levels))
    _, e_col = np.nonzero(nz & (nxt != levels))
    return (s_row.astype(np.int32), s_col.astype(np.int32), (e_col + 1).astype(np.int32),
            levels[s_row, s_col])


def counter_columns(ts: np.ndarray, values: np.ndarray, t0: int, t1: int,
                    width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per pixel column of a step-function counter: (has_value, low, high).

    The value holding at the column start and every sample inside the column count, so spikes
    narrower than a pixel still show.
    """
    width = int(width)
    has = np.zeros(width, dtype=bool)
    low = np.zeros(width)
    high = np.zeros(width)
    if len(ts) == 0 or width <= 0 or t1 <= t0:
        return has, low, high
    edges = column_edges(t0, t1, width)
    idx = np.searchsorted(ts, edges, side="right")  # samples <= edge
    held = idx[:-1] - 1  # sample holding at the column start
    has = held >= 0
    inside = idx[1:] > idx[:-1]
    has |= inside
    v_held = values[np.maximum(held, 0)]
    low = np.where(held >= 0, v_held, np.inf)
    high = np.where(held >= 0, v_held, -np.inf)
    if inside.any():
        starts = idx[:-1][inside]
        # samples of non-empty columns are contiguous, so reduceat over the samples up to t1 gives
        # each column's min/max (empty columns in between hold no samples)
        in_window = values[: idx[-1]]
        seg_min = np.minimum.reduceat(in_window, starts)
        seg_max = np.maximum.reduceat(in_window, starts)
        low[inside] = np.minimum(low[inside], seg_min)
        high[inside] = np.maximum(high[inside], seg_max)
    low = np.where(has, low, 0.0)
    high = np.where(has, high, 0.0)
    return has, low, high
