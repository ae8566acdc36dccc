"""TimeAxisItem: the ruler above the tracks, in readable units down to nanoseconds.

Tick times come from integer ns relative to the trace origin, so labels stay exact at any zoom;
a deep zoom far from the origin shows a base time once and labels ticks as offsets.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.views.theme import Theme
from timelineview.views.timeline.background_item import TICK_MIN_PX
from timelineview.views.timeline.view_context import AXIS_H, ViewContext
from timelineview.viewstate.time_format import format_exact, ticks
from timelineview.viewstate.timeline.viewport import Viewport


class TimeAxisItem(QtWidgets.QGraphicsObject):
    """Ruler over the track area's columns, from scene y 0 to :data:`AXIS_H`."""

    def __init__(self, ctx: ViewContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.font = QtGui.QFont(QtGui.QGuiApplication.font())
        if self.font.pointSizeF() > 0:
            self.font.setPointSizeF(max(self.font.pointSizeF() - 1, 7.0))
        self.setZValue(5)

    def boundingRect(self) -> QtCore.QRectF:
        a = self.ctx.area
        return QtCore.QRectF(a.left, 0, a.width, AXIS_H)

    def paint(self, p: QtGui.QPainter, *_args) -> None:
        ctx = self.ctx
        a, theme = ctx.area, ctx.theme
        rect = QtCore.QRect(a.left, 0, a.width, AXIS_H)
        p.setClipRect(rect)
        p.fillRect(rect, theme.header)
        p.fillRect(QtCore.QRect(a.left, AXIS_H - 1, a.width, 1), theme.grid.darker(115))
        if not ctx.cards:
            return
        paint_ticks(p, a.left, a.right, ctx.viewport, theme, self.font)


def paint_ticks(p: QtGui.QPainter, left: int, right: int, v: Viewport, theme: Theme, font: QtGui.QFont) -> None:
    """The ruler's ticks and labels for the window of ``v``, whose pixel 0 is at x ``left``."""
    times, labels, base = ticks(v.t0, v.t1, right - left + 1, TICK_MIN_PX)
    p.setFont(font)
    fm = QtGui.QFontMetrics(font)
    text_y = (AXIS_H - fm.height()) // 2 + fm.ascent()
    p.setPen(theme.muted)
    left_limit = left
    if base:
        tag = f"{format_exact(base)} +"
        w = fm.horizontalAdvance(tag) + 12
        p.fillRect(QtCore.QRect(left, 3, w, AXIS_H - 7), theme.band)
        p.setPen(theme.text)
        p.drawText(left + 6, text_y, tag)
        p.setPen(theme.muted)
        left_limit = left + w + 4
    for t, label in zip(times, labels):
        x = int(left + v.x_of(t))
        p.fillRect(QtCore.QRect(x, AXIS_H - 7, 1, 6), theme.muted)
        tx = x + 4
        if tx < left_limit or tx + fm.horizontalAdvance(label) > right:
            continue
        p.drawText(tx, text_y, label)
