"""Interval index against brute force: rows are disjoint, nesting is real, queries are exact."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from timelineview.model.load.jit import scanner_available, warm_scanner
from timelineview.model.store import stack_walk
from timelineview.model.store.interval_index import build_index


def nested_lane(rng: np.random.Generator, t0: int, t1: int, depth: int, out: list) -> None:
    """Properly nested random slices inside [t0, t1)."""
    t = t0
    while t < t1 and depth < 6:
        start = t + int(rng.integers(0, 50))
        end = min(t1, start + int(rng.integers(0, 400)))
        if start >= t1:
            break
        out.append((start, end - start))
        if end - start > 20 and rng.random() < 0.6:
            nested_lane(rng, start, end, depth + 1, out)
        t = end
    return None


def check_index(start, dur, lane, n_lanes):
    index, depth, overlapping = build_index(start, dur, lane, n_lanes)
    end = start + dur
    n = len(start)
    assert sorted(index.order.tolist()) == list(range(n))  # nothing dropped or duplicated
    for r in range(index.n_rows):
        a, b = index.row_ptr[r], index.row_ptr[r + 1]
        idx = index.order[a:b]
        assert (lane[idx] == index.row_lane[r]).all()
        assert (depth[idx] == index.row_level[r]).all()
        s, e = start[idx], np.maximum(end[idx], start[idx] + 1)
        assert (np.diff(s) >= 0).all() and (s[1:] >= e[:-1]).all(), "row slices overlap"
    return index, depth, overlapping


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), lanes=st.integers(1, 4))
def test_properly_nested_slices_get_their_depth(seed, lanes):
    rng = np.random.default_rng(seed)
    rows = []
    for ln in range(lanes):
        out: list = []
        nested_lane(rng, 0, 5000, 0, out)
        rows += [(s, d, ln) for s, d in out]
    if not rows:
        return
    perm = rng.permutation(len(rows))
    start, dur, lane = (np.array(c, dtype=np.int64) for c in zip(*[rows[i] for i in perm]))
    index, depth, overlapping = check_index(start, dur, lane, lanes)
    assert overlapping == 0
    # depth by brute force: number of slices on the lane that strictly enclose this one
    # (ties: the longer one, or the earlier in file order for identical ones, is the parent)
    for i in range(len(start)):
        enclosing = 0
        for j in range(len(start)):
            if j == i or lane[j] != lane[i]:
                continue
            ei, ej = max(start[i] + dur[i], start[i] + 1), max(start[j] + dur[j], start[j] + 1)
            if start[j] <= start[i] and ei <= ej:
                if (start[j], -dur[j], j) < (start[i], -dur[i], i):
                    enclosing += 1
        assert depth[i] == enclosing


def reference_levels(start, dur) -> list[int]:
    """The documented rule, written plainly: nest in the innermost open slice if it fits,
    else overflow; overflow slices are laid out the same way in the rows below."""
    order = sorted(range(len(start)), key=lambda i: (start[i], -dur[i], i))
    level = [0] * len(start)
    base, pending = 0, order
    while pending:
        stack, overflow, top = [], [], 0
        for i in pending:
            s, e = int(start[i]), max(int(start[i] + dur[i]), int(start[i]) + 1)
            while stack and stack[-1] <= s:
                stack.pop()
            if not stack or e <= stack[-1]:
                level[i] = base + len(stack)
                stack.append(e)
                top = max(top, len(stack))
            else:
                overflow.append(i)
        base += top
        pending = overflow
    return level


def random_slices(seed: int, n: int, span: int, lanes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, dur, lane) of n slices up to 300 long starting in [0, span), many overlapping."""
    rng = np.random.default_rng(seed)
    start = rng.integers(0, span, n).astype(np.int64)
    dur = rng.integers(0, 300, n).astype(np.int64)
    return start, dur, rng.integers(0, lanes, n).astype(np.int64)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 120))
def test_overlapping_slices_follow_the_nesting_rule(seed, n):
    start, dur, lane = random_slices(seed, n, 1000, 2)
    index, depth, _ = check_index(start, dur, lane, 2)
    for ln in (0, 1):
        sel = np.flatnonzero(lane == ln)
        assert depth[sel].tolist() == reference_levels(start[sel], dur[sel])


