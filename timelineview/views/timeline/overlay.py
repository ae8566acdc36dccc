"""Items drawn over the tracks: marks, the area selection, the selected slice, its flows, the cursor."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.views.timeline.view_context import ViewContext, qrect, qrectf
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.time_format import format_duration
from timelineview.viewstate.timeline.critical_path.path_geometry import merged_boxes, path_boxes
from timelineview.viewstate.timeline.lane_layout import LANE, LANE_PAD, SLICE_ROW_H

MAX_ARROWS = 200
PATH_PEN = QtGui.QColor(225, 30, 140)  # the critical path's outline: reads on light and dark fills alike
PATH_PEN_W = 2


def level_y(ctx: ViewContext, card: CardView, lane: int, level: int) -> float | None:
    """Layout y of a nesting level of a lane, or None when the lane is hidden (collapsed)."""
    row = ctx.layout.find(LANE, card.number, lane)
    if row is None:
        return None
    return row.y + LANE_PAD + min(level, max(row.levels - 1, 0)) * SLICE_ROW_H


def slice_layout_rect(ctx: ViewContext, card: CardView, i: int) -> tuple[int, int, float, float] | None:
    """(rel start, rel end, layout y top, height) of slice ``i``, or None when its lane is hidden."""
    s = card.store.slices
    y = level_y(ctx, card, int(s.lane[i]), int(s.depth[i]))
    if y is None:
        return None
    start = ctx.rel(card, int(s.start[i]))
    return start, start + int(s.dur[i]), y, SLICE_ROW_H


def _clamped_x(ctx: ViewContext, t_rel: int) -> float:
    a = ctx.area
    return min(max(ctx.scene_x(t_rel), a.left - 4.0), a.right + 4.0)


def path_outlines(ctx: ViewContext) -> list[tuple[int, int, QtCore.QRectF]]:
    """(card number, slice, scene rect) of each slice on the critical path shown (``ctx.path_slices``) that
    meets the visible window on a shown lane."""
    b = path_boxes(ctx)
    return [(int(n), int(i), QtCore.QRectF(x0, y, max(x1 - x0, 1.0), SLICE_ROW_H))
            for n, i, x0, x1, y in zip(b.card.tolist(), b.index.tolist(), b.x0.tolist(), b.x1.tolist(),
                                       b.y.tolist(), strict=True)]


class OverlayItem(QtWidgets.QGraphicsObject):
    """Marks, the area selection, the critical path's outlines, the selected slice's outline and its flows."""

    def __init__(self, ctx: ViewContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.setZValue(20)

    def boundingRect(self) -> QtCore.QRectF:
        return qrectf(self.ctx.area)

    def paint(self, p: QtGui.QPainter, *_args) -> None:
        ctx = self.ctx
        a, theme = ctx.area, ctx.theme
        p.setClipRect(qrect(a))
        for t0, t1 in ctx.marks:
            x0, x1 = _clamped_x(ctx, t0), _clamped_x(ctx, t1)
            p.fillRect(QtCore.QRectF(x0, a.top, max(x1 - x0, 1.0), a.height), theme.mark_fill)
            p.setPen(QtGui.QPen(theme.mark_edge, 1, QtCore.Qt.PenStyle.DashLine))
            p.drawLine(QtCore.QPointF(x0, a.top), QtCore.QPointF(x0, a.bottom))
            p.drawLine(QtCore.QPointF(x1, a.top), QtCore.QPointF(x1, a.bottom))
            self._mark_label(p, x0, x1, t1 - t0)
        sel = ctx.area_selection
        if sel is not None:
            x0, x1 = _clamped_x(ctx, sel.t0), _clamped_x(ctx, sel.t1)
            y0, y1 = ctx.scene_y(sel.y0), ctx.scene_y(sel.y1)
            r = QtCore.QRectF(x0, y0, max(x1 - x0, 1.0), max(y1 - y0, 1.0))
            p.fillRect(r, theme.area_fill)
            p.setPen(QtGui.QPen(theme.area_edge, 1))
            p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
            p.drawRect(r)
        if ctx.path_slices:
            p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
            p.setPen(QtGui.QPen(PATH_PEN, PATH_PEN_W))
            x0, x1, y = merged_boxes(path_boxes(ctx))
            for a0, a1, top in zip(x0.tolist(), x1.tolist(), y.tolist(), strict=True):
                p.drawRect(QtCore.QRectF(a0 + 0.5, top + 0.5, max(a1 - a0, 1.0) - 1.0, SLICE_ROW_H - 1.0))
        if ctx.selection is not None:
            self._paint_selection(p)

    def _mark_label(self, p: QtGui.QPainter, x0: float, x1: float, duration_ns: int) -> None:
        """The marked span's duration at the top of the mark (right of it when the mark is narrow)."""
        ctx = self.ctx
        text = format_duration(duration_ns)
        fm = QtGui.QFontMetrics(p.font())
        w, h = fm.horizontalAdvance(text) + 8, fm.height() + 2
        x = (x0 + x1 - w) / 2 if x1 - x0 >= w else x1 + 3
        box = QtCore.QRectF(x, ctx.area.top + 2, w, h)
        p.fillRect(box, ctx.theme.background)
        p.setPen(ctx.theme.text)
        p.drawText(box, QtCore.Qt.AlignmentFlag.AlignCenter, text)

    def _paint_selection(self, p: QtGui.QPainter) -> None:
        ctx = self.ctx
        card = ctx.card_by_number(ctx.selection.card)
        if card is None:
            return
        geo = slice_layout_rect(ctx, card, ctx.selection.index)
        if geo is not None:
            t0, t1, y, h = geo
            x0, x1 = _clamped_x(ctx, t0), _clamped_x(ctx, t1)
            r = QtCore.QRectF(x0 - 1, ctx.scene_y(y), max(x1 - x0, 1.0) + 2, h)
            p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
            p.setPen(QtGui.QPen(ctx.theme.selection, 2))
            p.drawRect(r)
        self._paint_flows(p, card)

    def _paint_flows(self, p: QtGui.QPainter, card: CardView) -> None:
        ctx = self.ctx
        flows = card.store.flows
        if len(flows) == 0:
            return
        s = card.store.slices
        pen = QtGui.QPen(ctx.theme.flow, 1.5)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        for e in flows.of_slice(ctx.selection.index)[:MAX_ARROWS].tolist():
            ends = []
            for ts, lane, sl in ((flows.src_ts[e], flows.src_lane[e], flows.src_slice[e]),
                                 (flows.dst_ts[e], flows.dst_lane[e], flows.dst_slice[e])):
                level = int(s.depth[sl]) if sl >= 0 else 0
                y = level_y(ctx, card, int(lane), level)
                if y is None:
                    break
                ends.append((ctx.scene_x(ctx.rel(card, int(ts))), ctx.scene_y(y)))
            if len(ends) == 2:
                self._arrow(p, pen, ends[0], ends[1])
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)

    def _arrow(self, p: QtGui.QPainter, pen: QtGui.QPen, src: tuple[float, float],
               dst: tuple[float, float]) -> None:
        """A curve leaving the source slice's edge and entering the destination's, so it never
        crosses their labels; same-row flows bow above the row."""
        (x0, y0), (x1, y1) = src, dst
        h = SLICE_ROW_H - 2
        if y1 > y0:  # destination below: bottom edge -> top edge
            a, b = QtCore.QPointF(x0, y0 + h + 1), QtCore.QPointF(x1, y1 + 1)
        elif y1 < y0:
            a, b = QtCore.QPointF(x0, y0 + 1), QtCore.QPointF(x1, y1 + h + 1)
        else:
            a, b = QtCore.QPointF(x0, y0 + 1), QtCore.QPointF(x1, y1 + 1)
        dy = b.y() - a.y()
        bow = dy * 0.5 if dy else -max(abs(x1 - x0) * 0.25, 12.0)
        path = QtGui.QPainterPath(a)
        path.cubicTo(a.x(), a.y() + bow, b.x(), b.y() - (bow if dy else -bow), b.x(), b.y())
        p.setPen(pen)
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        p.drawPath(path)
        # arrow head along the curve's final direction (vertical)
        down = 1.0 if dy >= 0 else -1.0
        size = 6.0
        head = QtGui.QPolygonF([
            b,
            QtCore.QPointF(b.x() - size * 0.6, b.y() - size * down),
            QtCore.QPointF(b.x() + size * 0.6, b.y() - size * down),
        ])
        p.setBrush(pen.color())
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        p.drawPolygon(head)
        p.drawEllipse(a, 2.5, 2.5)


class CursorItem(QtWidgets.QGraphicsObject):
    """The vertical cursor line; its small bounding rect keeps cursor moves cheap to repaint."""

    def __init__(self, ctx: ViewContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.setZValue(30)
        self._x: float | None = None

    def move_to(self, t_rel: int | None) -> None:
        self.prepareGeometryChange()
        self._x = None if t_rel is None else self.ctx.scene_x(t_rel)
        self.update()

    def boundingRect(self) -> QtCore.QRectF:
        if self._x is None:
            return QtCore.QRectF()
        return QtCore.QRectF(self._x - 1, 0, 3, self.ctx.area.bottom + 1)

    def paint(self, p: QtGui.QPainter, *_args) -> None:
        if self._x is None:
            return
        a = self.ctx.area
        if not (a.left <= self._x <= a.right):
            return
        p.fillRect(QtCore.QRectF(int(self._x), 0, 1, a.bottom + 1), self.ctx.theme.cursor)
