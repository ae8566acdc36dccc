"""Window sources answer "window [t0, t1) at r ns per pixel" with a covered share per pixel: the pyramid from its
coarsest level with a bucket per pixel, a trace's slices exactly; the finest source that resolves a window is
the one asked. Shares are checked against coverage computed here by hand."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.analysis.intervals import Intervals
from timelineview.analysis.summaries.pyramid import FULL, build_pyramid
from timelineview.model.store.store_factory import store_from_columns
from timelineview.model.store.trace_store import LaneTable, ProcessTable
from timelineview.viewstate.timeline.pyramid_frame import frame_for, pixel_occupancy
from timelineview.viewstate.timeline.window_source import (
    EXACT,
    PyramidSource,
    TraceSliceSource,
    finest_holding,
    resolves,
)

T0 = 1_000_000
SPAN = 4_096_000  # 1 µs per finest bucket (4096 buckets)


def store_with(slices: list[tuple[int, int, int]]):
    """A store of (lane, start, dur) slices on two lanes of one process."""
    lane, start, dur = (np.array(col, np.int64) for col in zip(*slices, strict=True))
    return store_from_columns(start, dur, lane.astype(np.int32), np.zeros(len(lane), np.int32), ["op"],
                              ProcessTable(pid=["1"], name=["NPU"], label=[""], sort_index=np.arange(1)),
                              LaneTable(process=np.zeros(2, np.int32), tid=["1", "2"], name=["Stream 1", "Stream 2"],
                                        sort_index=np.arange(2)))


def _pyramid():
    rows = [("Compute", Intervals(np.array([T0]), np.array([T0 + SPAN // 2]))),
            ("proc / lane", Intervals(np.array([T0 + SPAN // 4]), np.array([T0 + SPAN // 2])))]
    return build_pyramid(rows, T0, T0 + SPAN)


def test_the_pyramid_answers_from_the_coarsest_level_with_a_bucket_per_pixel():
    pyr = _pyramid()
    src = PyramidSource(pyr)
    assert (src.rows, src.t0, src.t1, src.finest_ns) == (["Compute", "proc / lane"], T0, T0 + SPAN, SPAN / 4096)
    answer = src.coverage(T0, T0 + SPAN, 200, slice(0, 2))  # 200 px: the 256-bucket level
    assert answer.sample_ns == SPAN / 256 and answer.resolution == "1 bucket = 16 µs"
    assert np.array_equal(answer.share, pixel_occupancy(pyr, frame_for(pyr, 0, SPAN, 200), 0, SPAN, 200))
    # by hand: pixel x covers [x, x+1) · SPAN/200; Compute covers the first half, the lane the second quarter
    x = np.arange(200)
    assert np.all(answer.share[0][(x + 1) * 2 <= 200] == FULL) and np.all(answer.share[0][x * 2 >= 200] == 0)
    assert np.all(answer.share[1][(x * 4 >= 200) & ((x + 1) * 2 <= 200)] == FULL)
    assert np.all(answer.share[1][(x + 1) * 4 <= 200] == 0)
    # 1000 px over a quarter of the card: 4000 buckets wanted, the 4096 level
    assert src.coverage(T0, T0 + SPAN // 4, 1000, slice(1, 2)).sample_ns == SPAN / 4096
    sample = src.sample_at(1, T0 + SPAN // 4 + 10, T0, T0 + SPAN, 200)
    assert sample.row == "proc / lane" and sample.share == 1.0
    assert (sample.t0, sample.t1) == (T0 + SPAN // 4, T0 + SPAN // 4 + SPAN // 256)
    assert src.sample_at(0, T0 - 5, T0, T0 + SPAN, 200) is None  # before the card


def test_a_traces_slices_answer_exactly():
    # lane 0: [0, 100) with a child [10, 20); lane 1: [50, 60) and [70, 90); times from 1000 ns
    store = store_with([(0, 1000, 100), (0, 1010, 10), (1, 1050, 10), (1, 1070, 20)])
    src = TraceSliceSource(store)
    assert len(src.rows) == 2 and (src.t0, src.t1, src.finest_ns) == (1000, 1100, 0.0)
    answer = src.coverage(1000, 1100, 10, slice(0, 2))  # 10 ns per pixel
    assert answer.resolution == EXACT and answer.sample_ns == 0
    assert answer.share[0].tolist() == [FULL] * 10  # the child lies inside its parent: counted once
    assert answer.share[1].tolist() == [0, 0, 0, 0, 0, FULL, 0, FULL, FULL, 0]
    half = src.coverage(1045, 1055, 2, slice(1, 2)).share[0]  # [1045, 1050) empty, [1050, 1055) covered
    assert half.tolist() == [0, FULL]
    shares = src.coverage(1040, 1080, 2, slice(1, 2)).share[0]  # [1040, 1060): 10 of 20 ns; [1060, 1080): 10 of 20
    assert shares.tolist() == [round(FULL / 2 + 0.5), round(FULL / 2 + 0.5)]  # rounded up
    sample = src.sample_at(1, 1075, 1000, 1100, 10)
    assert (sample.t0, sample.t1, sample.share) == (1070, 1080, 1.0)


def test_the_finest_source_that_resolves_the_window_answers():
    pyr = PyramidSource(_pyramid())
    trace = TraceSliceSource(store_with([(0, T0, SPAN)]))
    # the whole card over 1000 px: 4 µs a pixel, the pyramid's 1 µs buckets resolve it
    assert resolves(pyr, T0, T0 + SPAN, 1000) and finest_holding([pyr, trace], T0, T0 + SPAN, 1000) is pyr
    # 100 µs over 1000 px: 100 ns a pixel, a bucket is 10 px wide: the trace answers
    assert not resolves(pyr, T0, T0 + 100_000, 1000)
    assert finest_holding([pyr, trace], T0, T0 + 100_000, 1000) is trace
    assert finest_holding([pyr], T0, T0 + 100_000, 1000) is pyr  # nothing finer: the finest there is
    # the limit: a bucket 2 px wide still resolves, wider does not
    assert resolves(pyr, T0, T0 + 2_000, 4) and not resolves(pyr, T0, T0 + 2_000, 5)


@pytest.mark.parametrize("width", [1, 7, 333])
def test_any_width_gives_one_share_per_pixel(width):
    src = PyramidSource(_pyramid())
    assert src.coverage(T0 - 10, T0 + SPAN + 10, width, slice(0, 2)).share.shape == (2, width)