@pytest.mark.skipif(not scanner_available(), reason="numba is not installed")
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1001, 2500))
def test_large_overlapping_lanes_take_the_compiled_walk_with_the_same_rule(seed, n):
    warm_scanner()  # the index build uses the compiled walk once numba is loaded
    start, dur, lane = random_slices(seed, n, 20 * n, 1)
    calls = []
    compiled = stack_walk.stack_levels_compiled
    with mock.patch.object(stack_walk, "stack_levels_compiled", lambda *a: calls.append(1) or compiled(*a)):
        index, depth, overlapping = check_index(start, dur, lane, 1)
    assert calls
    assert depth.tolist() == reference_levels(start, dur)
    level = np.full(n, -1, dtype=np.int64)
    order = np.lexsort((np.arange(n), -dur, start))
    first_overflow = stack_walk.stack_levels_python(start[order].tolist(),
                                                    np.maximum(start + dur, start + 1)[order].tolist(), level)
    assert overlapping == first_overflow > 0


def test_stack_walk_by_hand():
    # [0,10) [2,5) [3,12) [4,5) [11,13): [3,12) does not fit in [2,5) and overflows; in the
    # second pass it is alone, below the three levels ([4,5) is at level 2) of the first
    starts, ends = [0, 2, 3, 4, 11], [10, 5, 12, 5, 13]
    for walk in (stack_walk.stack_levels_python, stack_walk.stack_levels_compiled):
        if walk is stack_walk.stack_levels_compiled and not scanner_available():
            continue
        level = np.full(5, -1, dtype=np.int64)
        args = (starts, ends) if walk is stack_walk.stack_levels_python else (np.array(starts), np.array(ends))
        assert walk(*args, level) == 1
        assert level.tolist() == [0, 1, 3, 2, 0]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 200))
def test_vectorised_peeling_keeps_rows_disjoint(seed, n):
    import timelineview.model.store.interval_index as ii

    start, dur, lane = random_slices(seed, n, 1000, 3)
    saved = ii.STACK_LIMIT
    ii.STACK_LIMIT = 0  # force the path used for very large overlapping lanes
    try:
        check_index(start, dur, lane, 3)
    finally:
        ii.STACK_LIMIT = saved


def test_partial_overlap_goes_to_an_extra_row_and_is_counted():
    # lane 0: P[0,10) A[1,5) G[2,3) B[6,9); lane 1: X[0,10) Y[5,15) Z[11,12)
    start = np.array([0, 1, 2, 6, 0, 5, 11])
    dur = np.array([10, 4, 1, 3, 10, 10, 1])
    lane = np.array([0, 0, 0, 0, 1, 1, 1])
    index, depth, overlapping = check_index(start, dur, lane, 2)
    assert depth.tolist() == [0, 1, 2, 1, 0, 1, 0]
    assert overlapping == 1
    assert index.lane_row_count.tolist() == [3, 2]


@pytest.mark.parametrize("seed", range(5))
def test_queries_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    out: list = []
    nested_lane(rng, 0, 20000, 0, out)
    start, dur = (np.array(c, dtype=np.int64) for c in zip(*out))
    lane = np.zeros(len(start), dtype=np.int64)
    index, depth, _ = check_index(start, dur, lane, 1)
    end = start + dur
    for _ in range(50):
        t0 = int(rng.integers(-100, 20000))
        t1 = t0 + int(rng.integers(0, 3000))
        for r in range(index.n_rows):
            got = index.visible(r, t0, t1).tolist()
            want = [i for i in np.argsort(start, kind="stable") if depth[i] == r and end[i] >= t0 and start[i] <= t1]
            assert sorted(got) == sorted(want)
            t = t0
            hit = index.hit(r, t)
            inside = [i for i in range(len(start)) if depth[i] == r and start[i] <= t <= end[i]]
            assert (hit in inside) if inside else hit == -1
            nxt = index.neighbour(r, t, +1)
            later = [i for i in range(len(start)) if depth[i] == r and start[i] > t]
            assert nxt == (min(later, key=lambda i: start[i]) if later else -1)
            prev = index.neighbour(r, t, -1)
            earlier = [i for i in range(len(start)) if depth[i] == r and start[i] < t]
            assert prev == (max(earlier, key=lambda i: start[i]) if earlier else -1)


