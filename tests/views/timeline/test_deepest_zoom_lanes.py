"""At the deepest zoom (10 ns across the view) a derived lane covered there is one solid fill, not a comb
of 1 ns ticks."""

from __future__ import annotations

import numpy as np
from PySide6 import QtGui

from timelineview.viewstate.timeline.lane_layout import DERIVED
from timelineview.viewstate.timeline.viewport import MIN_SPAN_NS


def _row_pixels(widget, y: int, x0: int, x1: int) -> np.ndarray:
    img = widget.grab().toImage().convertToFormat(QtGui.QImage.Format.Format_RGB32)
    arr = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.bytesPerLine() // 4, 4)
    return arr[y, x0:x1, 2::-1].astype(np.int16)  # BGRA -> RGB


def test_a_covered_lane_fills_the_view_at_the_deepest_zoom(qtbot, timeline):
    tl, ctx = timeline, timeline.ctx
    card = tl.cards[0]
    index = next(i for i, lane in enumerate(card.derived_lanes) if lane.key == "compute")
    colour, starts, ends, _ = card.derived_lanes[index].parts[0]
    j = int(np.flatnonzero(ends - starts >= 4 * MIN_SPAN_NS)[0])  # an interval wider than the view
    t0 = ctx.rel(card, int(starts[j]) + MIN_SPAN_NS)
    tl.set_range(t0, t0 + MIN_SPAN_NS)
    assert ctx.viewport.t1 - ctx.viewport.t0 == MIN_SPAN_NS
    tl.canvas.redraw()
    row = next(r for r in ctx.layout.rows if r.kind == DERIVED and r.card == card.number and r.derived == index)
    y = int(ctx.scene_y(row.y)) + row.height // 2
    rgb = _row_pixels(tl.canvas, y, int(ctx.area.left) + 1, int(ctx.area.left + ctx.area.width) - 1)
    want = ctx.theme.derived[colour]
    filled = (np.abs(rgb - np.array([want.red(), want.green(), want.blue()])).max(axis=1) <= 6)
    assert filled.mean() > 0.99, f"{filled.sum()} of {len(filled)} columns filled"
