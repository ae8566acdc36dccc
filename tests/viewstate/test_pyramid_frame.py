"""Which pyramid level and buckets a window of a summarised card reads, and the pixels they make
(hand-worked pyramids; no Qt)."""

from __future__ import annotations

import math

import numpy as np

from timelineview.analysis.intervals import Intervals
from timelineview.analysis.summaries.pyramid import build_pyramid
from timelineview.viewstate.timeline.pyramid_frame import (
    MAX_BUCKET_PX,
    bucket_at,
    frame_for,
    pixel_occupancy,
)
from timelineview.viewstate.timeline.window_source import PyramidSource, resolves

SPAN = 1_000_000  # ns


def _iv(*pairs) -> Intervals:
    return Intervals(np.array([a for a, _ in pairs], np.int64), np.array([b for _, b in pairs], np.int64))


def _pyramid(t0: int = 5_000):
    # "half": the first half of the span; "quarter": [1/4, 1/2); levels of 4096, 1024, 256 buckets
    rows = [("half", _iv((t0, t0 + SPAN // 2))), ("quarter", _iv((t0 + SPAN // 4, t0 + SPAN // 2)))]
    return build_pyramid(rows, t0, t0 + SPAN)


def test_level_is_the_coarsest_with_a_bucket_per_pixel():
    p = _pyramid()
    # the whole span across 200 px: 200 buckets wanted, 256 is the coarsest that has them
    f = frame_for(p, 0, SPAN, 200)
    assert (f.buckets, f.first, f.stop) == (256, 0, 256)
    # 300 px: 256 is too few, 1024 it is
    assert frame_for(p, 0, SPAN, 300).buckets == 1024
    # a tenth of the span across 500 px: 5000 per span wanted, more than any level: the finest (4096)
    f = frame_for(p, SPAN // 2, SPAN // 2 + SPAN // 10, 500)
    assert f.buckets == 4096
    # only the buckets inside the window: [2048, 2048 + 409.6] -> 2048 .. 2458 (its last one partly)
    assert (f.first, f.stop) == (2048, math.ceil(4096 * 0.6))
    assert f.bucket_ns == SPAN / 4096
    assert f.resolution == "1 bucket = 244 ns"  # nanoseconds are whole
    ten_s = build_pyramid([("r", _iv((0, 1)))], 0, 10_000_000_000)
    assert frame_for(ten_s, 0, 10_000_000_000, 4000).resolution == "1 bucket = 2.4 ms"  # 10 s / 4096


def test_visible_buckets_stay_few_however_far_the_window_is_zoomed():
    p = _pyramid()
    for width in (300, 1000, 1600):
        for span in (SPAN, SPAN // 3, SPAN // 50, 1000):
            f = frame_for(p, SPAN // 7, SPAN // 7 + span, width)
            # at least one bucket per pixel, and at most four (levels are 4x apart) plus the edges
            assert f.stop - f.first <= max(4 * width + 2, 2), (width, span, f)


def test_pixels_of_a_row_covering_the_first_half():
    p = _pyramid()
    width = 200
    f = frame_for(p, 0, SPAN, width)
    occ = pixel_occupancy(p, f, 0, SPAN, width)
    assert occ.shape == (2, width)
    # reference: pixel x covers [x, x+1) * SPAN/width; "half" covers [0, SPAN/2): pixels 0..99 full
    assert (occ[0, :100] == 255).all() and (occ[0, 100:] == 0).all()
    # "quarter" covers [SPAN/4, SPAN/2): pixels 50..99
    assert (occ[1, :50] == 0).all() and (occ[1, 50:100] == 255).all() and (occ[1, 100:] == 0).all()


def test_pixels_outside_the_card_are_empty_and_a_window_inside_reads_its_buckets():
    p = _pyramid()
    # the padded 'show all' window: 1 % either side is before / after the card
    pad = SPAN // 100
    occ = pixel_occupancy(p, frame_for(p, -pad, SPAN + pad, 102), -pad, SPAN + pad, 102)
    assert occ[0, 0] == 0 and occ[0, -1] == 0 and occ[0, 1] == 255
    # zoomed onto [0.45, 0.55) of the span: the half's edge at 0.5 is the middle pixel column
    t0, t1, width = int(0.45 * SPAN), int(0.55 * SPAN), 100
    f = frame_for(p, t0, t1, width)
    occ = pixel_occupancy(p, f, t0, t1, width)
    assert (occ[0, :50] == 255).all() and (occ[0, 50:] == 0).all()
    assert bucket_at(p, f, SPAN // 2 - 1) == f.buckets // 2 - 1 and bucket_at(p, f, SPAN) is None


def test_pixels_when_buckets_are_wider_than_pixels():
    # one row, 4 buckets over 400 ns: busy, empty, a fifth, busy; drawn across 40 px
    p = build_pyramid([("r", _iv((0, 100), (200, 220), (300, 400)))], 0, 400, level_buckets=(4,))
    f = frame_for(p, 0, 400, 40)
    occ = pixel_occupancy(p, f, 0, 400, 40)
    expected = np.repeat([255, 0, 51, 255], 10)
    assert occ[0].tolist() == expected.tolist()


def test_a_pixel_over_several_buckets_reads_their_mean_rounded_up():
    # 8 buckets over 800 ns, only the first holds 1 ns; 2 px over it: pixel 0 reads ceil(mean(3, 0, 0, 0))
    p = build_pyramid([("r", _iv((0, 1)))], 0, 800, level_buckets=(8,))
    assert p.levels[0][0].tolist() == [3, 0, 0, 0, 0, 0, 0, 0]
    occ = pixel_occupancy(p, frame_for(p, 0, 800, 2), 0, 800, 2)
    assert occ[0].tolist() == [1, 0]


def test_past_the_pyramid_when_the_finest_bucket_is_wider_than_two_pixels():
    p = _pyramid()
    source = PyramidSource(p)  # absolute times: the pyramid starts at p.t0
    finest_ns = SPAN / 4096
    width = 1000
    at_limit = int(finest_ns * width / MAX_BUCKET_PX)  # a window where a finest bucket is exactly 2 px
    assert resolves(source, p.t0, p.t0 + SPAN, width)
    assert resolves(source, p.t0, p.t0 + at_limit + 10, width)
    assert not resolves(source, p.t0, p.t0 + at_limit - 10, width)