def test_hit_with_slop_finds_the_nearest():
    start, dur, lane = np.array([0, 100]), np.array([10, 10]), np.array([0, 0])
    index, _, _ = build_index(start, dur, lane, 1)
    assert index.hit(0, 50) == -1
    assert index.hit(0, 14, slop=5) == 0
    assert index.hit(0, 97, slop=5) == 1
    assert index.hit(0, 50, slop=5) == -1


def mixed_card(seed: int, n_lanes: int, used: int, span: int, zero_share: float):
    """(start, dur, lane, src) of a card whose ``used`` lanes (the others stay empty) are each
    properly nested, randomly overlapping or nested with a few slices shifted to overlap their
    neighbours partially; ``span`` small gives many equal starts; ``src`` is a shuffled file order."""
    rng = np.random.default_rng(seed)
    rows: list = []
    for ln in rng.choice(n_lanes, min(used, n_lanes), replace=False).tolist():
        kind = int(rng.integers(0, 3))
        out: list = []
        if kind != 1:
            nested_lane(rng, 0, span, 0, out)
        if kind == 1:
            k = int(rng.integers(0, 60))
            out = list(zip(rng.integers(0, span, k).tolist(), rng.integers(0, 300, k).tolist()))
        elif kind == 2 and out:
            for i in rng.choice(len(out), max(1, len(out) // 10)).tolist():
                s, d = out[i]
                out[i] = (s + int(rng.integers(-30, 30)), d + int(rng.integers(0, 200)))
        rows += [(s, d, ln) for s, d in out]
    start, dur, lane = (np.array([r[c] for r in rows], dtype=np.int64) for c in range(3))
    dur[rng.random(len(dur)) < zero_share] = 0
    perm = rng.permutation(len(rows))
    return start[perm], dur[perm], lane[perm].astype(np.int32), rng.permutation(len(rows)).astype(np.int32)


def assert_same_index(got, want):
    (gi, gd, go), (wi, wd, wo) = got, want
    for field in ("order", "row_lane", "row_level", "row_ptr", "lane_first_row", "lane_row_count"):
        g, w = getattr(gi, field), getattr(wi, field)
        assert g.dtype == w.dtype and g.tolist() == w.tolist(), field
    assert gd.dtype == wd.dtype and gd.tolist() == wd.tolist()
    assert go == wo


@pytest.mark.parametrize("path", ["as found", "peeled", "peeling unsettled"])
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_lanes=st.integers(1, 40), used=st.integers(0, 12),
       span=st.sampled_from([20, 300, 5000]), zero_share=st.sampled_from([0.0, 0.1, 0.5]))
def test_lane_by_lane_build_matches_the_whole_card_build(path, seed, n_lanes, used, span, zero_share):
    """The lane-by-lane build gives exactly the former whole-card build's index (kept as
    ``interval_index_reference``), from the slice order it makes itself or is given; forced down
    the peeling path (and with peeling that does not settle, where a round lays out one slice of
    the first lane) for both."""
    import timelineview.model.store.interval_index as ii
    from tests.model.store import interval_index_reference as ref

    start, dur, lane, src = mixed_card(seed, n_lanes, used, span, zero_share)
    limits = {"as found": (ref.STACK_LIMIT, ref.MAX_PEEL), "peeled": (0, ref.MAX_PEEL), "peeling unsettled": (0, 1)}
    stack_limit, max_peel = limits[path]
    with mock.patch.object(ii, "STACK_LIMIT", stack_limit), mock.patch.object(ref, "STACK_LIMIT", stack_limit), \
            mock.patch.object(ii, "MAX_PEEL", max_peel), mock.patch.object(ref, "MAX_PEEL", max_peel):
        seq = ref.lane_time_order(lane, start, dur, src)
        assert np.array_equal(ii.lane_time_order(lane, start, dur, src), seq)
        want = ref.reference_build_index(start, dur, lane, n_lanes, seq=seq)
        assert_same_index(build_index(start, dur, lane, n_lanes, src=src), want)
        assert_same_index(build_index(start, dur, lane, n_lanes, seq=seq), want)
        assert_same_index(build_index(start, dur, lane, n_lanes),
                          ref.reference_build_index(start, dur, lane, n_lanes))
