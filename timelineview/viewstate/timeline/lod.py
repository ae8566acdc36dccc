"""Per-pixel level of detail over rows of disjoint sorted intervals.

A row is a slice ``[a, b)`` of two sorted arrays (``starts``, ``ends``) of disjoint intervals, as
in :class:`~timelineview.model.store.interval_index.IntervalIndex` rows or the analysis interval sets.
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


@dataclass
class RowSummary:
    """Ranks of dense rows at regular time boundaries (a one-level mipmap).

    For row r with bucket ``B = bucket[r] > 0``, boundary j is ``base[r] + j * B`` and
    ``rank_end[offset[r] + j]`` / ``rank_start[...]`` are the positions (relative to the row start)
    of the first interval ending after it / starting at or after it. A frame whose columns are much
    wider than B snaps its column edges to these boundaries (an error far below a pixel) and
    reads the representatives directly: O(width) per row with no binary search over a big row,
    so a zoomed-out frame of 10 M slices costs what one of 10 k does.
    """

    base: np.ndarray  # int64 per row
    bucket: np.ndarray  # int64 per row, 0 = no summary (small row)
    offset: np.ndarray  # int64 per row into the rank arrays
    count: np.ndarray  # int64 boundaries per row
    rank_end: np.ndarray  # int32
    rank_start: np.ndarray  # int32


SUMMARY_PER_BUCKET = 4  # intervals per bucket on average: ~2 bytes of ranks per interval
SUMMARY_MIN_ROW = 8192  # smaller rows are cheap to binary-search
SUMMARY_MIN_COLUMN = 8  # use the summary when a pixel column spans at least this many buckets


def build_row_summary(starts: np.ndarray, ends: np.ndarray, row_ptr: np.ndarray) -> RowSummary:
    """Summaries of every row holding at least :data:`SUMMARY_MIN_ROW` intervals."""
    n_rows = len(row_ptr) - 1
    base = np.zeros(n_rows, np.int64)
    bucket = np.zeros(n_rows, np.int64)
    offset = np.zeros(n_rows, np.int64)
    count = np.zeros(n_rows, np.int64)
    ends_parts, starts_parts = [], []
    total = 0
    for r in range(n_rows):
        a, b = int(row_ptr[r]), int(row_ptr[r + 1])
        n = b - a
        if n < SUMMARY_MIN_ROW:
            continue
        t_lo, t_hi = int(starts[a]), int(ends[b - 1])
        m = n // SUMMARY_PER_BUCKET
        step = max(-(-(t_hi - t_lo) // m), 1)
        bounds = t_lo + np.arange(m + 2, dtype=np.int64) * step  # the last one is past the row end
        ends_parts.append(np.searchsorted(ends[a:b], bounds, side="right").astype(np.int32))
        starts_parts.append(np.searchsorted(starts[a:b], bounds, side="left").astype(np.int32))
        base[r], bucket[r], offset[r], count[r] = t_lo, step, total, m + 2
        total += m + 2
    return RowSummary(base, bucket, offset, count, _concat32(ends_parts), _concat32(starts_parts))


def _concat32(parts: list[np.ndarray]) -> np.ndarray:
    return np.concatenate(parts) if parts else np.zeros(0, np.int32)


def _representatives(starts: np.ndarray, ends: np.ndarray, bounds: list[tuple[int, int]],
                     edges: np.ndarray, rows: list[int] | None = None,
                     summary: RowSummary | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(R, W) positions of each column's representative (first interval ending after the column
    start) and of the first interval starting at or after the column end; the column is covered
    when the first is below the second, and it holds the intervals in between.

    Coverage compares two searches (first interval ending after the column start vs. the count
    of intervals starting before the column end) instead of gathering ``starts[rep]``: on a big
    trace those gathers are scattered cache misses. Dense rows use their summary (see
    :class:`RowSummary`) when the columns are wide enough.
    """
    n_rows, width = len(bounds), len(edges) - 1
    rep = np.empty((n_rows, width), dtype=np.int64)
    started = np.empty((n_rows, width), dtype=np.int64)
    lo_t, hi_t = edges[0], edges[-1]
    col_width = (hi_t - lo_t) / max(width, 1)
    col_starts, col_ends = edges[:-1], edges[1:]
    sparse: list[tuple[int, int, int]] = []  # rows with fewer intervals in view than columns
    for r, (a, b) in enumerate(bounds):
        if summary is not None and rows is not None:
            step = int(summary.bucket[rows[r]])
            if step and col_width >= SUMMARY_MIN_COLUMN * step:
                row = rows[r]
                off, m = int(summary.offset[row]), int(summary.count[row])
                j = np.clip((edges - summary.base[row]) // step, 0, m - 1) + off
                rep[r] = summary.rank_end[j[:-1]]
                rep[r] += a
                started[r] = summary.rank_start[j[1:]]
                started[r] += a
                continue
        # only the part of the row that can touch the window is searched (two scalar searches first)
        lo = a + int(np.searchsorted(ends[a:b], lo_t, side="right"))
        hi = max(lo, a + int(np.searchsorted(starts[a:b], hi_t, side="left")))
        if width <= 16 * (hi - lo) < 8 * width:  # mid-density rows: counting beats searching
            sparse.append((r, lo, hi))
            continue
        rep[r] = np.searchsorted(ends[lo:hi], col_starts, side="right")
        rep[r] += lo
        started[r] = np.searchsorted(starts[lo:hi], col_ends, side="left")
        started[r] += lo
    if sparse:
        _sparse_rows(starts, ends, edges, sparse, rep, started)
    return rep, started


def _sparse_rows(starts: np.ndarray, ends: np.ndarray, edges: np.ndarray, sparse: list[tuple[int, int, int]],
                 rep: np.ndarray, started: np.ndarray) -> None:
    """Columns of rows with few intervals in view, all rows at once: each interval finds its
    columns in the (small, cache-resident) edge array, and per-column counts are prefix sums.
    O(k log W) instead of O(W log k) per row, with no Python work per row."""
    width = len(edges) - 1
    rr, lo, hi = (np.array(x, dtype=np.int64) for x in zip(*sparse))
    lens = hi - lo
    total = int(lens.sum())
    which = np.repeat(np.arange(len(rr)), lens)
    pos = np.arange(total, dtype=np.int64) + np.repeat(lo - (np.cumsum(lens) - lens), lens)
    stride = width + 2
    # ends[i] <= e_k for every column k >= j_i; starts[i] < e_(k+1) for every k >= m_i - 1
    j = np.searchsorted(edges, ends[pos], side="left")
    m = np.searchsorted(edges, starts[pos], side="right")
    n_end = np.bincount(which * stride + j, minlength=len(rr) * stride).reshape(len(rr), stride).cumsum(axis=1)
    n_start = np.bincount(which * stride + m, minlength=len(rr) * stride).reshape(len(rr), stride).cumsum(axis=1)
    rep[rr] = lo[:, None] + n_end[:, :width]
    started[rr] = lo[:, None] + n_start[:, 1:width + 1]


def lod_rects(starts: np.ndarray, ends: np.ndarray, bounds: list[tuple[int, int]],
              t0: int, t1: int, width: int, min_px: int = MIN_DETAIL_PX,
              rows: list[int] | None = None, summary: RowSummary | None = None) -> LodRects:
    """Detail and folded rects of every row in ``bounds`` for the window [t0, t1] over ``width`` px.

    ``rows`` (row ids aligned with ``bounds``) and ``summary`` enable the dense-row shortcut.
    """
    width = int(width)
    if not bounds or width <= 0 or t1 <= t0:
        return LodRects.empty()
    span = int(t1) - int(t0)
    edges = column_edges(t0, t1, width)
    rep, started = _representatives(starts, ends, bounds, edges, rows, summary)
    covered = rep < started
    if not covered.any():
        return LodRects.empty()
    n_rows = len(bounds)
    # runs of covered columns sharing one representative; only runs of >= min_px columns can be
    # wide enough for a detail rect, so only their intervals are looked up (few gathers)
    flat_rep = rep.ravel()
    flat_cov = covered.ravel()
    new_run = flat_cov.copy()
    new_run[1:] &= ~(flat_cov[:-1] & (flat_rep[1:] == flat_rep[:-1]))
    new_run[::width] = flat_cov[::width]  # a run never continues across rows
    run_start = np.flatnonzero(new_run)
    run_end = _run_ends(flat_cov, run_start, width)
    run_len = run_end - run_start
    cand = run_len >= min_px
    cand_pos = flat_rep[run_start[cand]]
    c_start, c_end = starts[cand_pos], ends[cand_pos]
    wide_ok = (c_end - c_start) * width >= min_px * span
    wide_runs = np.flatnonzero(cand)[wide_ok]
    d_pos = cand_pos[wide_ok]
    d_row = (run_start[wide_runs] // width).astype(np.int32)
    scale = width / span
    d_x0 = np.clip(np.floor((c_start[wide_ok] - t0) * scale), 0, width).astype(np.int32)
    d_x1 = np.clip(np.ceil((c_end[wide_ok] - t0) * scale), 0, width).astype(np.int32)

    # folded runs: maximal runs of covered columns outside detail runs
    narrow = flat_cov.copy()
    wide_cols = np.zeros(len(flat_cov) + 1, dtype=np.int32)
    wide_cols[run_start[wide_runs]] += 1  # run starts are distinct, and so are run ends
    wide_cols[run_end[wide_runs]] -= 1
    narrow &= np.cumsum(wide_cols[:-1]) == 0
    narrow = narrow.reshape(n_rows, width)
    f_row, f_x0, f_x1 = runs(narrow)
    first = rep[f_row, f_x0]
    count = started[f_row, f_x1 - 1] - first
    f_pos = np.where(count == 1, first, -1)
    return LodRects(
        row=np.concatenate([f_row, d_row]).astype(np.int32),
        x0=np.concatenate([f_x0, d_x0]),
        x1=np.concatenate([f_x1, np.maximum(d_x1, d_x0 + 1)]),
        pos=np.concatenate([f_pos, d_pos]).astype(np.int64),
        first=np.concatenate([first, d_pos]).astype(np.int64),
        count=np.concatenate([count, np.ones(len(d_pos), np.int64)]),
    )


def _run_ends(cov: np.ndarray, run_start: np.ndarray, width: int) -> np.ndarray:
    """Exclusive end of each run (next run start, first uncovered column, or the row end)."""
    n = len(cov)
    # next position that breaks the run: an uncovered column, a row boundary or the next run start
    breaks = ~cov
    breaks_idx = np.append(np.flatnonzero(breaks), n)  # sentinel: the end of everything
    end_uncovered = breaks_idx[np.searchsorted(breaks_idx, run_start, side="right")]
    end_row = (run_start // width + 1) * width
    end_next = np.append(run_start[1:], n)
    return np.minimum(np.minimum(end_uncovered, end_row), end_next)


def coverage(starts: np.ndarray, ends: np.ndarray, bounds: list[tuple[int, int]],
             t0: int, t1: int, width: int, rows: list[int] | None = None,
             summary: RowSummary | None = None) -> np.ndarray:
    """(R, W) bool: is each pixel column of each row touched by an interval."""
    if not bounds or width <= 0 or t1 <= t0:
        return np.zeros((len(bounds), max(int(width), 0)), dtype=bool)
    rep, started = _representatives(starts, ends, bounds, column_edges(t0, t1, int(width)), rows, summary)
    return rep < started


def prefix_lengths(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``cum[i]`` = total length of intervals ``0..i-1`` of a sorted disjoint set (n + 1 values)."""
    cum = np.zeros(len(starts) + 1, dtype=np.int64)
    np.cumsum(ends - starts, out=cum[1:])
    return cum


def coverage_fraction(starts: np.ndarray, ends: np.ndarray, cum: np.ndarray, t0: int, t1: int,
                      width: int) -> np.ndarray:
    """Fraction in [0, 1] of each pixel column covered by a sorted disjoint interval set.

    Prefix sums make it O(width log n): a zoomed-out "Computing" lane then shows how busy
    each pixel is instead of a solid bar. Column edges fall between whole nanoseconds when a column is
    narrower than one (the deepest zoom): each is the whole ns below it plus a fraction, so a covered
    nanosecond fills every column inside it (whole-ns edges left most columns empty: a comb of 1 ns ticks).
    """
    width = int(width)
    if width <= 0 or t1 <= t0 or len(starts) == 0:
        return np.zeros(max(width, 0))
    span = int(t1) - int(t0)
    scaled = np.arange(width + 1, dtype=np.int64) * span
    whole = int(t0) + scaled // width  # the column edge is whole + part, part in [0, 1)
    part = (scaled % width) / width
    k = np.searchsorted(starts, whole, side="right")  # integer starts: start <= whole + part iff start <= whole
    last_end = ends[np.maximum(k - 1, 0)]
    before = cum[k] - np.where(k > 0, np.maximum((last_end - whole) - part, 0.0), 0.0)
    return np.clip(np.diff(before) / (span / width), 0.0, 1.0)


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


def instant_columns(ts: np.ndarray, t0: int, t1: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Pixel columns of [t0, t1) holding at least one of the sorted times ``ts``, and the
    position in ``ts`` of the first one in each: one marker per column, whatever the count."""
    width = int(width)
    if len(ts) == 0 or width <= 0 or t1 <= t0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    idx = np.searchsorted(ts, column_edges(t0, t1, width), side="left")
    x = np.flatnonzero(idx[1:] > idx[:-1])
    return x, idx[x]


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
