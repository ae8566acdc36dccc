"""Interval-set algebra against the plain-Python sweep."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from timelineview.analysis.intervals import (
    Intervals,
    complement,
    gaps,
    intersect,
    merge,
    subtract,
    union,
)

from . import reference as ref

raw_intervals = st.lists(
    st.tuples(st.integers(0, 60), st.integers(0, 15)).map(lambda t: (t[0] * 100, (t[0] + t[1]) * 100)),
    max_size=25,
)


def pairs(iv: Intervals) -> list[tuple[int, int]]:
    return list(zip(iv.starts.tolist(), iv.ends.tolist(), strict=True))


def build(intervals):
    return union(np.array([s for s, _ in intervals], dtype=np.int64),
                 np.array([e for _, e in intervals], dtype=np.int64))


def test_union_nested_overlapping_touching_zero_length_out_of_order():
    iv = [(50, 60), (0, 10), (2, 5), (10, 20), (30, 30), (25, 40), (35, 45), (44, 44)]
    assert pairs(build(iv)) == [(0, 20), (25, 45), (50, 60)]


def test_empty_and_zero_length_only():
    assert len(build([])) == 0
    assert len(build([(5, 5), (7, 7)])) == 0
    assert build([]).total() == 0


@settings(max_examples=300)
@given(raw_intervals)
def test_union_matches_sweep(iv):
    u = build(iv)
    assert pairs(u) == ref.union(iv)
    assert np.all(u.ends > u.starts)
    assert np.all(u.starts[1:] > u.ends[:-1])


@settings(max_examples=300)
@given(raw_intervals, raw_intervals)
def test_intersect_subtract_merge_match_sweep(a, b):
    ua, ub = build(a), build(b)
    lo, hi = ref.card_span(a, b)
    cut = ref.segments(lo, hi, a, b)
    both = [(x, y) for x, y in cut if ref.measure(a, x, y) == y - x and ref.measure(b, x, y) == y - x]
    assert pairs(intersect(ua, ub)) == ref.union(both)
    only_a = [(x, y) for x, y in cut if ref.measure(a, x, y) == y - x and ref.measure(b, x, y) == 0]
    assert pairs(subtract(ua, ub)) == ref.union(only_a)
    assert pairs(merge(ua, ub)) == ref.union(a + b)


@settings(max_examples=300)
@given(raw_intervals, st.integers(-500, 7000), st.integers(0, 8000))
def test_clip_and_measure_match_sweep(iv, t0, width):
    t1 = t0 + width
    u = build(iv)
    assert u.clip(t0, t1).total() == ref.measure(iv, t0, t1)
    assert u.measure(t0, t1) == ref.measure(iv, t0, t1)


def test_gaps_and_complement():
    u = build([(0, 10), (20, 30), (40, 50)])
    assert pairs(gaps(u)) == [(10, 20), (30, 40)]
    # a hole cut by the window edge is not bounded by intervals inside the window
    assert pairs(gaps(u, within=(15, 45))) == [(30, 40)]
    assert pairs(gaps(u, within=(5, 45))) == [(10, 20), (30, 40)]
    assert pairs(complement(u, -5, 45)) == [(-5, 0), (10, 20), (30, 40)]
    assert len(gaps(Intervals.empty())) == 0
