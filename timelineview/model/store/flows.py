"""Flow events (``s``/``t``/``f``) → edges bound to slices by the Chrome rules.

Points of one flow are keyed by (cat, id) and ordered by time. Each ``t``/``f`` links
from the latest ``s``/``t`` before it, so one ``s`` with two ``f`` fans out. ``s``
and ``t`` bind to the enclosing slice; ``f`` with ``bp: "e"`` too, otherwise to the
next slice that starts at or after it. Dangling ends are counted, not errors.
"""

from __future__ import annotations

import numpy as np

from timelineview.model.store.interval_index import IntervalIndex


def enclosing_slices(index: IntervalIndex, lane: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """Deepest slice on ``lane[i]`` with start <= ts[i] <= end, or -1."""
    out = np.full(len(ts), -1, dtype=np.int64)
    for ln in np.unique(lane):
        sel = np.flatnonzero(lane == ln)
        t = ts[sel]
        for row in index.rows_of_lane(int(ln)):  # outer to inner: inner rows overwrite
            a, b = int(index.row_ptr[row]), int(index.row_ptr[row + 1])
            if a == b:
                continue
            k = a + np.searchsorted(index.starts[a:b], t, side="right") - 1
            kk = np.maximum(k, a)
            hit = (k >= a) & (index.ends[kk] >= t)
            out[sel[hit]] = index.order[kk[hit]]
    return out


def next_slices(index: IntervalIndex, lane: np.ndarray, ts: np.ndarray) -> np.ndarray:
    """Earliest-starting slice on ``lane[i]`` with start >= ts[i] (any row), or -1."""
    out = np.full(len(ts), -1, dtype=np.int64)
    best = np.full(len(ts), np.iinfo(np.int64).max, dtype=np.int64)
    for ln in np.unique(lane):
        sel = np.flatnonzero(lane == ln)
        t = ts[sel]
        for row in index.rows_of_lane(int(ln)):
            a, b = int(index.row_ptr[row]), int(index.row_ptr[row + 1])
            k = a + np.searchsorted(index.starts[a:b], t, side="left")
            ok = k < b
            kk = np.minimum(k, b - 1)
            cand = np.where(ok, index.starts[kk], np.iinfo(np.int64).max)
            better = ok & (cand < best[sel])
            best[sel[better]] = cand[better]
            out[sel[better]] = index.order[kk[better]]
    return out


def build_edges(ph: np.ndarray, group: np.ndarray, ts: np.ndarray, ordinal: np.ndarray,
                ) -> tuple[np.ndarray, np.ndarray, int]:
    """Edges (src point, dst point) between flow points; also the count of dangling points.

    ``ph``: 0 = s, 1 = t, 2 = f. ``group``: flow key id per point.
    """
    n = len(ph)
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), 0
    order = np.lexsort((ordinal, ph, ts, group))
    g = group[order]
    p = ph[order]
    is_src = p <= 1
    idx = np.arange(n)
    last_src = np.maximum.accumulate(np.where(is_src, idx, -1))
    prev = np.empty(n, dtype=np.int64)
    prev[0] = -1
    prev[1:] = last_src[:-1]
    is_dst = p >= 1
    ok = is_dst & (prev >= 0)
    ok[ok] &= g[prev[ok]] == g[ok]
    src = order[prev[ok]]
    dst = order[idx[ok]]
    used = np.zeros(n, dtype=bool)
    used[prev[ok]] = True
    used[idx[ok]] = True
    dangling = int((~used).sum())
    return src, dst, dangling
