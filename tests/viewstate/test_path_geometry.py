"""The critical path's outlines merge only where a zoomed-out path would otherwise draw a crowd of tiny
boxes: touching boxes of one row, one of them narrow."""

from __future__ import annotations

import numpy as np

from timelineview.viewstate.timeline.critical_path.path_geometry import NARROW_PX, PathBoxes, merged_boxes


def boxes(rows: list[tuple[float, float, float]]) -> PathBoxes:
    x0, x1, y = (np.array(c, np.float64) for c in zip(*rows, strict=True))
    n = len(rows)
    return PathBoxes(np.zeros(n, np.int64), np.arange(n), x0, x1, y)


def test_narrow_touching_boxes_of_a_row_merge_and_wide_ones_keep_their_outline():
    wide = NARROW_PX + 20
    got = merged_boxes(boxes([
        (10, 11, 0), (11.5, 13, 0), (13, 14, 0),  # three narrow touching: one box 10-14
        (30, 30 + wide, 0), (30 + wide, 30 + 2 * wide, 0),  # two wide touching: each its own
        (100, 101, 0),  # narrow, alone
        (12, 13, 20),  # another row: never merged with the first
        (90, 90 + wide, 20), (90 + wide + 0.5, 90 + wide + 1.5, 20),  # wide then a narrow touching it: one
    ]))
    want = [(10, 14, 0), (30, 30 + wide, 0), (30 + wide, 30 + 2 * wide, 0), (100, 101, 0), (12, 13, 20),
            (90, 90 + wide + 1.5, 20)]
    assert sorted(zip(*(a.tolist() for a in got), strict=True), key=lambda b: (b[2], b[0])) == \
        sorted(want, key=lambda b: (b[2], b[0]))


def test_no_boxes():
    x0, x1, y = merged_boxes(boxes([(0, 1, 0)]))
    assert (x0.tolist(), x1.tolist(), y.tolist()) == ([0.0], [1.0], [0.0])
    empty = PathBoxes(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros(0))
    assert all(len(a) == 0 for a in merged_boxes(empty))
