"""Viewport maths (Qt-free): exact zoom around an anchor, pans, clamping, undo."""

from __future__ import annotations

from timelineview.viewstate.timeline.viewport import MIN_SPAN_NS, Viewport, held_key_rate


def make(t_max: int = 10_000_000_000, width: int = 1000) -> Viewport:
    v = Viewport(t_min=0, t_max=t_max, width_px=width)
    v.set_extent(0, t_max)
    return v


def test_show_all_pads_one_percent_each_side():
    v = make(1_000_000)
    assert (v.t0, v.t1) == (-10_000, 1_010_000)


def test_zoom_keeps_anchor_pixel():
    v = make()
    v.set_range(1_000_000_000, 2_000_000_000)
    anchor = v.t_of(250)
    v.zoom(0.8, anchor)
    assert v.span == 800_000_000
    assert abs(v.x_of(anchor) - 250) < 1e-6


def test_zoom_down_to_nanoseconds_far_from_origin():
    v = make()
    v.set_range(9_000_000_000, 9_000_001_000)
    for _ in range(60):
        v.zoom(0.5, 9_000_000_500)
    assert v.span == MIN_SPAN_NS
    assert v.t0 <= 9_000_000_500 <= v.t1
    v.pan(1)
    assert v.span == MIN_SPAN_NS  # 1 ns steps stay exact
    t0 = v.t0
    v.pan_fraction(0.01)  # rounds to 0 ns: still moves by one
    assert v.t0 == t0 + 1


def test_pan_clamps_to_padded_extent():
    v = make(1_000_000)
    v.set_range(0, 100_000)
    v.pan(-10_000_000)
    assert v.t0 == -v.pad
    v.pan(10_000_000)
    assert v.t1 == 1_000_000 + v.pad


def test_zoom_out_stops_at_everything():
    v = make(1_000_000)
    v.zoom(10.0)
    assert v.span == v.max_span


def test_undo_returns_to_remembered_windows():
    v = make()
    start = (v.t0, v.t1)
    v.zoom(0.5, remember=True)
    mid = (v.t0, v.t1)
    v.pan(1000, remember=True)
    assert v.undo() and (v.t0, v.t1) == mid
    assert v.undo() and (v.t0, v.t1) == start
    assert not v.undo()


def test_pixel_mapping_round_trips():
    v = make()
    v.set_range(123_456_789, 123_457_789)
    for x in (0, 1, 333, 999, 1000):
        assert abs(v.x_of(v.t_of(x)) - x) <= 0.5 * v.width_px / v.span + 1e-9


def test_held_rate_ramps_then_saturates():
    assert held_key_rate(0.0, 1.0, 5.0) == 1.0
    assert 1.0 < held_key_rate(0.6, 1.0, 5.0) < 5.0
    assert held_key_rate(10.0, 1.0, 5.0) == 5.0
