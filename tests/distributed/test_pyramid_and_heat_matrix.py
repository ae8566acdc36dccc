"""Qt-free pieces of the summary views: the pyramid's occupancy and the rank × step matrix, on hand-worked cases."""

from __future__ import annotations

import numpy as np

from timelineview.analysis.cluster.comparison import CardComparison, ClusterComparison
from timelineview.analysis.intervals import Intervals
from timelineview.analysis.summaries.pyramid import build_pyramid, occupancy


def _iv(*pairs) -> Intervals:
    return Intervals(np.array([a for a, _ in pairs], np.int64), np.array([b for _, b in pairs], np.int64))


def test_covered_before_counts_whole_and_partial_intervals():
    iv = _iv((0, 10), (15, 20))
    assert iv.covered_before(np.array([0, 5, 10, 12, 17, 20, 99])).tolist() == [0, 5, 10, 10, 12, 15, 15]


def test_occupancy_is_the_covered_share_rounded_up():
    # 4 buckets of 5 ns over [0, 20): [0,10) fills the first two, [15,20) the last, [11,12) is 1/5 of the third
    iv = _iv((0, 10), (11, 12), (15, 20))
    assert occupancy(iv, 0, 20, 4).tolist() == [255, 255, 51, 255]
    # 1 ns of a 1000 ns bucket is still visible (rounded up), never read as empty
    assert occupancy(_iv((500, 501)), 0, 1000, 1).tolist() == [1]
    assert occupancy(Intervals.empty(), 0, 1000, 3).tolist() == [0, 0, 0]


def test_pyramid_levels_and_the_level_for_a_width():
    p = build_pyramid([("a", _iv((0, 50))), ("b", _iv((50, 100)))], 0, 100, level_buckets=(8, 4, 2))
    assert [lv.shape for lv in p.levels] == [(2, 8), (2, 4), (2, 2)]
    assert p.levels[2].tolist() == [[255, 0], [0, 255]]
    assert p.level_for(3).shape[1] == 4 and p.level_for(1).shape[1] == 2 and p.level_for(100).shape[1] == 8


def test_every_level_is_each_rows_occupancy_at_its_bucket_count():
    """``build_pyramid`` takes a coarser level from the finest's covered time when the edges nest; each
    level must be what ``occupancy`` gives at that bucket count, nested or not, for any span."""
    rng = np.random.default_rng(11)
    for _ in range(60):
        t0 = int(rng.integers(0, 10**15))
        span = int(rng.integers(1, 10 ** int(rng.integers(1, 13))))
        rows = []
        for r in range(3):
            points = np.sort(rng.integers(t0 - span // 10, t0 + span + span // 10 + 2, 2 * int(rng.integers(0, 200))))
            rows.append((f"r{r}", Intervals(points[0::2], points[1::2])))
        for level_buckets in ((4096, 1024, 256), (8, 4, 2), (12, 6, 5), (7,)):
            p = build_pyramid(rows, t0, t0 + span, level_buckets)
            for level, buckets in zip(p.levels, level_buckets):
                expected = np.array([occupancy(iv, t0, t0 + span, buckets) for _, iv in rows]).reshape(3, buckets)
                assert np.array_equal(level, expected), (span, level_buckets, buckets)


def _card(number: int, rank: int, values: dict[int, float]) -> CardComparison:
    steps = [{"step": s, "step_time_us": v} for s, v in values.items()]
    return CardComparison(number, f"rank {rank}", rank, steps=steps)


def test_heat_matrix_rows_by_rank_steps_as_columns_and_by_node():
    from timelineview.viewstate.tabs.heat_map import heat_matrix

    # loaded out of rank order; rank 2 lacks step 2; 10 cards make one full node and one of two
    cards = [_card(n, r, {1: 100.0 * r + 1, 2: 100.0 * r + 2} if r != 2 else {1: 201.0}) for n, r in
             enumerate([3, 0, 1, 2, 4, 5, 6, 7, 8, 9])]
    m = heat_matrix(ClusterComparison(cards), "step_time_us")
    assert m.row_labels[:4] == ["rank 0", "rank 1", "rank 2", "rank 3"] and m.steps == [1, 2]
    assert m.values[3].tolist() == [301.0, 302.0] and m.row_cards[3] == [0]
    assert m.values[2, 0] == 201.0 and np.isnan(m.values[2, 1])
    node = heat_matrix(ClusterComparison(cards), "step_time_us", node_size=8)
    assert len(node.row_labels) == 2 and node.row_cards[1] == [8, 9]
    # node 0: ranks 0..7, step 2 without rank 2 (7 cards); node 1: ranks 8, 9
    assert node.values[0, 0] == np.mean([100.0 * r + 1 for r in range(8)])
    assert node.values[0, 1] == np.mean([100.0 * r + 2 for r in range(8) if r != 2])
    assert node.values[1].tolist() == [(801.0 + 901.0) / 2, (802.0 + 902.0) / 2]
