"""Where the critical path's outlines go on screen (no Qt): one box per path slice that meets the visible
window on a shown lane, and the boxes a zoomed-out step's many tasks merge into. Columnar: a step's path
may hold tens of thousands of tasks."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.viewstate.timeline.lane_layout import LANE, LANE_PAD, SLICE_ROW_H
from timelineview.viewstate.timeline.view_state import ViewState

MERGE_PX = 1.0  # boxes of one row closer than this are drawn as one ...
NARROW_PX = 4.0  # ... when one of them is narrower than this (wider slices keep their own outline)
EDGE_PX = 4.0  # a box leaving the track area is cut this far outside it
_ROW_KEY = 1e9  # separates the rows in one running maximum (x stays within the track area's few 10^3 px)


@dataclass
class PathBoxes:
    """Scene-pixel boxes, one per path slice on screen (``SLICE_ROW_H`` tall)."""

    card: np.ndarray  # int64 card number
    index: np.ndarray  # int64 slice
    x0: np.ndarray  # float64
    x1: np.ndarray
    y: np.ndarray  # float64 top

    def __len__(self) -> int:
        return len(self.index)


def path_boxes(state: ViewState) -> PathBoxes:
    """The boxes of ``state.path_slices`` in the visible window, on lanes the layout shows."""
    parts = []
    a = state.area
    v = state.viewport
    for number, idx in state.path_slices.items():
        card = state.card_by_number(number)
        if card is None or not len(idx):
            continue
        s = card.store.slices
        t0, t1 = state.abs_window(card)
        idx = idx[(s.start[idx] < t1) & (s.start[idx] + s.dur[idx] > t0)]
        if not len(idx):
            continue
        lanes = s.lane[idx].astype(np.int64)
        depth = s.depth[idx].astype(np.int64)
        row_y = np.full(len(idx), np.nan)
        for lane in np.unique(lanes).tolist():
            row = state.layout.find(LANE, number, lane)
            if row is None:  # a collapsed card or process: the lane is not drawn
                continue
            on = lanes == lane
            row_y[on] = row.y + LANE_PAD + np.minimum(depth[on], max(row.levels - 1, 0)) * SLICE_ROW_H
        shown = ~np.isnan(row_y)
        idx, row_y = idx[shown], row_y[shown]
        shift = state.card_shift(card) + v.t0
        start = (s.start[idx] - shift).astype(np.float64)  # exact integer subtraction first
        end = start + s.dur[idx].astype(np.float64)
        scale = v.width_px / v.span
        x0 = np.clip(a.left + start * scale, a.left - EDGE_PX, a.right + EDGE_PX)
        x1 = np.clip(a.left + end * scale, a.left - EDGE_PX, a.right + EDGE_PX)
        parts.append((np.full(len(idx), number, np.int64), idx.astype(np.int64), x0, x1,
                      a.top + row_y - state.scroll_y))
    if not parts:
        empty = np.zeros(0)
        return PathBoxes(np.zeros(0, np.int64), np.zeros(0, np.int64), empty, empty, empty)
    return PathBoxes(*(np.concatenate(col) for col in zip(*parts, strict=True)))


def merged_boxes(b: PathBoxes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x0, x1, y) of the boxes to draw: boxes of one row that touch (within ``MERGE_PX``), one of them
    narrow, joined, so that a zoomed-out path reads as a band rather than thousands of outlines."""
    if not len(b):
        return b.x0, b.x1, b.y
    order = np.lexsort((b.x0, b.y))
    x0, x1, y = b.x0[order], np.maximum(b.x1[order], b.x0[order] + 1.0), b.y[order]
    new_row = np.r_[True, y[1:] != y[:-1]]
    row = np.cumsum(new_row) - 1
    reach = np.maximum.accumulate(x1 + row * _ROW_KEY) - row * _ROW_KEY  # furthest right so far in the row
    touches = ~new_row & (x0 <= np.r_[-np.inf, reach[:-1]] + MERGE_PX)
    width = x1 - x0
    narrow = (width < NARROW_PX) | np.r_[False, width[:-1] < NARROW_PX]
    first = np.flatnonzero(~(touches & narrow))
    return x0[first], np.maximum.reduceat(x1, first), y[first]
