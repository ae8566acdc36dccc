"""The interval index's build as it was before it went lane by lane: a reference, kept unchanged
(but for this header, public names, and ``lane_time_order`` copied in as it was), that the tests and
the build benchmark compare the lane-by-lane build against. It sorts and levels the whole card at
once, so it holds many card-sized temporaries.

``STACK_LIMIT`` here is this copy's own: a test that forces the peeling path sets both.
"""

from __future__ import annotations

import numpy as np

from timelineview.model.store import stack_walk
from timelineview.model.store.interval_index import IntervalIndex, radix_argsort, slice_index_dtype

MAX_PEEL = 64
STACK_LIMIT = 300_000


def lane_time_order(lane: np.ndarray, start: np.ndarray, dur: np.ndarray, src: np.ndarray) -> np.ndarray:
    """Slice order by lane, start, longer first, file position: two stable passes over the whole
    card (start, then lane), then the runs of equal (lane, start) sorted further."""
    by_start = np.argsort(start, kind="stable")
    seq = by_start[radix_argsort(lane[by_start])]
    if len(seq) < 2:
        return seq
    s_lane, s_start = lane[seq], start[seq]
    tie = (s_lane[1:] == s_lane[:-1]) & (s_start[1:] == s_start[:-1])
    if tie.any():
        in_run = np.zeros(len(tie) + 1, dtype=bool)
        in_run[1:] |= tie
        in_run[:-1] |= tie
        pos = np.flatnonzero(in_run)
        run_id = np.cumsum(np.concatenate(([True], ~tie)))[pos]
        sub = seq[pos]
        seq[pos] = sub[np.lexsort((src[sub], -dur[sub], run_id))]
    return seq


def _depths(s_lane: np.ndarray, s_start: np.ndarray, s_end: np.ndarray) -> np.ndarray:
    """Stack depth of each slice (sequence sorted by lane then start): open slices before it."""
    n = len(s_lane)
    depth = np.empty(n, dtype=np.int64)
    if n == 0:
        return depth
    bounds = np.flatnonzero(np.diff(s_lane)) + 1
    edges = np.concatenate(([0], bounds, [n]))
    for a, b in zip(edges[:-1], edges[1:]):
        ends_sorted = np.sort(s_end[a:b], kind="stable")
        depth[a:b] = np.arange(b - a) - np.searchsorted(ends_sorted, s_start[a:b], side="right")
    return depth


def _violations(s_lane: np.ndarray, s_start: np.ndarray, s_end: np.ndarray,
                depth: np.ndarray) -> np.ndarray:
    """Slices that break proper nesting: those that escape their parent, else row overlaps."""
    n = len(s_lane)
    bad = np.zeros(n, dtype=bool)
    if n < 2:
        return bad
    g_order = radix_argsort(depth)
    g_order = g_order[radix_argsort(s_lane[g_order])]  # (lane, depth), by start inside
    child = np.flatnonzero(depth > 0)
    if len(child):
        # parent = last slice one level up (same lane) that comes before the child
        maxd = int(depth.max()) + 2
        group = s_lane.astype(np.int64)
        group *= maxd
        group += depth
        # in place, each let go once used: these slice-sized temporaries are the index build's peak
        keys = group[g_order]
        keys *= n + 1
        keys += g_order
        q = group[child]
        q -= 1
        q *= n + 1
        q += child
        k = np.searchsorted(keys, q, side="right")
        del keys, q
        k -= 1
        ok = k >= 0
        np.clip(k, 0, n - 1, out=k)
        parent = g_order[k]
        del k
        ok &= (group[parent] == group[child] - 1) & (s_end[child] <= s_end[parent])
        bad[child[~ok]] = True
        if bad.any():
            return bad
    same_row = (s_lane[g_order[1:]] == s_lane[g_order[:-1]]) & (depth[g_order[1:]] == depth[g_order[:-1]])
    overlap = same_row & (s_start[g_order[1:]] < s_end[g_order[:-1]])
    bad[g_order[1:][overlap]] = True
    return bad




def _not_collateral(bad: np.ndarray, s_lane: np.ndarray, s_end: np.ndarray) -> np.ndarray:
    """Keep only violators not inside an earlier violator of their lane.

    A slice inside a partial overlapper looks wrong only because of it; peel the
    overlapper first and the inner slice usually nests.
    """
    idx = np.flatnonzero(bad)
    lanes = s_lane[idx]
    ends = s_end[idx]
    keep = np.ones(len(idx), dtype=bool)
    bounds = np.flatnonzero(np.diff(lanes)) + 1
    for a, b in zip(np.concatenate(([0], bounds)), np.concatenate((bounds, [len(idx)]))):
        run_max = np.maximum.accumulate(ends[a:b])
        keep[a + 1:b] = ends[a + 1:b] > run_max[:-1]
    out = np.zeros_like(bad)
    out[idx[keep]] = True
    return out


def _levels(s_lane: np.ndarray, s_start: np.ndarray, s_end: np.ndarray,
            n_lanes: int) -> tuple[np.ndarray, int]:
    """Row level of each slice inside its lane, and how many overlap without nesting.

    Lanes whose slices never overlap (most hardware streams) are all level 0; only the
    others go through the nesting computation.
    """
    n = len(s_lane)
    if n < 2:
        return np.zeros(n, dtype=np.int64), 0
    touches = (s_lane[1:] == s_lane[:-1]) & (s_start[1:] < s_end[:-1])
    if not touches.any():
        return np.zeros(n, dtype=np.int64), 0
    nesting = np.isin(s_lane, np.unique(s_lane[1:][touches]))
    del touches
    if nesting.all():  # every lane nests: no copy of the columns
        return _nested_levels(s_lane, s_start, s_end, n_lanes)
    sel = np.flatnonzero(nesting)
    del nesting
    level = np.zeros(n, dtype=np.int64)
    level[sel], overlapping = _nested_levels(s_lane[sel], s_start[sel], s_end[sel], n_lanes)
    return level, overlapping


