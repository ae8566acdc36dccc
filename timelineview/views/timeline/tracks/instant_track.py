"""InstantTrackItem: the instant events (``i``/``I``) of one card as markers on their lanes.

A marker is a short stem under a small head at the top of the lane. Each pixel column holding
instants gets one marker (``model.lod.instant_columns``), so a frame costs the same for ten or
ten million of them.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui

from timelineview.views.painting import draw_rects, rect_array
from timelineview.views.timeline.tracks.card_track import CardTrackItem
from timelineview.views.timeline.view_context import ViewContext
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.timeline.lane_layout import LANE, LANE_PAD, SLICE_ROW_H
from timelineview.viewstate.timeline.lod import instant_columns

HEAD_W = 5  # px, odd: centred on the instant's column
HEAD_H = 3


class InstantTrackItem(CardTrackItem):
    """Instants of one card, over its slices."""

    def __init__(self, ctx: ViewContext, card: CardView) -> None:
        super().__init__(ctx, card)
        self.rects = np.zeros((0, 4), np.int32)  # heads and stems, for the whole window

    def _draw(self, p: QtGui.QPainter) -> None:
        if len(self.rects):
            p.setPen(QtCore.Qt.PenStyle.NoPen)
            p.setBrush(self.ctx.theme.text)
            draw_rects(p, self.rects)
        selected = self._selected_rects()
        if len(selected):
            p.setPen(QtCore.Qt.PenStyle.NoPen)
            p.setBrush(self.ctx.theme.match)
            draw_rects(p, selected)

    def _selected_rects(self) -> np.ndarray:
        """The selected instant's marker, drawn larger in the selection colour."""
        ctx, card = self.ctx, self.card
        if ctx.instant_selection is None or ctx.instant_selection.card != card.number:
            return np.zeros((0, 4), np.int32)
        k = ctx.instant_selection.index
        lane = card.instant_lane(k)
        row = next((r for r in ctx.visible_rows(card.number) if r.kind == LANE and r.lane == lane), None)
        if row is None:
            return np.zeros((0, 4), np.int32)
        x = int(ctx.scene_x_abs(card, int(card.instants_by_lane[1][k])))
        y = int(ctx.scene_y(row.y)) + LANE_PAD
        half = HEAD_W // 2 + 1
        return rect_array(np.array([x - half, x - 1]), np.array([y, y]), np.array([x + half + 1, x + 2]),
                          np.array([y + HEAD_H + 1, y + SLICE_ROW_H]))

    def _prepare(self) -> None:
        ctx, card = self.ctx, self.card
        self.rects = np.zeros((0, 4), np.int32)
        width = ctx.area.width
        if width <= 0 or len(card.store.instants) == 0:
            return
        t0, t1 = ctx.abs_window(card)
        left = ctx.area.left
        lane_ptr, ts = card.instants_by_lane[:2]
        xs, ys = [], []
        for row in ctx.visible_rows(card.number):
            a, b = (int(lane_ptr[row.lane]), int(lane_ptr[row.lane + 1])) if row.kind == LANE else (0, 0)
            if a == b:
                continue
            x, _ = instant_columns(ts[a:b], t0, t1, width)
            xs.append(x + left)
            ys.append(np.full(len(x), int(ctx.scene_y(row.y)) + LANE_PAD, np.int64))
        if not xs:
            return
        x, y = np.concatenate(xs), np.concatenate(ys)
        half = HEAD_W // 2
        heads = rect_array(x - half, y, x + half + 1, y + HEAD_H)
        stems = rect_array(x, y, x + 1, y + SLICE_ROW_H - 1)
        self.rects = np.concatenate([heads, stems])
