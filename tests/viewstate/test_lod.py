"""Per-pixel LOD (Qt-free) against a brute-force rasterisation."""

from __future__ import annotations

import numpy as np
import pytest

from timelineview.viewstate.timeline.lod import (
    build_row_summary,
    column_edges,
    counter_columns,
    coverage,
    level_runs,
    lod_rects,
    runs,
)


def random_rows(rng, n_rows: int, n: int, t_span: int):
    """Sorted disjoint intervals per row, concatenated (like IntervalIndex.starts/ends)."""
    starts, ends, bounds = [], [], []
    pos = 0
    for _ in range(n_rows):
        cuts = np.sort(rng.choice(t_span, size=2 * n, replace=False))
        s, e = cuts[0::2], cuts[1::2]
        starts.append(s)
        ends.append(e)
        bounds.append((pos, pos + n))
        pos += n
    return np.concatenate(starts).astype(np.int64), np.concatenate(ends).astype(np.int64), bounds


def brute_coverage(starts, ends, bounds, t0, t1, width):
    edges = column_edges(t0, t1, width)
    out = np.zeros((len(bounds), width), bool)
    for r, (a, b) in enumerate(bounds):
        for s, e in zip(starts[a:b], ends[a:b]):
            out[r] |= (s < edges[1:]) & (e > edges[:-1])
    return out


@pytest.mark.parametrize("window", [(0, 1_000_000), (250_000, 260_000), (123_456, 123_999)])
def test_every_touched_pixel_is_drawn_and_no_other(window):
    rng = np.random.default_rng(1)
    starts, ends, bounds = random_rows(rng, 4, 300, 1_000_000)
    t0, t1 = window
    width = 400
    expect = brute_coverage(starts, ends, bounds, t0, t1, width)
    assert np.array_equal(coverage(starts, ends, bounds, t0, t1, width), expect)
    lr = lod_rects(starts, ends, bounds, t0, t1, width)
    drawn = np.zeros_like(expect)
    for r, x0, x1 in zip(lr.row, lr.x0, lr.x1):
        drawn[r, x0:x1] = True
    assert np.array_equal(drawn | expect, drawn)  # nothing covered is missing
    # detail rects may round outwards by one pixel at each end, nothing more
    assert (drawn & ~expect).sum() <= 2 * len(lr)


def test_detail_rects_are_the_wide_slices_and_folds_count_the_rest():
    starts = np.array([0, 1000, 1010, 1020, 1030, 5000], np.int64)
    ends = np.array([900, 1005, 1015, 1025, 1035, 9000], np.int64)
    lr = lod_rects(starts, ends, [(0, 6)], 0, 10_000, 100)
    detail = lr.pos >= 0
    assert sorted(lr.pos[detail & (lr.count == 1)].tolist()) == [0, 5]
    folded = ~detail
    assert folded.sum() == 1 and lr.count[folded][0] == 4 and lr.first[folded][0] == 1
    wide = lr.pos == 0
    assert (lr.x0[wide][0], lr.x1[wide][0]) == (0, 9)


def test_zoomed_in_single_slice_fills_the_view():
    starts, ends = np.array([10, 50], np.int64), np.array([40, 1_000], np.int64)
    lr = lod_rects(starts, ends, [(0, 2)], 100, 200, 50)
    assert lr.pos.tolist() == [1] and (lr.x0[0], lr.x1[0]) == (0, 50)


def test_summary_matches_exact_search_on_dense_rows():
    rng = np.random.default_rng(3)
    starts, ends, bounds = random_rows(rng, 2, 20_000, 50_000_000)
    row_ptr = np.array([0, 20_000, 40_000])
    summary = build_row_summary(starts, ends, row_ptr)
    assert summary.bucket.min() > 0
    step = int(summary.bucket[0])
    # a window whose column edges fall on the summary's boundaries: identical results
    t0 = int(summary.base[0]) + 100 * step
    width = 500
    t1 = t0 + width * 16 * step
    exact = coverage(starts, ends, bounds[:1], t0, t1, width)
    fast = coverage(starts, ends, bounds[:1], t0, t1, width, rows=[0], summary=summary)
    assert np.array_equal(exact, fast)
    a = lod_rects(starts, ends, bounds[:1], t0, t1, width)
    b = lod_rects(starts, ends, bounds[:1], t0, t1, width, rows=[0], summary=summary)
    assert np.array_equal(a.x0, b.x0) and np.array_equal(a.count, b.count)


def test_runs_and_level_runs():
    row, x0, x1 = runs(np.array([[0, 1, 1, 0, 1], [1, 1, 1, 1, 1]], bool))
    assert list(zip(row, x0, x1)) == [(0, 1, 3), (0, 4, 5), (1, 0, 5)]
    row, x0, x1, lv = level_runs(np.array([[0, 2, 2, 3, 0]]))
    assert list(zip(x0, x1, lv)) == [(1, 3, 2), (3, 4, 3)]


def test_counter_columns_keep_spikes_narrower_than_a_pixel():
    ts = np.array([0, 100, 101, 102, 500], np.int64)
    values = np.array([1.0, 50.0, -3.0, 1.0, 2.0])
    has, low, high = counter_columns(ts, values, 0, 1000, 10)
    assert has.all()
    assert high[1] == 50.0 and low[1] == -3.0  # the spike inside column 1
    assert low[2] == high[2] == 1.0  # held value
    assert high[5] == 2.0