def _nested_levels(s_lane: np.ndarray, s_start: np.ndarray, s_end: np.ndarray,
                   n_lanes: int) -> tuple[np.ndarray, int]:
    """Levels for lanes with overlapping slices: proper nesting by depth, the rest peeled.

    Slices that break nesting are peeled off (by an exact stack walk, or vectorised in a
    few rounds for very large lanes) and laid out the same way in rows below.
    """
    n = len(s_lane)
    d = _depths(s_lane, s_start, s_end)
    bad = _violations(s_lane, s_start, s_end, d)
    if not bad.any():
        return d, 0
    level = np.full(n, -1, dtype=np.int64)
    bad_lanes = np.unique(s_lane[bad])
    in_bad = np.isin(s_lane, bad_lanes)
    level[~in_bad] = d[~in_bad]
    if in_bad.sum() <= STACK_LIMIT:
        overlapping = 0
        for ln in bad_lanes:
            sel = np.flatnonzero(s_lane == ln)
            level[sel], over = stack_walk.stack_levels(s_start[sel], s_end[sel])
            overlapping += over
        return level, overlapping
    base = np.zeros(n_lanes, dtype=np.int64)
    remaining = np.flatnonzero(in_bad)
    overlapping = -1
    while len(remaining):
        active = remaining
        for _ in range(MAX_PEEL):
            d = _depths(s_lane[active], s_start[active], s_end[active])
            bad = _violations(s_lane[active], s_start[active], s_end[active], d)
            if not bad.any():
                break
            bad = _not_collateral(bad, s_lane[active], s_end[active])
            active = active[~bad]
        else:  # pathological: put what is left one slice per row
            d = np.zeros(len(active), dtype=np.int64)
            active = active[:1]
            d = d[:1]
        if overlapping < 0:
            overlapping = len(remaining) - len(active)
        lanes_here = s_lane[active]
        level[active] = base[lanes_here] + d
        top = np.zeros(n_lanes, dtype=np.int64)
        np.maximum.at(top, lanes_here, d + 1)
        base += top
        remaining = remaining[level[remaining] < 0]
    return level, max(overlapping, 0)


def reference_build_index(start: np.ndarray, dur: np.ndarray, lane: np.ndarray, n_lanes: int,
                seq: np.ndarray | None = None) -> tuple[IntervalIndex, np.ndarray, int]:
    """Assign each slice a row and build the index.

    ``seq`` is the slice order from ``lane_time_order`` (computed when not given).
    Returns ``(index, depth, overlapping)``: ``depth`` is each slice's row level inside
    its lane, ``overlapping`` counts slices that overlap without nesting (extra rows).
    """
    n = len(start)
    start = np.asarray(start, dtype=np.int64)
    dur = np.asarray(dur, dtype=np.int64)
    lane = np.asarray(lane)
    if seq is None:
        seq = lane_time_order(lane, start, dur, np.arange(n))
    s_lane = lane[seq].astype(np.int32, copy=False)
    s_start = start[seq]
    # in place: each temporary of a column is a slice-sized array at the load's peak
    s_end = dur[seq]
    np.maximum(s_end, 1, out=s_end)  # zero-length slices still take a row
    s_end += s_start
    level, overlapping = _levels(s_lane, s_start, s_end, n_lanes)
    del s_start, s_end
    level = level.astype(np.int16 if level.max(initial=0) < 32767 else np.int32)
    depth = np.empty(n, dtype=level.dtype)
    depth[seq] = level
    index = _rows_from_levels(start, dur, n_lanes, seq, level, s_lane)
    return index, depth, overlapping


def _rows_from_levels(start: np.ndarray, dur: np.ndarray, n_lanes: int, seq: np.ndarray,
                      level: np.ndarray, s_lane: np.ndarray) -> IntervalIndex:
    n = len(start)
    rows_per_lane = np.zeros(n_lanes, dtype=np.int64)
    if n:
        first = np.concatenate(([0], np.flatnonzero(np.diff(s_lane)) + 1))  # s_lane is sorted
        rows_per_lane[s_lane[first]] = np.maximum.reduceat(level, first).astype(np.int64) + 1
    lane_first_row = np.zeros(n_lanes, dtype=np.int64)
    if n_lanes:
        lane_first_row[1:] = np.cumsum(rows_per_lane)[:-1]
    n_rows = int(rows_per_lane.sum())
    by_row = radix_argsort(level)
    lane_key = s_lane[by_row]
    lane_order = radix_argsort(lane_key)  # lane, level; start order kept
    del lane_key
    by_row = by_row[lane_order]
    del lane_order
    row_of = lane_first_row[s_lane]  # row of each slice in lane-time order
    row_of += level
    row_ptr = np.zeros(n_rows + 1, dtype=np.int64)
    np.cumsum(np.bincount(row_of, minlength=n_rows), out=row_ptr[1:])
    del row_of
    order = seq[by_row]
    del by_row
    return IntervalIndex(
        row_lane=np.repeat(np.arange(n_lanes, dtype=np.int32), rows_per_lane),
        row_level=(np.arange(n_rows) - np.repeat(lane_first_row, rows_per_lane)).astype(np.int16),
        row_ptr=row_ptr,
        order=order.astype(slice_index_dtype(n), copy=False),
        lane_first_row=lane_first_row,
        lane_row_count=rows_per_lane,
    ).bind(start, dur)


