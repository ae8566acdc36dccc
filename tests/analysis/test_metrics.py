"""Metrics of metrics.md §2 (whole card and windows) against the reference sweep."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from timelineview.analysis.derived import derive
from timelineview.analysis.window import METRIC_KEYS, card_metrics, window_metrics

from . import reference as ref
from .factory import msprof_card


def check(got: dict, want: dict) -> None:
    assert list(got) == list(METRIC_KEYS)
    for key in METRIC_KEYS:
        if want[key] is None:
            assert got[key] is None, key
        else:
            assert got[key] == pytest.approx(want[key], abs=1e-9), key


def card_check(compute, comm, other=(), min_gap=1000):
    d = derive(msprof_card(compute, comm, other), min_gap)
    span = ref.card_span(compute, comm)
    assert d.span == span
    check(card_metrics(d), ref.metrics(compute, comm, *span, min_gap))
    return d


def us(x):
    return x * 1000  # hand-made cases are written in µs


def test_nested_overlapping_touching_zero_length_out_of_order():
    compute = [(us(50), us(60)), (us(0), us(10)), (us(2), us(5)), (us(10), us(20)), (us(30), us(30)),
               (us(25), us(40)), (us(35), us(45))]
    comm = [(us(15), us(28)), (us(44), us(52)), (us(70), us(80)), (us(80), us(80))]
    d = card_check(compute, comm, other=[(us(60), us(90))])
    m = card_metrics(d)
    # by hand: U(compute) = [0,20) [25,45) [50,60) -> 50; U(comm) = [15,28) [44,52) [70,80) -> 31
    assert m["compute_us"] == 50 and m["communication_us"] == 31
    assert m["overlapped_us"] == 5 + 3 + 1 + 2  # [15,20) [25,28) [44,45) [50,52)
    assert m["span_us"] == 80 and m["free_us"] == 80 - (50 + 31 - 11)
    # idle gaps [20,25) and [45,50), both inside communication ([15,28) and [44,52))
    assert m["idle_gap_count"] == 2 and m["idle_gap_total_us"] == 10
    assert m["idle_gap_communication_us"] == 10 and m["idle_gap_free_us"] == 0


def test_no_communication_gives_null_ratio():
    m = card_metrics(card_check([(0, 5000), (9000, 12000)], []))
    assert m["overlap_ratio"] is None and m["idle_gap_count"] == 1


def test_empty_card():
    d = derive(msprof_card([], []))
    m = card_metrics(d)
    assert d.span == (0, 0) and m["span_us"] == 0 and m["idle_gap_count"] == 0


def test_min_gap_threshold():
    compute = [(0, 1000), (1999, 3000), (4000, 5000)]  # gaps of 999 and 1000 ns
    d = card_check(compute, [], min_gap=1000)
    assert card_metrics(d)["idle_gap_count"] == 1
    assert card_metrics(d, min_gap_ns=500)["idle_gap_count"] == 2
    assert len(d.idle_gaps) == 1


def test_window_cuts_tasks_and_gaps():
    compute = [(us(0), us(10)), (us(20), us(30)), (us(40), us(50))]
    comm = [(us(5), us(45))]
    d = derive(msprof_card(compute, comm))
    m = window_metrics(d, us(25), us(45))
    check(m, ref.metrics(compute, comm, us(25), us(45)))
    # [25,30) and [40,45) compute clipped; the hole [30,40) is inside; [10,20) is outside
    assert m["compute_us"] == 10 and m["idle_gap_count"] == 1 and m["idle_gap_total_us"] == 10
    # a gap cut by the window edge is not an idle gap of that window
    assert window_metrics(d, us(15), us(35))["idle_gap_count"] == 0
    # a window past the data: all free
    far = window_metrics(d, us(100), us(110))
    assert far["free_us"] == 10 and far["compute_us"] == 0


def test_derived_sets_are_consistent():
    compute = [(0, 100), (300, 400), (1500, 1600)]
    comm = [(50, 350), (800, 2000)]
    d = derive(msprof_card(compute, comm), min_gap_ns=100)
    assert list(d.idle_gaps.starts) == [100, 400] and list(d.idle_gaps.ends) == [300, 1500]
    assert d.idle_gap_communication.total() + d.idle_gap_free.total() == d.idle_gaps.total()
    assert list(d.pure_communication.starts) == [100, 800, 1600]
    assert d.free.total() == 400  # [400, 800)
    span = d.span[1] - d.span[0]
    assert d.free.total() + d.compute.total() + d.pure_communication.total() == span


interval_lists = st.lists(
    st.tuples(st.integers(0, 80), st.integers(0, 20)).map(lambda t: (t[0] * 250, (t[0] + t[1]) * 250)),
    max_size=20,
)


@settings(max_examples=200, deadline=None)
@given(interval_lists, interval_lists, st.sampled_from([0, 1, 500, 1000, 2500]))
def test_card_metrics_property(compute, comm, min_gap):
    card_check(compute, comm, min_gap=min_gap)


@settings(max_examples=200, deadline=None)
@given(interval_lists, interval_lists, st.integers(-1000, 21000), st.integers(0, 22000),
       st.sampled_from([0, 1000, 2500]))
def test_window_metrics_property(compute, comm, t0, width, min_gap):
    d = derive(msprof_card(compute, comm), min_gap)
    check(window_metrics(d, t0, t0 + width), ref.metrics(compute, comm, t0, t0 + width, min_gap))


@settings(max_examples=100, deadline=None)
@given(interval_lists, interval_lists, st.lists(st.integers(0, 21000), min_size=1, max_size=6))
def test_adjacent_windows_add_up(compute, comm, cuts):
    """Covered times are additive over windows that tile the card."""
    d = derive(msprof_card(compute, comm))
    edges = sorted({*cuts, 0, 21000})
    parts = [window_metrics(d, a, b) for a, b in zip(edges, edges[1:], strict=False)]
    whole = window_metrics(d, 0, 21000)
    for key in ("compute_us", "communication_us", "overlapped_us", "pure_communication_us", "free_us"):
        assert sum(p[key] for p in parts) == pytest.approx(whole[key])
