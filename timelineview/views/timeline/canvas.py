"""TimelineCanvas: the graphics view holding the per-card items; turns mouse input into gestures.

Scene coordinates are widget pixels (the scene rect follows the view's size, no transform), the axis
on top and the track area below it. Every item paints itself in pixels, so a plain ``QGraphicsView``
is all the canvas needs. Gestures go to a controller (the TimelineWidget):
left click selects, left drag across the tracks selects an area, drag on the ruler or with the
right/middle button pans, the wheel zooms.
"""

from __future__ import annotations

from typing import Protocol

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.views.timeline.background_item import BackgroundItem
from timelineview.views.timeline.overlay import CursorItem, OverlayItem
from timelineview.views.timeline.time_axis import TimeAxisItem
from timelineview.views.timeline.tracks.registry import item_classes
from timelineview.views.timeline.view_context import AXIS_H, ViewContext
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.timeline.view_state import Rect

DRAG_THRESHOLD_PX = 4


class CanvasController(Protocol):
    def on_click(self, pos: QtCore.QPointF, modifiers: QtCore.Qt.KeyboardModifier) -> None: ...
    def on_double_click(self, pos: QtCore.QPointF) -> None: ...
    def on_area_drag(self, start: QtCore.QPointF, end: QtCore.QPointF, done: bool) -> None: ...
    def on_pan_drag(self, dx: float, start: bool) -> None: ...
    def on_wheel(self, ev: QtGui.QWheelEvent) -> None: ...
    def on_hover(self, pos: QtCore.QPointF | None) -> None: ...
    def on_resized(self) -> None: ...


class TimelineCanvas(QtWidgets.QGraphicsView):
    """Hosts one slice, derived and counter item per card, plus axis, background and overlays."""

    def __init__(self, ctx: ViewContext, controller: CanvasController,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.controller = controller
        self.setScene(QtWidgets.QGraphicsScene(self))
        self.setBackgroundBrush(ctx.theme.background)
        self.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setAlignment(QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignTop)
        self.setTransformationAnchor(QtWidgets.QGraphicsView.ViewportAnchor.NoAnchor)
        self.setViewportUpdateMode(QtWidgets.QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setCacheMode(QtWidgets.QGraphicsView.CacheModeFlag.CacheBackground)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
        self.setMouseTracking(True)
        self.setAcceptDrops(False)  # the main window takes dropped files
        self.background_item = BackgroundItem(ctx)
        self.axis = TimeAxisItem(ctx)
        self.overlay = OverlayItem(ctx)
        self.cursor_item = CursorItem(ctx)
        for item in (self.background_item, self.axis, self.overlay, self.cursor_item):
            self.scene().addItem(item)
        self.card_items: list[QtWidgets.QGraphicsObject] = []
        self._press: QtCore.QPointF | None = None
        self._mode = ""  # "", "click", "area", "pan"
        self._last_x = 0.0

    # ------------------------------------------------------------------ content
    def set_cards(self, cards: list[CardView]) -> None:
        for item in self.card_items:
            self.scene().removeItem(item)
        self.card_items = []
        for card in cards:  # one item per registered item class and card, lowest first
            for kind in item_classes():
                item = kind(self.ctx, card)
                self.scene().addItem(item)
                self.card_items.append(item)

    def refresh(self) -> None:
        """Geometry or content changed (the widget's ``changed`` calls this): every item re-prepares
        on its next paint."""
        for item in (self.background_item, self.axis, self.overlay, *self.card_items):
            item.prepareGeometryChange()
        self.setBackgroundBrush(self.ctx.theme.background)
        self.viewport().update()

    def redraw(self) -> None:
        """Repaint (item caches check their own keys); the widget's ``changed`` calls this."""
        self.viewport().update()

    def items_of(self, kind: type) -> list:
        return [i for i in self.card_items if isinstance(i, kind)]

    # ------------------------------------------------------------------ geometry
    def resizeEvent(self, ev: QtGui.QResizeEvent) -> None:
        super().resizeEvent(ev)
        w, h = self.width(), self.height()
        self.setSceneRect(0, 0, max(w, 1), max(h, 1))  # scene coordinates are widget pixels
        self.ctx.area = Rect(0, AXIS_H, max(w, 1), max(h - AXIS_H, 1))
        self.ctx.viewport.set_width(max(w, 1))
        self.controller.on_resized()

    # ------------------------------------------------------------------ mouse
    def mousePressEvent(self, ev: QtGui.QMouseEvent) -> None:
        self._press = ev.position()
        self._last_x = ev.position().x()
        on_axis = ev.position().y() < AXIS_H
        if ev.button() == QtCore.Qt.MouseButton.LeftButton and not on_axis:
            self._mode = "click"
        elif ev.button() in (QtCore.Qt.MouseButton.LeftButton, QtCore.Qt.MouseButton.MiddleButton,
                             QtCore.Qt.MouseButton.RightButton):
            self._mode = "pan"
            self.controller.on_pan_drag(0.0, True)
            self.setCursor(QtCore.Qt.CursorShape.ClosedHandCursor)
        ev.accept()

    def mouseMoveEvent(self, ev: QtGui.QMouseEvent) -> None:
        pos = ev.position()
        self.controller.on_hover(pos)
        if self._press is None:
            return
        if self._mode == "click" and (pos - self._press).manhattanLength() > DRAG_THRESHOLD_PX:
            self._mode = "area"
        if self._mode == "area":
            self.controller.on_area_drag(self._press, pos, False)
        elif self._mode == "pan":
            self.controller.on_pan_drag(pos.x() - self._last_x, False)
            self._last_x = pos.x()
        ev.accept()

    def mouseReleaseEvent(self, ev: QtGui.QMouseEvent) -> None:
        if self._press is None:
            return
        if self._mode == "click":
            self.controller.on_click(ev.position(), ev.modifiers())
        elif self._mode == "area":
            self.controller.on_area_drag(self._press, ev.position(), True)
        self._press = None
        self._mode = ""
        self.unsetCursor()
        ev.accept()

    def mouseDoubleClickEvent(self, ev: QtGui.QMouseEvent) -> None:
        if ev.button() == QtCore.Qt.MouseButton.LeftButton and ev.position().y() >= AXIS_H:
            self.controller.on_double_click(ev.position())
        ev.accept()

    def wheelEvent(self, ev: QtGui.QWheelEvent) -> None:
        self.controller.on_wheel(ev)
        ev.accept()

    def leaveEvent(self, ev: QtCore.QEvent) -> None:
        self.controller.on_hover(None)
        super().leaveEvent(ev)

    def keyPressEvent(self, ev: QtGui.QKeyEvent) -> None:
        ev.ignore()  # keys belong to the TimelineWidget, never to QGraphicsView scrolling
