"""BackgroundItem: row bands, group header rows and time grid lines under the tracks."""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.views.painting import draw_rects, rect_array
from timelineview.views.timeline.tracks.registry import HeaderStyle, header_style
from timelineview.views.timeline.view_context import ViewContext, qrect, qrectf
from timelineview.viewstate.time_format import ticks

TICK_MIN_PX = 110
UNLOADED_ALPHA = 110  # the hatching over time not loaded yet: visible, the slices under it still read
NO_TRACE_TEXT = "No trace open — File ▸ Open (Ctrl+O) or drop a trace file or folder here"


class BackgroundItem(QtWidgets.QGraphicsObject):
    """Paints under every track: calm alternate bands so lanes read as rows, headers, grid."""

    def __init__(self, ctx: ViewContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.setZValue(-10)

    def boundingRect(self) -> QtCore.QRectF:
        return qrectf(self.ctx.area)

    def paint(self, p: QtGui.QPainter, *_args) -> None:
        ctx = self.ctx
        area, theme = ctx.area, ctx.theme
        p.setClipRect(qrect(area))
        p.fillRect(qrect(area), theme.background)
        rows = ctx.visible_rows()
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        bands, heads, cards, lines = [], [], [], []
        lane_no, band = 0, False
        for r in rows:
            y0 = int(ctx.scene_y(r.y))
            y1 = y0 + r.height
            style = header_style(r)
            if style is HeaderStyle.CARD:
                cards.append((y0, y1))
                lane_no = 0
            elif style is HeaderStyle.GROUP:
                heads.append((y0, y1))
                lane_no = 0
            else:
                if r.label_span:  # a row named with the one above (both runs' pair) shares its band
                    band, lane_no = lane_no % 2 == 1, lane_no + 1
                if band:
                    bands.append((y0, y1))
            lines.append(y1 - 1)
        left, right = area.left, area.right + 1
        for spans, colour in ((bands, theme.band), (heads, theme.header), (cards, theme.header.darker(108))):
            if spans:
                ys = np.asarray(spans, np.int32)
                p.setBrush(colour)
                draw_rects(p, rect_array(np.full(len(ys), left), ys[:, 0], np.full(len(ys), right), ys[:, 1]))
        # vertical grid at the axis ticks, then a hairline under each row
        times, _, _ = ticks(ctx.viewport.t0, ctx.viewport.t1, area.width, TICK_MIN_PX)
        if times:
            xs = np.array([int(ctx.scene_x(t)) for t in times], np.int32)
            p.setBrush(theme.grid)
            draw_rects(p, rect_array(xs, np.full(len(xs), area.top), xs + 1,
                                     np.full(len(xs), area.bottom + 1)))
        if lines:
            ys = np.asarray(lines, np.int32)
            p.setBrush(theme.grid)
            draw_rects(p, rect_array(np.full(len(ys), left), ys, np.full(len(ys), right), ys + 1))
        if ctx.unloaded is not None:
            paint_unloaded(p, ctx)
        if not ctx.cards:
            p.setPen(theme.muted)
            p.drawText(qrect(area), QtCore.Qt.AlignmentFlag.AlignCenter, empty_text(ctx.loading, ctx.empty_hint))


def paint_unloaded(p: QtGui.QPainter, ctx: ViewContext) -> None:
    """Hatch the time a load has not reached yet, and say so at its top."""
    area, span = ctx.area, ctx.unloaded
    x0 = max(int(ctx.scene_x(span.start - ctx.origin)), area.left)
    if x0 > area.right:
        return
    band = QtCore.QRect(x0, area.top, area.right + 1 - x0, area.height)
    colour = QtGui.QColor(ctx.theme.muted)
    colour.setAlpha(UNLOADED_ALPHA)
    p.setPen(QtCore.Qt.PenStyle.NoPen)
    p.setBrush(QtGui.QBrush(colour, QtCore.Qt.BrushStyle.BDiagPattern))
    p.drawRect(band)
    p.setPen(ctx.theme.muted)
    p.drawText(band.adjusted(6, 4, -6, 0), QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignTop,
               span.text)


def empty_text(loading: str, hint: str = "") -> str:
    """What the canvas says without cards: what is loading, else ``hint`` or how to open a trace."""
    if loading:
        return f"Loading {loading}…"
    return hint or NO_TRACE_TEXT
