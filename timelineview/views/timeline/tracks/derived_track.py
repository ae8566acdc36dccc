"""DerivedTrackItem: the analysis lanes of one card (Computing … Free) and its Steps lane."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui

from timelineview.views.painting import draw_rects, rect_array
from timelineview.views.timeline.tracks.card_track import CardTrackItem
from timelineview.views.timeline.view_context import ViewContext
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.time_format import format_duration
from timelineview.viewstate.timeline.lane_layout import DERIVED, STEPS
from timelineview.viewstate.timeline.lod import coverage_fraction, level_runs

FRACTION_LEVELS = 4
LEVEL_ALPHA = (0, 90, 150, 205, 255)


def _pad(row_height: int) -> int:
    """Gap above and below a row's fill: 1 px on the compact rows of the cluster lane filter."""
    return 2 if row_height >= 12 else 1


class DerivedTrackItem(CardTrackItem):
    """Interval-set lanes and step phases of one card."""

    def __init__(self, ctx: ViewContext, card: CardView) -> None:
        super().__init__(ctx, card)
        self._fills: list[tuple[tuple[str, int], np.ndarray]] = []  # ((colour key, level), rects)
        self._texts: list[tuple[int, int, QtGui.QStaticText]] = []
        self._ticks = np.zeros((0, 4), np.int32)

    def _draw(self, p: QtGui.QPainter) -> None:
        ctx = self.ctx
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        for (colour, level), rects in self._fills:
            c = ctx.theme.derived[colour]
            if level != FRACTION_LEVELS:
                c = QtGui.QColor(c)
                c.setAlpha(LEVEL_ALPHA[level])
            p.setBrush(c)
            draw_rects(p, rects)
        if len(self._ticks):
            p.setBrush(ctx.theme.text)
            draw_rects(p, self._ticks)
        if self._texts:
            p.setFont(self.labels.font)
            p.setPen(QtGui.QColor(255, 255, 255) if ctx.theme.dark else QtGui.QColor(25, 25, 30))
            for x, y, st in self._texts:
                p.drawStaticText(x, y, st)

    def _prepare(self) -> None:
        ctx, card = self.ctx, self.card
        self._fills, self._texts = [], []
        self._ticks = np.zeros((0, 4), np.int32)
        t0, t1 = ctx.abs_window(card)
        width = ctx.area.width
        if width <= 0:
            return
        left = ctx.area.left
        by_colour: dict[tuple[str, int], list[np.ndarray]] = {}
        for row in ctx.visible_rows(card.number):
            y = int(ctx.scene_y(row.y))
            if row.kind == DERIVED:
                lane = card.derived_lanes[row.derived]
                for colour, starts, ends, cum in lane.parts:
                    frac = coverage_fraction(starts, ends, cum, t0, t1, width)
                    # busy share per pixel, in a few steps; any covered time shows at least faintly
                    levels = np.minimum(np.ceil(frac * FRACTION_LEVELS), FRACTION_LEVELS).astype(np.int8)
                    _, x0, x1, lv = level_runs(levels[None, :])
                    for level in np.unique(lv).tolist():
                        sel = lv == level
                        n = int(sel.sum())
                        pad = _pad(row.height)
                        by_colour.setdefault((colour, level), []).append(
                            rect_array(x0[sel] + left, np.full(n, y + pad), x1[sel] + left,
                                       np.full(n, y + row.height - pad)))
            elif row.kind == STEPS and card.steps is not None:
                self._prepare_steps(by_colour, y, row.height, t0, t1, width)
        self._fills = [(k, np.concatenate(v)) for k, v in by_colour.items() if v]

    def _prepare_steps(self, by_colour: dict[tuple[str, int], list[np.ndarray]], y: int, h: int,
                       t0: int, t1: int, width: int) -> None:
        """Three phases per step (one plain bar for a window without phases: the whole trace of a
        trace without step markers); a dark tick at each step start; a label where there is room."""
        s = self.card.steps
        left = self.ctx.area.left
        scale = width / (t1 - t0)
        vis = (s.end > t0) & (s.start < t1)
        if not vis.any():
            return
        idx = np.flatnonzero(vis)

        def px(t: np.ndarray) -> np.ndarray:
            return np.clip(np.floor((t[idx] - t0) * scale), -1, width + 1).astype(np.int64)

        xs, xf, xb, xe = px(s.start), px(np.maximum(s.fp, s.start)), px(np.maximum(s.bp, s.fp)), px(s.end)
        top, bottom = y + _pad(h), y + h - _pad(h)
        phased = s.phases[idx]
        for colour, a, b, which in (("step_interval", xs, xf, phased), ("fp_bp", xf, xb, phased),
                                    ("tail", xb, xe, phased), ("step", xs, xe, ~phased)):
            keep = (b > a) & which
            n = int(keep.sum())
            if n:
                by_colour.setdefault((colour, FRACTION_LEVELS), []).append(
                    rect_array(a[keep] + left, np.full(n, top), b[keep] + left, np.full(n, bottom)))
        inside = (xs >= 0) & (xs < width)
        n = int(inside.sum())
        self._ticks = rect_array(xs[inside] + left, np.full(n, top - 1), xs[inside] + left + 1,
                                 np.full(n, bottom + 1))
        if bottom - top < self.labels.height:  # compact rows (cluster lane filter): no room for labels
            return
        text_y = top + max((bottom - top - self.labels.height) // 2, 0)
        for k in np.flatnonzero((xe - xs) >= 60)[:400].tolist():
            i = int(idx[k])
            text = f"{s.label(i)} · {format_duration(int(s.end[i] - s.start[i]))}"
            x0 = max(int(xs[k]), 0)
            st = self.labels.get(text, min(int(xe[k]), width) - x0 - 6)
            if st is not None:
                self._texts.append((x0 + left + 3, text_y, st))
