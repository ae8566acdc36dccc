"""PyramidTimeline: a summarised card's timeline drawn from its level-of-detail pyramid (metrics.md §10).

It stands in the Timeline tab while a card of a summary folder is shown whose trace is not loaded:
a row per pyramid row (the derived sets, then every lane with slices) titled in the lane-header
column, the time ruler, and the timeline's navigation (wheel and W/S zoom at the mouse, A/D and drag
pan, 0 shows all, Backspace undoes) on the same :class:`Viewport`. Each row's shade is the share of
the time its intervals cover, read per paint from the coarsest pyramid level with at least one bucket
per pixel (``viewstate.timeline.pyramid_frame``); the card's header row says it is an overview from
the summary and what one bucket stands for, so it is never mistaken for slices. A jump's target span
(a finding's evidence, say) is marked across the card's rows as the timeline marks it (its area
selection's colours) until a click elsewhere, Escape or another card.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.summaries.card_summary import DERIVED_TITLES
from timelineview.analysis.summaries.pyramid import FULL, Pyramid
from timelineview.views.keys import HeldKeyEvents, HeldKeys, discrete_action, nav_step, wheel_zoom
from timelineview.views.theme import Theme, system_is_dark
from timelineview.views.timeline.scroll_bar import LaneScrollBar
from timelineview.views.timeline.time_axis import paint_ticks
from timelineview.viewstate.time_format import format_duration, format_exact
from timelineview.viewstate.timeline.lane_layout import SLICE_ROW_H
from timelineview.viewstate.timeline.pyramid_frame import (
    PyramidFrame,
    bucket_at,
    frame_for,
    past_the_pyramid,
    pixel_occupancy,
    span_ns,
)
from timelineview.viewstate.timeline.view_state import AXIS_H
from timelineview.viewstate.timeline.viewport import Viewport

HEADER_W = 240  # the lane-header column, as wide as the timeline's by default
CARD_ROW_H = 24  # the card's header row: its title and what the rows are
ROW_H = SLICE_ROW_H
ROW_PAD = 2
MIN_ALPHA = 70  # a bucket with any covered time shows at least this faintly (as the derived lanes do)
ROW_COLOUR = {title: name for name, title in DERIVED_TITLES.items()}
ROW_COLOUR["Idle AI Core gaps"] = "idle_gap_free"  # the derived lanes' colour for gaps where nothing ran
DRAG_THRESHOLD_PX = 4


def occupancy_alpha(occ: np.ndarray) -> np.ndarray:
    """Opacity per pixel: 0 where nothing ran, else :data:`MIN_ALPHA` .. 255 with the covered share."""
    occ = occ.astype(np.int32)
    return np.where(occ > 0, MIN_ALPHA + occ * (FULL - MIN_ALPHA) // FULL, 0).astype(np.uint8)


class PyramidTimeline(HeldKeyEvents, QtWidgets.QWidget):
    """One summarised card from its pyramid, navigable like the timeline."""

    windowChanged = QtCore.Signal()
    detailWanted = QtCore.Signal()  # the window is zoomed in past the finest level
    cursorMoved = QtCore.Signal(str)  # status text for the time and the row under the mouse

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.viewport = Viewport()
        self.pyramid: Pyramid | None = None
        self.title = ""
        self.note = ""  # what the header row adds: the trace loading, or not on this machine
        self.frame: PyramidFrame | None = None  # what the last paint read
        self.target: tuple[int, int] | None = None  # a jump's span, relative ns, marked over the rows
        self.scroll_y = 0
        self.theme = Theme.build(system_is_dark())
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(True)
        self.held = HeldKeys(self._nav_step, self)
        self.scrollbar = LaneScrollBar(self)
        self.scrollbar.valueChanged.connect(self.set_scroll)
        self._font = QtGui.QFont(self.font())
        self._bold = QtGui.QFont(self.font())
        self._bold.setBold(True)
        self._small = QtGui.QFont(self.font())
        if self._small.pointSizeF() > 0:
            self._small.setPointSizeF(max(self._small.pointSizeF() - 1, 7.0))
        self._press: QtCore.QPointF | None = None
        self._last_x = 0.0
        self._last_wheel = 0.0
        hints = QtGui.QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):  # follows the system's light / dark scheme, as the timeline does
            hints.colorSchemeChanged.connect(lambda *_: self.set_theme(system_is_dark()))

    # ------------------------------------------------------------------ content
    def set_pyramid(self, pyramid: Pyramid, title: str, window: tuple[int, int] | None = None) -> None:
        """Show ``pyramid`` under the header ``title``; ``window``: relative ns to show (else all)."""
        self.pyramid, self.title, self.note = pyramid, title, ""
        self.target = None
        self.viewport.set_extent(0, span_ns(pyramid))
        if window is not None:
            self.viewport.set_range(*window, remember=False)
        self.scroll_y = 0
        self.changed(window=True)

    def set_note(self, text: str) -> None:
        self.note = text
        self.update()

    def set_target(self, span: tuple[int, int] | None) -> None:
        """Mark ``span`` ([t0, t1] ns relative to the card's start) across the rows; None clears the mark."""
        self.target = (int(span[0]), int(span[1])) if span is not None else None
        self.update()

    def set_range(self, t0: int, t1: int, remember: bool = True) -> None:
        """Show [t0, t1] ns relative to the card's start."""
        self.viewport.set_range(t0, t1, remember=remember)
        self.changed(window=True)

    def plot_rect(self) -> QtCore.QRect:
        """Where the rows are drawn (right of the header column, under the ruler and the card row)."""
        top = AXIS_H + CARD_ROW_H
        return QtCore.QRect(HEADER_W, top, max(self.width() - HEADER_W - self.scrollbar.width(), 1),
                            max(self.height() - top, 1))

    def row_y(self, row: int) -> int:
        """Widget y of the top of pyramid row ``row``."""
        return self.plot_rect().top() + row * ROW_H - self.scroll_y

    def changed(self, window: bool = False) -> None:
        """The one change path: clamp the scroll, repaint, and on a new window say whether it went
        past what the pyramid holds."""
        rows = len(self.pyramid.rows) if self.pyramid else 0
        page = self.plot_rect().height()
        self.scrollbar.blockSignals(True)
        self.scrollbar.setRange(0, max(rows * ROW_H - page, 0))
        self.scrollbar.setPageStep(max(page, 1))
        self.scrollbar.setSingleStep(ROW_H)
        self.scroll_y = min(max(self.scroll_y, 0), self.scrollbar.maximum())
        self.scrollbar.setValue(self.scroll_y)
        self.scrollbar.blockSignals(False)
        self.update()
        if window and self.pyramid is not None:
            self.windowChanged.emit()
            v = self.viewport
            if past_the_pyramid(self.pyramid, v.t0, v.t1, v.width_px):
                self.detailWanted.emit()

    def set_scroll(self, y: int) -> None:
        self.scroll_y = int(y)
        self.changed()

    def set_theme(self, dark: bool) -> None:
        self.theme = Theme.build(dark)
        self.update()

    # ------------------------------------------------------------------ geometry
    def resizeEvent(self, ev: QtGui.QResizeEvent) -> None:
        super().resizeEvent(ev)
        w, top = self.scrollbar.sizeHint().width(), AXIS_H + CARD_ROW_H
        self.scrollbar.setGeometry(self.width() - w, top, w, max(self.height() - top, 1))
        self.viewport.set_width(self.plot_rect().width())
        self.changed(window=True)

    # ------------------------------------------------------------------ paint
    def paintEvent(self, _ev: QtGui.QPaintEvent) -> None:
        p = QtGui.QPainter(self)
        theme = self.theme
        p.fillRect(self.rect(), theme.background)
        plot = self.plot_rect()
        p.fillRect(QtCore.QRect(0, 0, self.width(), AXIS_H), theme.header)
        p.fillRect(QtCore.QRect(0, AXIS_H - 1, self.width(), 1), theme.grid.darker(115))
        if self.pyramid is None:
            p.setPen(theme.muted)
            p.drawText(self.rect(), QtCore.Qt.AlignmentFlag.AlignCenter,
                       "Double-click a card in the Cluster comparison or the Heat map to see its timeline")
            return
        self._paint_card_row(p, plot)
        p.setClipRect(QtCore.QRect(0, plot.top(), self.width(), plot.height()))
        first, last = self._visible_rows(plot)
        self._paint_headers(p, plot, first, last)
        self._paint_rows(p, plot, first, last)
        self._paint_target(p)
        p.setClipping(False)
        p.setClipRect(QtCore.QRect(plot.left(), 0, plot.width(), AXIS_H))
        paint_ticks(p, plot.left(), plot.right(), self.viewport, theme, self._small)
        p.end()

    def _visible_rows(self, plot: QtCore.QRect) -> tuple[int, int]:
        """Pyramid rows [first, last) inside the plot at the current scroll."""
        n = len(self.pyramid.rows)
        first = min(self.scroll_y // ROW_H, n)
        last = min(first + plot.height() // ROW_H + 2, n)
        return first, last

    def _paint_card_row(self, p: QtGui.QPainter, plot: QtCore.QRect) -> None:
        theme = self.theme
        y = AXIS_H
        p.fillRect(QtCore.QRect(0, y, self.width(), CARD_ROW_H), theme.header.darker(108))
        p.setFont(self._bold)
        p.setPen(theme.text)
        fm = QtGui.QFontMetrics(self._bold)
        p.drawText(QtCore.QRect(8, y, HEADER_W - 16, CARD_ROW_H), QtCore.Qt.AlignmentFlag.AlignVCenter,
                   fm.elidedText(self.title, QtCore.Qt.TextElideMode.ElideMiddle, HEADER_W - 16))
        v = self.viewport
        self.frame = frame_for(self.pyramid, v.t0, v.t1, plot.width())
        text = f"Overview from the summary, not slices · {self.frame.resolution}"
        if self.note:
            text += f" · {self.note}"
        p.setFont(self._font)
        room = plot.width() - 16
        p.drawText(QtCore.QRect(plot.left() + 8, y, room, CARD_ROW_H), QtCore.Qt.AlignmentFlag.AlignVCenter,
                   QtGui.QFontMetrics(self._font).elidedText(text, QtCore.Qt.TextElideMode.ElideRight, room))

    def _paint_headers(self, p: QtGui.QPainter, plot: QtCore.QRect, first: int, last: int) -> None:
        theme = self.theme
        fm = QtGui.QFontMetrics(self._font)
        p.setFont(self._font)
        for r in range(first, last):
            y = self.row_y(r)
            if r % 2 == 1:
                p.fillRect(QtCore.QRect(0, y, self.width(), ROW_H), theme.band)
            p.fillRect(QtCore.QRect(0, y + ROW_H - 1, self.width(), 1), theme.grid)
            title = self.pyramid.rows[r]
            derived = title in ROW_COLOUR
            p.setPen(theme.muted if derived else theme.text)
            x = 8 if derived else 20  # lanes indented under the card's derived rows, as on the timeline
            p.drawText(QtCore.QRect(x, y, HEADER_W - x - 6, ROW_H), QtCore.Qt.AlignmentFlag.AlignVCenter,
                       fm.elidedText(title, QtCore.Qt.TextElideMode.ElideMiddle, HEADER_W - x - 6))
        p.fillRect(QtCore.QRect(HEADER_W - 1, 0, 1, self.height()), theme.grid.darker(110))

    def _paint_rows(self, p: QtGui.QPainter, plot: QtCore.QRect, first: int, last: int) -> None:
        """Each visible row's occupancy per pixel, as one image row scaled to the row's height."""
        if last <= first:
            return
        v = self.viewport
        occ = pixel_occupancy(self.pyramid, self.frame, v.t0, v.t1, plot.width(), slice(first, last))
        argb = np.zeros((last - first, plot.width(), 4), np.uint8)
        for i, r in enumerate(range(first, last)):
            c = self.row_colour(r)
            argb[i, :, 0], argb[i, :, 1], argb[i, :, 2] = c.blue(), c.green(), c.red()  # ARGB32 is BGRA in memory
        argb[:, :, 3] = occupancy_alpha(occ)
        image = QtGui.QImage(argb.data, plot.width(), last - first, 4 * plot.width(),
                             QtGui.QImage.Format.Format_ARGB32)
        for i, r in enumerate(range(first, last)):
            y = self.row_y(r)
            p.drawImage(QtCore.QRect(plot.left(), y + ROW_PAD, plot.width(), ROW_H - 2 * ROW_PAD), image,
                        QtCore.QRect(0, i, plot.width(), 1))

    def target_rect(self) -> QtCore.QRectF | None:
        """Where the jump's span is marked: its time across the rows (at least a pixel wide), or None."""
        if self.target is None or self.pyramid is None:
            return None
        plot, v = self.plot_rect(), self.viewport
        px = plot.width() / max(v.t1 - v.t0, 1)
        x0 = plot.left() + max((self.target[0] - v.t0) * px, -1.0)
        x1 = plot.left() + min((self.target[1] - v.t0) * px, plot.width() + 1.0)
        top = max(self.row_y(0), plot.top())
        bottom = min(self.row_y(len(self.pyramid.rows)), plot.bottom() + 1)
        if x1 < plot.left() or x0 > plot.right() or bottom <= top:
            return None
        return QtCore.QRectF(x0, top, max(x1 - x0, 1.0), bottom - top)

    def _paint_target(self, p: QtGui.QPainter) -> None:
        r = self.target_rect()
        if r is None:
            return
        p.fillRect(r, self.theme.area_fill)
        p.setPen(QtGui.QPen(self.theme.area_edge, 1))
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        p.drawRect(r)

    def row_colour(self, row: int) -> QtGui.QColor:
        """A derived row in its lane's colour; a lane in the colour of a collapsed group's busy strip."""
        key = ROW_COLOUR.get(self.pyramid.rows[row])
        return self.theme.derived[key] if key is not None else self.theme.summary

    # ------------------------------------------------------------------ navigation
    def _nav_step(self, action: str, amount: float | None) -> None:
        """One W/A/S/D press (amount None) or a held key's increment: the timeline's steps and rates."""
        nav_step(self.viewport, action, amount, self._mouse_x())
        self.changed(window=True)

    def _mouse_x(self) -> float | None:
        pos = self.mapFromGlobal(QtGui.QCursor.pos())
        plot = self.plot_rect()
        return float(pos.x() - plot.left()) if plot.contains(pos) else None

    def keyPressEvent(self, ev: QtGui.QKeyEvent) -> None:
        if self.held.take_press(ev):
            ev.accept()
            return
        action = discrete_action(ev)
        if action == "escape" and self.target is not None:
            self.set_target(None)
        elif action == "show_all":
            self.viewport.show_all()
            self.changed(window=True)
        elif action == "undo" and self.viewport.undo():
            self.changed(window=True)
        else:
            super().keyPressEvent(ev)

    def wheelEvent(self, ev: QtGui.QWheelEvent) -> None:
        dy, dx = ev.angleDelta().y(), ev.angleDelta().x()
        mods = ev.modifiers()
        if mods & QtCore.Qt.KeyboardModifier.ShiftModifier or ev.position().x() < HEADER_W:
            self.set_scroll(self.scroll_y - (dy or dx) // 2)
        elif dx and not dy or mods & QtCore.Qt.KeyboardModifier.AltModifier:
            self.viewport.pan_px((dx or dy) / 4)
            self.changed(window=True)
        else:
            self._last_wheel = wheel_zoom(self.viewport, dy, ev.position().x() - self.plot_rect().left(),
                                          self._last_wheel)
            self.changed(window=True)
        ev.accept()

    def mousePressEvent(self, ev: QtGui.QMouseEvent) -> None:
        self.setFocus()
        if ev.position().x() >= HEADER_W:
            self._press = ev.position()
            self._last_x = ev.position().x()
            self.viewport.remember()
        ev.accept()

    def mouseMoveEvent(self, ev: QtGui.QMouseEvent) -> None:
        pos = ev.position()
        if self._press is not None and (pos - self._press).manhattanLength() > DRAG_THRESHOLD_PX:
            self.setCursor(QtCore.Qt.CursorShape.ClosedHandCursor)
            self.viewport.pan_px(pos.x() - self._last_x)
            self._last_x = pos.x()
            self.changed(window=True)
        self.cursorMoved.emit(self.status_text(pos))

    def mouseReleaseEvent(self, ev: QtGui.QMouseEvent) -> None:
        clicked = self._press is not None and (ev.position() - self._press).manhattanLength() <= DRAG_THRESHOLD_PX
        if clicked and self.target is not None:  # a click elsewhere lets go of the jump's mark, as on the timeline
            self.set_target(None)
        self._press = None
        self.unsetCursor()
        ev.accept()

    def leaveEvent(self, ev: QtCore.QEvent) -> None:
        self.cursorMoved.emit("")
        super().leaveEvent(ev)

    def status_text(self, pos: QtCore.QPointF) -> str:
        """The time under the mouse and, over a row, how busy that row's bucket there is."""
        plot = self.plot_rect()
        if self.pyramid is None or self.frame is None or pos.x() < plot.left() or pos.y() < plot.top():
            return ""
        t = self.viewport.t_of(pos.x() - plot.left())
        text = f"t = {format_exact(t)}"
        row = int((pos.y() - plot.top() + self.scroll_y) // ROW_H)
        k = bucket_at(self.pyramid, self.frame, t)
        if 0 <= row < len(self.pyramid.rows) and k is not None:
            share = int(self.pyramid.levels[self.frame.level][row, k]) / FULL
            text += (f"   ·   {self.pyramid.rows[row]}: busy {share:.0%} of its "
                     f"{format_duration(self.frame.bucket_ns, 2)} bucket (from the summary)")
        return text
