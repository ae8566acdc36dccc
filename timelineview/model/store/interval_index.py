"""Interval index: slices of each lane packed into disjoint rows.

A lane's rows are its nesting levels (row 0 = outermost), followed by extra rows for
slices that overlap a sibling without nesting. Inside a row slices are disjoint, so
both starts and ends are sorted and a window query is two binary searches:
O(log n + k).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.model.store import stack_walk


@dataclass
class IntervalIndex:
    """Rows of disjoint slices; ``order[row_ptr[r]:row_ptr[r+1]]`` are row r's slices by start.

    ``starts`` and ``ends`` (the times of ``order``'s slices) are read from the slices' own
    columns the first time they are asked for: a load or an analysis that never draws the
    card never holds them (16 bytes a slice, a fifth of a loaded card).
    """

    row_lane: np.ndarray  # int32, lane of each row
    row_level: np.ndarray  # int16, level of each row inside its lane
    row_ptr: np.ndarray  # int64, n_rows + 1
    order: np.ndarray  # int32 (int64 past 2^31 slices) slice indices, row-major, by start inside a row
    lane_first_row: np.ndarray  # int64 per lane
    lane_row_count: np.ndarray  # int64 per lane

    def bind(self, start: np.ndarray, dur: np.ndarray) -> IntervalIndex:
        """Read ``starts`` and ``ends`` from these slice columns (the card's ``start`` and ``dur``)."""
        self._start, self._dur = start, dur
        self._times: tuple[np.ndarray, np.ndarray] | None = None
        return self

    @property
    def starts(self) -> np.ndarray:
        """int64 start of ``order[i]``."""
        return self._times_of_order()[0]

    @property
    def ends(self) -> np.ndarray:
        """int64 end of ``order[i]``."""
        return self._times_of_order()[1]

    def _times_of_order(self) -> tuple[np.ndarray, np.ndarray]:
        times = getattr(self, "_times", None)
        if times is None:
            if not hasattr(self, "_start"):
                raise ValueError("IntervalIndex: not bound to its slices' columns")
            starts = self._start[self.order]
            ends = self._dur[self.order]
            ends += starts
            times = self._times = (starts, ends)
        return times

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


def radix_argsort(key: np.ndarray) -> np.ndarray:
    """Stable argsort; radix sort when the key fits 16 bits (numpy picks it by dtype)."""
    if len(key) and key.min() >= -32768 and key.max() < 32768:
        return np.argsort(key.astype(np.int16), kind="stable")
    return np.argsort(key, kind="stable")


def tie_runs(tie: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions that belong to runs of equal neighbours (``tie[k]``: item k+1 equals item
    k), and the run number of each (increasing along the positions; numbered only where
    ties are, so no temporary as long as ``tie``)."""
    in_run = np.zeros(len(tie) + 1, dtype=bool)
    in_run[1:] |= tie
    in_run[:-1] |= tie
    pos = np.flatnonzero(in_run)
    del in_run
    new_run = np.ones(len(pos), dtype=bool)
    new_run[1:] = ~tie[pos[1:] - 1]
    return pos, np.cumsum(new_run)


def lane_time_order(lane: np.ndarray, start: np.ndarray, dur: np.ndarray, src: np.ndarray) -> np.ndarray:
    """Slice order by lane, start, longer first, file position: ``_sort_lane``'s order for the whole
    card at once.

    Two stable passes (start, then lane) cost little on time-sorted files; only runs of
    equal (lane, start) are sorted further.
    """
    by_start = np.argsort(start, kind="stable")
    seq = by_start[radix_argsort(lane[by_start])]
    if len(seq) < 2:
        return seq
    s_lane, s_start = lane[seq], start[seq]
    tie = (s_lane[1:] == s_lane[:-1]) & (s_start[1:] == s_start[:-1])
    if tie.any():
        pos, run_id = tie_runs(tie)
        sub = seq[pos]
        seq[pos] = sub[np.lexsort((src[sub], -dur[sub], run_id))]
    return seq


MAX_PEEL = 64
STACK_LIMIT = 300_000  # when a card's overlapping lanes hold no more slices, an exact stack walk lays them out
GROUP_CHUNK = 1 << 20  # slices grouped by lane per step: the grouping's temporaries stay this size


def build_index(start: np.ndarray, dur: np.ndarray, lane: np.ndarray, n_lanes: int,
                seq: np.ndarray | None = None, src: np.ndarray | None = None
                ) -> tuple[IntervalIndex, np.ndarray, int]:
    """Assign each slice a row and build the index.

    The slices are grouped by lane into the index's own ``order`` and each lane is then
    ordered, levelled and laid out in rows on its own: beyond its inputs and outputs the
    build holds temporaries the size of its largest lane, not of the card. ``seq`` is the
    slice order from ``lane_time_order`` when the caller has it; else ``src`` (file
    positions; by default the slices' own) breaks ties of equal lane, start and duration
    the same way. Returns ``(index, depth, overlapping)``: ``depth`` is each slice's row
    level inside its lane, ``overlapping`` counts slices that overlap without nesting
    (extra rows).
    """
    n = len(start)
    start = np.asarray(start, dtype=np.int64)
    dur = np.asarray(dur, dtype=np.int64)
    lane = np.asarray(lane)
    counts = _lane_counts(lane, n_lanes)
    bounds = np.zeros(n_lanes + 1, dtype=np.int64)
    np.cumsum(counts, out=bounds[1:])
    order = np.empty(n, dtype=slice_index_dtype(n))
    if seq is not None:
        order[:] = seq  # lane-time order: each lane's slices are already together, in order
    else:
        _group_by_lane(lane, bounds, order)
    build = _LaneRows(order, bounds, counts)
    peeled: list[int] = []  # lanes whose slices break nesting: laid out once all are known
    # a lane already in time order, each slice ending by the next one's start, is one row as it stands:
    # only the others are handled one by one (a card can have as many lanes as slices)
    for ln in np.flatnonzero(~_in_order_and_apart(order, bounds, lane, start, dur)).tolist():
        seg = build.segment(ln)
        s_start = start[seg] if seq is not None else _sort_lane(seg, start, dur, src)
        level = _lane_levels(s_start, _lane_ends(seg, s_start, dur))
        del s_start
        if level is _BREAKS_NESTING:
            peeled.append(ln)
        else:
            build.place(ln, level)
    if peeled:
        build.overlapping = _lay_out_peeled(build, peeled, start, dur)
    return build.index(start, dur), build.depth, build.overlapping


_FLAT = None  # a lane whose slices never overlap: all on level 0
_BREAKS_NESTING = "breaks nesting"  # a lane laid out by the stack walk or by peeling


class _LaneRows:
    """The outputs of a build, filled one lane at a time: ``order`` (grouped by lane), each
    slice's ``depth`` and each lane's rows. A lane not given levels is one row of all its
    slices at depth 0."""

    def __init__(self, order: np.ndarray, bounds: np.ndarray, counts: np.ndarray) -> None:
        self.order, self.bounds, self.counts = order, bounds, counts
        self.depth = np.zeros(len(order), dtype=np.int16)
        self.rows_per_lane = (counts > 0).astype(np.int64)
        self.row_sizes: dict[int, np.ndarray] = {}  # the lanes of several rows: each row's slices
        self.overlapping = 0

    def segment(self, ln: int) -> np.ndarray:
        """Lane ``ln``'s slices: a view of ``order``."""
        return self.order[self.bounds[ln]:self.bounds[ln + 1]]

    def set_levels(self, ln: int, level: np.ndarray | None) -> None:
        """Record the levels of lane ``ln``'s slices (its segment in time order) without
        reordering the segment."""
        seg = self.segment(ln)
        if level is _FLAT:
            return  # one row, depth 0: as the lane starts
        top = int(level.max())
        if top >= np.iinfo(np.int16).max and self.depth.dtype == np.int16:
            self.depth = self.depth.astype(np.int32)
        self.depth[seg] = level
        self.row_sizes[ln] = np.bincount(level, minlength=top + 1)
        self.rows_per_lane[ln] = top + 1

    def place(self, ln: int, level: np.ndarray | None) -> None:
        """Record lane ``ln``'s levels and reorder its segment row-major (by level, then time)."""
        self.set_levels(ln, level)
        if level is not _FLAT:
            seg = self.segment(ln)
            seg[:] = seg[radix_argsort(level)]

    def index(self, start: np.ndarray, dur: np.ndarray) -> IntervalIndex:
        rows_per_lane = self.rows_per_lane
        n_lanes = len(rows_per_lane)
        lane_first_row = np.zeros(n_lanes, dtype=np.int64)
        if n_lanes:
            lane_first_row[1:] = np.cumsum(rows_per_lane)[:-1]
        n_rows = int(rows_per_lane.sum())
        sizes = np.zeros(n_rows, dtype=np.int64)
        one_row = rows_per_lane == 1
        sizes[lane_first_row[one_row]] = self.counts[one_row]
        for ln, lane_sizes in self.row_sizes.items():
            sizes[lane_first_row[ln]:lane_first_row[ln] + len(lane_sizes)] = lane_sizes
        row_ptr = np.zeros(n_rows + 1, dtype=np.int64)
        np.cumsum(sizes, out=row_ptr[1:])
        return IntervalIndex(
            row_lane=np.repeat(np.arange(n_lanes, dtype=np.int32), rows_per_lane),
            row_level=(np.arange(n_rows) - np.repeat(lane_first_row, rows_per_lane)).astype(np.int16),
            row_ptr=row_ptr,
            order=self.order,
            lane_first_row=lane_first_row,
            lane_row_count=rows_per_lane,
        ).bind(start, dur)


def _in_order_and_apart(order: np.ndarray, bounds: np.ndarray, lane: np.ndarray, start: np.ndarray,
                        dur: np.ndarray) -> np.ndarray:
    """Per lane: whether its slices, as ``order`` holds them, are by start with each ending (a
    zero-length one 1 ns after its start, as ``_lane_ends``) by the next one's start. Such a lane
    is its own time order (no two start together) and one row; found a chunk of the card at a
    time."""
    n_lanes = len(bounds) - 1
    fine = np.ones(n_lanes, dtype=bool)
    for c0 in range(0, max(len(order) - 1, 0), GROUP_CHUNK):
        idx = order[c0:c0 + GROUP_CHUNK + 1]  # one past the chunk: its last pair
        s_start = start[idx]
        s_end = dur[idx]
        np.maximum(s_end, 1, out=s_end)
        s_end += s_start
        at = lane[idx]
        clash = (at[1:] == at[:-1]) & (s_start[1:] < s_end[:-1])
        fine[at[1:][clash]] = False
    return fine


def _lane_counts(lane: np.ndarray, n_lanes: int) -> np.ndarray:
    """Slices per lane, counted a chunk at a time (``bincount`` widens its input)."""
    counts = np.zeros(n_lanes, dtype=np.int64)
    for c0 in range(0, len(lane), GROUP_CHUNK):
        chunk = lane[c0:c0 + GROUP_CHUNK]
        if chunk.min() < 0 or chunk.max() >= n_lanes:
            raise ValueError(f"interval index: lane numbers outside 0..{n_lanes - 1}")
        counts += np.bincount(chunk, minlength=n_lanes)
    return counts


def _group_by_lane(lane: np.ndarray, bounds: np.ndarray, out: np.ndarray) -> None:
    """Stable counting sort of the slices by lane into ``out``: each lane's slices go to
    ``out[bounds[ln]:bounds[ln + 1]]`` in file order, a chunk of the card at a time."""
    n_lanes = len(bounds) - 1
    cursor = bounds[:-1].copy()
    narrow = n_lanes <= np.iinfo(np.int16).max  # numpy radix-sorts 16-bit keys
    for c0 in range(0, len(lane), GROUP_CHUNK):
        chunk = lane[c0:c0 + GROUP_CHUNK]
        by_lane = np.argsort(chunk.astype(np.int16) if narrow else chunk, kind="stable")
        counts = np.bincount(chunk, minlength=n_lanes)
        chunk_lane = chunk[by_lane]
        pos = np.arange(len(chunk), dtype=np.int64)
        pos += cursor[chunk_lane]
        pos -= (np.cumsum(counts) - counts)[chunk_lane]
        del chunk_lane
        by_lane += c0
        out[pos] = by_lane
        cursor += counts


def _sort_lane(seg: np.ndarray, start: np.ndarray, dur: np.ndarray, src: np.ndarray | None) -> np.ndarray:
    """Put one lane's slices (``seg``, in file order) in ``lane_time_order``'s order, in place:
    by start, equal starts longer first, then by ``src`` (by default the slice numbers).
    Returns their starts in that order."""
    s_start = start[seg]
    if len(seg) > 1 and not (s_start[1:] >= s_start[:-1]).all():
        by_start = np.argsort(s_start, kind="stable")
        seg[:] = seg[by_start]
        s_start = s_start[by_start]
        del by_start
    tie = s_start[1:] == s_start[:-1]
    if tie.any():
        pos, run = tie_runs(tie)
        sub = seg[pos]
        seg[pos] = sub[np.lexsort((sub if src is None else src[sub], -dur[sub], run))]
    return s_start


def _lane_ends(seg: np.ndarray, s_start: np.ndarray, dur: np.ndarray) -> np.ndarray:
    """End of one lane's slices (starts ``s_start``); zero-length slices end 1 ns after they
    start (they still take a row)."""
    s_end = dur[seg]
    np.maximum(s_end, 1, out=s_end)
    s_end += s_start
    return s_end


def _lane_times(seg: np.ndarray, start: np.ndarray, dur: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end (as ``_lane_ends``) of one lane's slices."""
    s_start = start[seg]
    return s_start, _lane_ends(seg, s_start, dur)


def _lane_levels(s_start: np.ndarray, s_end: np.ndarray) -> np.ndarray | None | str:
    """Row levels of one lane (slices by start, longer first): ``_FLAT`` when its slices never
    overlap (most hardware streams), their stack depths when they nest properly, else
    ``_BREAKS_NESTING``."""
    if len(s_start) < 2 or not (s_start[1:] < s_end[:-1]).any():
        return _FLAT
    depth = _depths(s_start, s_end)
    if _violations(s_start, s_end, depth).any():
        return _BREAKS_NESTING
    return depth


def _lay_out_peeled(build: _LaneRows, lanes: list[int], start: np.ndarray, dur: np.ndarray) -> int:
    """Levels of the lanes that break nesting; returns how many slices overlap without nesting.

    Up to ``STACK_LIMIT`` slices in all go through the exact stack walk; past it they are
    peeled in rounds, lane by lane. Peeling that does not settle in ``MAX_PEEL`` steps
    lays out one slice per round across all these lanes at once, so then the lanes are
    peeled together (holding all their times).
    """
    total = int(sum(len(build.segment(ln)) for ln in lanes))
    overlapping = 0
    if total <= STACK_LIMIT:
        for ln in lanes:
            level, over = stack_walk.stack_levels(*_lane_times(build.segment(ln), start, dur))
            build.set_levels(ln, level)
            overlapping += over
    else:
        settled = True
        for ln in lanes:
            levels, over, settled = _peel([_lane_times(build.segment(ln), start, dur)])
            if not settled:
                break
            build.set_levels(ln, levels[0])
            overlapping += over
        if not settled:
            levels, overlapping, _ = _peel([_lane_times(build.segment(ln), start, dur) for ln in lanes])
            for ln, level in zip(lanes, levels):
                build.set_levels(ln, level)
    for ln in lanes:  # segments stay in time order until every lane is levelled
        seg = build.segment(ln)
        seg[:] = seg[radix_argsort(build.depth[seg])]
    return overlapping


def _depths(s_start: np.ndarray, s_end: np.ndarray) -> np.ndarray:
    """Stack depth of each slice of one lane (sorted by start): open slices before it."""
    depth = np.arange(len(s_start), dtype=slice_index_dtype(len(s_start)))
    ends_sorted = np.sort(s_end, kind="stable")
    for c0 in range(0, len(s_start), GROUP_CHUNK):  # a chunk at a time: no second lane-long temporary
        depth[c0:c0 + GROUP_CHUNK] -= np.searchsorted(ends_sorted, s_start[c0:c0 + GROUP_CHUNK], side="right")
    return depth


def _violations(s_start: np.ndarray, s_end: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """Slices of one lane that break proper nesting: those that escape their parent (the last
    slice one level up before them: they have none, or end after it).

    Where every slice fits its parent the open slices at any start form a chain of depths
    0, 1, ... (by induction over the slices), so a row's slices cannot overlap: a slice open
    at the start of the next one of its level would be in that chain at its own depth. A
    lane without escapers is therefore properly nested.
    """
    n = len(s_start)
    bad = np.zeros(n, dtype=bool)
    child = np.flatnonzero(depth > 0)
    if not len(child):
        return bad
    # keys (depth, position) sorted; a key's position is key % (n + 1): no separate order array
    keys = radix_argsort(depth)
    for c0 in range(0, n, GROUP_CHUNK):
        part = keys[c0:c0 + GROUP_CHUNK]
        part += depth[part] * np.int64(n + 1)
    q = depth[child].astype(np.int64)
    q -= 1
    q *= n + 1
    q += child
    k = np.searchsorted(keys, q, side="right")
    del q
    k -= 1
    ok = k >= 0
    np.maximum(k, 0, out=k)
    parent = keys[k]
    del k, keys
    ok &= parent // (n + 1) == depth[child] - 1  # one level up: else the child has no parent
    parent %= n + 1
    ok &= s_end[child] <= s_end[parent]
    bad[child[~ok]] = True
    return bad


def _not_collateral(bad: np.ndarray, s_end: np.ndarray) -> np.ndarray:
    """Keep only violators of one lane not inside an earlier violator.

    A slice inside a partial overlapper looks wrong only because of it; peel the
    overlapper first and the inner slice usually nests.
    """
    idx = np.flatnonzero(bad)
    ends = s_end[idx]
    keep = np.ones(len(idx), dtype=bool)
    keep[1:] = ends[1:] > np.maximum.accumulate(ends)[:-1]
    out = np.zeros_like(bad)
    out[idx[keep]] = True
    return out


def _peel_step(s_start: np.ndarray, s_end: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """One round of peeling of one lane's remaining slices: which nest once the violators are
    peeled off and their depths, or None when ``MAX_PEEL`` peels do not settle it."""
    active = np.arange(len(s_start))
    for _ in range(MAX_PEEL):
        d = _depths(s_start[active], s_end[active])
        bad = _violations(s_start[active], s_end[active], d)
        if not bad.any():
            nests = np.zeros(len(s_start), dtype=bool)
            nests[active] = True
            return nests, d
        active = active[~_not_collateral(bad, s_end[active])]
    return None


def _peel(lanes: list[tuple[np.ndarray, np.ndarray]]) -> tuple[list[np.ndarray], int, bool]:
    """Levels of lanes (their starts and ends by start) peeled in rounds, vectorised: each round
    lays out, in new rows below the last, the slices that nest once the violators are peeled
    off; the violators wait for the next round. A round where some lane does not settle lays
    out only the first waiting slice of the first lane, alone in a row.

    Returns the levels, how many slices the first round left waiting, and whether every
    round settled (then each lane's levels are those it gets peeled alone).
    """
    levels = [np.full(len(s), -1, dtype=np.int64) for s, _ in lanes]
    waiting = [np.arange(len(s)) for s, _ in lanes]
    base = [0] * len(lanes)
    steps: list = [None] * len(lanes)  # each lane's round, kept while its waiting slices are unchanged
    overlapping, settled = -1, True
    while True:
        live = [i for i, w in enumerate(waiting) if len(w)]
        if not live:
            break
        for i in live:
            if steps[i] is None:
                s_start, s_end = lanes[i]
                steps[i] = _peel_step(s_start[waiting[i]], s_end[waiting[i]]) or False
        if all(steps[i] for i in live):
            if overlapping < 0:
                overlapping = sum(int((~steps[i][0]).sum()) for i in live)
            for i in live:
                nests, d = steps[i]
                levels[i][waiting[i][nests]] = base[i] + d
                base[i] += int(d.max()) + 1
                waiting[i] = waiting[i][~nests]
                steps[i] = None
        else:
            settled = False
            if overlapping < 0:
                overlapping = sum(len(waiting[i]) for i in live) - 1
            i = live[0]
            levels[i][waiting[i][0]] = base[i]
            base[i] += 1
            waiting[i] = waiting[i][1:]
            steps[i] = None
    return levels, max(overlapping, 0), settled


def slice_index_dtype(n: int) -> type:
    """The narrowest of int32 and int64 that numbers ``n`` slices: a card keeps several slice-long
    columns of slice numbers."""
    return np.int32 if n < 2**31 else np.int64
