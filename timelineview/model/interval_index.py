"""Interval index: slices of each lane packed into disjoint rows.

A lane's rows are its nesting levels (row 0 = outermost), followed by extra rows for
slices that overlap a sibling without nesting. Inside a row slices are disjoint, so
both starts and ends are sorted and a window query is two binary searches:
O(log n + k).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class IntervalIndex:
    """Rows of disjoint slices; ``order[row_ptr[r]:row_ptr[r+1]]`` are row r's slices by start."""

    row_lane: np.ndarray  # int32, lane of each row
    row_level: np.ndarray  # int16, level of each row inside its lane
    row_ptr: np.ndarray  # int64, n_rows + 1
    order: np.ndarray  # int64 slice indices, row-major, by start inside a row
    starts: np.ndarray  # int64 start of order[i]
    ends: np.ndarray  # int64 end of order[i]
    lane_first_row: np.ndarray  # int64 per lane
    lane_row_count: np.ndarray  # int64 per lane

    @property
    def n_rows(self) -> int:
        return len(self.row_lane)

    def row_of(self, lane: int, depth: int) -> int:
        return int(self.lane_first_row[lane] + depth)

    def _bounds(self, row: int) -> tuple[int, int]:
        return int(self.row_ptr[row]), int(self.row_ptr[row + 1])

    def visible(self, row: int, t0: int, t1: int) -> np.ndarray:
        """Slice indices of ``row`` that intersect [t0, t1] (touching counts), by start."""
        a, b = self._bounds(row)
        lo = a + int(np.searchsorted(self.ends[a:b], t0, side="left"))
        hi = a + int(np.searchsorted(self.starts[a:b], t1, side="right"))
        return self.order[lo:max(lo, hi)]

    def visible_span(self, row: int, t0: int, t1: int) -> tuple[int, int]:
        """Like ``visible`` but returns positions [lo, hi) into ``order``/``starts``/``ends``."""
        a, b = self._bounds(row)
        lo = a + int(np.searchsorted(self.ends[a:b], t0, side="left"))
        hi = a + int(np.searchsorted(self.starts[a:b], t1, side="right"))
        return lo, max(lo, hi)

    def hit(self, row: int, t: int, slop: int = 0) -> int:
        """Slice of ``row`` under time ``t`` (within ``slop`` ns), or -1."""
        a, b = self._bounds(row)
        if a == b:
            return -1
        k = a + int(np.searchsorted(self.starts[a:b], t, side="right")) - 1
        if k >= a and self.ends[k] >= t:
            return int(self.order[k])
        if slop <= 0:
            return -1
        best, best_d = -1, slop + 1
        if k >= a:  # the slice before t
            d = t - int(self.ends[k])
            if d < best_d:
                best, best_d = int(self.order[k]), d
        if k + 1 < b:  # the slice after t
            d = int(self.starts[k + 1]) - t
            if d < best_d:
                best = int(self.order[k + 1])
        return best

    def neighbour(self, row: int, t: int, direction: int) -> int:
        """First slice starting after ``t`` (direction > 0) or last starting before it, or -1."""
        a, b = self._bounds(row)
        if direction > 0:
            k = a + int(np.searchsorted(self.starts[a:b], t, side="right"))
            return int(self.order[k]) if k < b else -1
        k = a + int(np.searchsorted(self.starts[a:b], t, side="left")) - 1
        return int(self.order[k]) if k >= a else -1

    def rows_of_lane(self, lane: int) -> range:
        first = int(self.lane_first_row[lane])
        return range(first, first + int(self.lane_row_count[lane]))


def _stack_levels(start: np.ndarray, end: np.ndarray, idx: list[int]) -> tuple[dict[int, int], list[int]]:
    """Nest ``idx`` (sorted by start, longer first) with a stack; return levels and the overflow."""
    level: dict[int, int] = {}
    overflow: list[int] = []
    stack: list[int] = []  # ends of open slices
    for i in idx:
        s, e = int(start[i]), int(end[i])
        while stack and stack[-1] <= s:
            stack.pop()
        if not stack or e <= stack[-1]:
            level[i] = len(stack)
            stack.append(max(e, s + 1))
        else:
            overflow.append(i)
    return level, overflow


def _pack_lane(start: np.ndarray, end: np.ndarray, idx: list[int]) -> dict[int, int]:
    """Levels for a lane with overlaps: proper nesting first, overflow in further rows."""
    result: dict[int, int] = {}
    base = 0
    pending = idx
    while pending:
        level, overflow = _stack_levels(start, end, pending)
        top = 0
        for i, d in level.items():
            result[i] = base + d
            top = max(top, d + 1)
        base += top
        pending = overflow
    return result


