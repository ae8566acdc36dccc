"""LaneTree: the lane names left of the tracks (card → process → lane), with collapse toggles.

It paints the same rows as the timeline at the same scroll position, so names and tracks always
line up, whatever the row heights.
"""

from __future__ import annotations

from typing import NamedTuple

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.views.timeline.tracks.registry import HeaderStyle, header_style
from timelineview.views.timeline.view_context import AXIS_H, ViewContext
from timelineview.viewstate.timeline.lane_layout import Row

INDENT = 14
COMPACT_MIN_PX = 8  # smallest text in compact rows
SWATCH = 9  # legend square of a derived or Steps row
LEGEND_GAP = 6


class DrawnLabel(NamedTuple):
    """A name the lane tree painted: its text, its font's line height and the height of its room (px)."""

    text: str
    line_px: int
    room_px: int


class LaneTree(QtWidgets.QWidget):
    """Row titles; clicking a group row collapses or expands it."""

    toggled = QtCore.Signal(tuple)  # key of the group row clicked
    scrolled = QtCore.Signal(int)  # wheel: pixels to scroll by

    def __init__(self, ctx: ViewContext, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setMouseTracking(True)
        self.setMinimumWidth(120)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Preferred, QtWidgets.QSizePolicy.Policy.Expanding)
        self._bold = QtGui.QFont(self.font())
        self._bold.setBold(True)
        self.drawn_labels: list[DrawnLabel] = []  # the names the last paint wrote, top to bottom
        self._small = QtGui.QFont(self.font())
        if self._small.pointSizeF() > 0:
            self._small.setPointSizeF(max(self._small.pointSizeF() - 1, 7.0))

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(240, 400)

    def row_at(self, y: float) -> Row | None:
        if y < AXIS_H:
            return None
        return self.ctx.layout.row_at(y - AXIS_H + self.ctx.scroll_y)

    # ------------------------------------------------------------------ events
    def mousePressEvent(self, ev: QtGui.QMouseEvent) -> None:
        row = self.row_at(ev.position().y())
        if row is not None and row.is_group and ev.button() == QtCore.Qt.MouseButton.LeftButton:
            self.toggled.emit(row.key)

    def mouseMoveEvent(self, ev: QtGui.QMouseEvent) -> None:
        row = self.row_at(ev.position().y())
        tip = row.tooltip if row is not None else ""
        if tip != self.toolTip():
            self.setToolTip(tip)
        self.setCursor(QtCore.Qt.CursorShape.PointingHandCursor if row is not None and row.is_group
                       else QtCore.Qt.CursorShape.ArrowCursor)

    def wheelEvent(self, ev: QtGui.QWheelEvent) -> None:
        self.scrolled.emit(-ev.angleDelta().y() // 2)

    # ------------------------------------------------------------------ paint
    def paintEvent(self, _ev: QtGui.QPaintEvent) -> None:
        ctx, theme = self.ctx, self.ctx.theme
        p = QtGui.QPainter(self)
        w, h = self.width(), self.height()
        p.fillRect(0, 0, w, h, theme.background)
        p.fillRect(0, 0, w, AXIS_H, theme.header)
        p.fillRect(0, AXIS_H - 1, w, 1, theme.grid.darker(115))
        p.setFont(self._small)
        p.setPen(theme.muted)
        p.drawText(QtCore.QRect(8, 0, w - 16, AXIS_H), QtCore.Qt.AlignmentFlag.AlignVCenter,
                   "Lanes" if ctx.cards else "")
        p.setClipRect(0, AXIS_H, w, h - AXIS_H)
        fm_bold = QtGui.QFontMetrics(self._bold)
        fm = QtGui.QFontMetrics(self.font())
        lane_no, band = 0, False
        label_free_y = -1
        self.drawn_labels = []
        rows = ctx.layout.visible(ctx.scroll_y, ctx.scroll_y + h - AXIS_H)
        for r in rows:  # the rows first: a name over two rows is written after both are painted
            y = AXIS_H + r.y - ctx.scroll_y
            style = header_style(r)
            if style is HeaderStyle.CARD:
                p.fillRect(0, y, w, r.height, theme.header.darker(108))
                lane_no = 0
            elif style is HeaderStyle.GROUP:
                p.fillRect(0, y, w, r.height, theme.header)
                lane_no = 0
            else:
                if r.label_span:  # a row named with the one above (both runs' pair) shares its band
                    band, lane_no = lane_no % 2 == 1, lane_no + 1
                if band:
                    p.fillRect(0, y, w, r.height, theme.band)
            p.fillRect(0, y + r.height - 1, w, 1, theme.grid)
        for r in rows:
            if not r.label_span:
                continue
            y = AXIS_H + r.y - ctx.scroll_y
            style = header_style(r)
            label_h = r.height * r.label_span  # a pair's rows are one height (the lane filter's)
            x = 6 + r.indent * INDENT
            if r.is_group:
                self._triangle(p, x, y + r.height // 2, r.collapsed)
                x += 14
            font, metrics = (self._bold, fm_bold) if style is HeaderStyle.CARD else (self.font(), fm)
            if label_h < metrics.height():  # compact rows (cluster lane filter): text shrinks to fit
                font, metrics = self._compact_font(font, label_h)
                if y < label_free_y:  # rows thinner than legible text: name every other one
                    continue
                label_free_y = y + metrics.height()
            p.setFont(font)
            # secondary lanes under a card are muted; at indent 0 (lane filter) they are the card itself
            p.setPen(theme.muted if style is HeaderStyle.SECONDARY and r.indent > 0 else theme.text)
            line_h = min(label_h, 22)
            room = w - x - 8
            if r.legend and label_h >= metrics.height():
                room = self._legend(p, r, x + metrics.horizontalAdvance(r.title) + 8, y, line_h, w - 8) - 6 - x
                p.setFont(font)
                p.setPen(theme.muted if style is HeaderStyle.SECONDARY and r.indent > 0 else theme.text)
            text = metrics.elidedText(r.title, QtCore.Qt.TextElideMode.ElideMiddle, room)
            p.drawText(QtCore.QRect(x, y, room, line_h), QtCore.Qt.AlignmentFlag.AlignVCenter, text)
            self.drawn_labels.append(DrawnLabel(text, metrics.height(), label_h))
        p.setClipping(False)
        p.fillRect(w - 1, 0, 1, h, theme.grid.darker(110))
        p.end()

    def _legend(self, p: QtGui.QPainter, r: Row, x: int, y: int, h: int, right: int) -> int:
        """Swatches of the row's colours with their short labels, right-aligned (from ``x`` at the
        earliest); returns the legend's left edge."""
        fm = QtGui.QFontMetrics(self._small)
        widths = [SWATCH + (fm.horizontalAdvance(label) + 3 if label else 0) for _, label in r.legend]
        total = sum(widths) + LEGEND_GAP * (len(widths) - 1)
        if x + total > right:  # no room for the labels: swatches only
            widths = [SWATCH] * len(r.legend)
            total = sum(widths) + LEGEND_GAP * (len(widths) - 1)
            labels = False
        else:
            labels = True
        left = right - total
        p.setFont(self._small)
        cy = y + h // 2
        for (colour, label), width in zip(r.legend, widths, strict=True):
            p.fillRect(left, cy - SWATCH // 2, SWATCH, SWATCH, self.ctx.theme.derived[colour])
            if labels and label:
                p.setPen(self.ctx.theme.muted)
                p.drawText(QtCore.QRect(left + SWATCH + 3, y, width, h), QtCore.Qt.AlignmentFlag.AlignVCenter, label)
            left += width + LEGEND_GAP
        return right - total

    def _compact_font(self, font: QtGui.QFont, row_h: int) -> tuple[QtGui.QFont, QtGui.QFontMetrics]:
        """The largest ``font`` whose lines fit in ``row_h`` (down to ``COMPACT_MIN_PX``)."""
        small = QtGui.QFont(font)
        px = max(row_h - 1, COMPACT_MIN_PX)
        small.setPixelSize(px)
        while px > COMPACT_MIN_PX and QtGui.QFontMetrics(small).height() > row_h:
            px -= 1
            small.setPixelSize(px)
        return small, QtGui.QFontMetrics(small)

    def _triangle(self, p: QtGui.QPainter, x: int, cy: int, collapsed: bool) -> None:
        p.setPen(QtCore.Qt.PenStyle.NoPen)
        p.setBrush(self.ctx.theme.muted)
        if collapsed:
            pts = [QtCore.QPointF(x + 2, cy - 4), QtCore.QPointF(x + 7, cy), QtCore.QPointF(x + 2, cy + 4)]
        else:
            pts = [QtCore.QPointF(x, cy - 2), QtCore.QPointF(x + 8, cy - 2), QtCore.QPointF(x + 4, cy + 3)]
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        p.drawPolygon(QtGui.QPolygonF(pts))
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)