def build_index(start: np.ndarray, dur: np.ndarray, lane: np.ndarray, n_lanes: int,
                tiebreak: np.ndarray | None = None) -> tuple[IntervalIndex, np.ndarray, int]:
    """Assign each slice a row and build the index.

    Returns ``(index, depth, overlapping)`` where ``depth`` is the slice's level within its
    lane and ``overlapping`` counts slices that overlap without nesting (moved to extra rows).
    Ties (same lane and start) put the longer slice first, then file order (``tiebreak``).
    """
    n = len(start)
    start = np.asarray(start, dtype=np.int64)
    dur = np.asarray(dur, dtype=np.int64)
    lane = np.asarray(lane, dtype=np.int64)
    if tiebreak is None:
        tiebreak = np.arange(n, dtype=np.int64)
    end = start + dur
    nest_end = np.maximum(end, start + 1)  # zero-length slices still enclose nothing but nest
    # lane-major, start ascending, longer first, file order
    seq = np.lexsort((tiebreak, -dur, start, lane))
    s_lane = lane[seq]
    s_start = start[seq]
    s_end = nest_end[seq]
    lane_ptr = np.searchsorted(s_lane, np.arange(n_lanes + 1), side="left")
    depth_sorted = np.empty(n, dtype=np.int64)
    for ln in range(n_lanes):
        a, b = int(lane_ptr[ln]), int(lane_ptr[ln + 1])
        if a == b:
            continue
        ends_sorted = np.sort(s_end[a:b])
        depth_sorted[a:b] = np.arange(b - a) - np.searchsorted(ends_sorted, s_start[a:b], side="right")
    bad_lanes = _lanes_violating(s_lane, s_start, s_end, depth_sorted, n_lanes)
    overlapping = 0
    for ln in bad_lanes:
        a, b = int(lane_ptr[ln]), int(lane_ptr[ln + 1])
        idx = list(range(a, b))
        levels = _pack_lane(s_start, s_end, idx)
        first_pass, _ = _stack_levels(s_start, s_end, idx)
        overlapping += (b - a) - len(first_pass)
        for i, d in levels.items():
            depth_sorted[i] = d
    depth = np.empty(n, dtype=np.int64)
    depth[seq] = depth_sorted
    index = _rows_from_depth(start, end, lane, depth, n_lanes, seq, depth_sorted, s_lane)
    return index, depth.astype(np.int16 if depth.max(initial=0) < 32767 else np.int32), overlapping


def _lanes_violating(s_lane: np.ndarray, s_start: np.ndarray, s_end: np.ndarray, depth: np.ndarray,
                     n_lanes: int) -> list[int]:
    """Lanes whose stack-formula depths are not a proper nesting (rows overlap or escape a parent)."""
    n = len(s_lane)
    if n == 0:
        return []
    pos = np.arange(n, dtype=np.int64)
    maxd = int(depth.max()) + 2
    group = s_lane * maxd + depth  # (lane, depth), sorted order inside a group = by start
    g_order = np.argsort(group, kind="stable")
    g_sorted = group[g_order]
    bad = np.zeros(n_lanes, dtype=bool)
    # 1. rows must be disjoint
    same = g_sorted[1:] == g_sorted[:-1]
    overlap = same & (s_start[g_order[1:]] < s_end[g_order[:-1]])
    bad[s_lane[g_order[1:][overlap]]] = True
    # 2. a slice at depth d > 0 must end inside the last depth d-1 slice started before it
    child = depth > 0
    if child.any():
        keys = g_sorted * (n + 1) + pos[g_order]
        q = (group[child] - 1) * (n + 1) + pos[child]
        k = np.searchsorted(keys, q, side="right") - 1
        parent_ok = k >= 0
        kk = np.clip(k, 0, n - 1)
        parent = g_order[kk]
        parent_ok &= g_sorted[kk] == group[child] - 1
        escaped = ~parent_ok | (s_end[child] > s_end[parent])
        bad[s_lane[child][escaped]] = True
    return [int(x) for x in np.flatnonzero(bad)]


def _rows_from_depth(start: np.ndarray, end: np.ndarray, lane: np.ndarray, depth: np.ndarray,
                     n_lanes: int, seq: np.ndarray, depth_sorted: np.ndarray,
                     s_lane: np.ndarray) -> IntervalIndex:
    n = len(start)
    rows_per_lane = np.zeros(n_lanes, dtype=np.int64)
    if n:
        np.maximum.at(rows_per_lane, s_lane, depth_sorted + 1)
    lane_first_row = np.zeros(n_lanes, dtype=np.int64)
    if n_lanes:
        lane_first_row[1:] = np.cumsum(rows_per_lane)[:-1]
    n_rows = int(rows_per_lane.sum())
    row_of_sorted = lane_first_row[s_lane] + depth_sorted if n else np.zeros(0, np.int64)
    # stable sort by row keeps the start order of the lane-major sequence
    by_row = np.argsort(row_of_sorted, kind="stable")
    order = seq[by_row]
    row_ptr = np.searchsorted(row_of_sorted[by_row], np.arange(n_rows + 1), side="left").astype(np.int64)
    row_lane = np.repeat(np.arange(n_lanes, dtype=np.int32), rows_per_lane)
    row_level = (np.arange(n_rows) - np.repeat(lane_first_row, rows_per_lane)).astype(np.int16)
    return IntervalIndex(
        row_lane=row_lane,
        row_level=row_level,
        row_ptr=row_ptr,
        order=order.astype(np.int64),
        starts=start[order],
        ends=end[order],
        lane_first_row=lane_first_row,
        lane_row_count=rows_per_lane,
    )
