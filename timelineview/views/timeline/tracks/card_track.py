"""CardTrackItem: the base of the items that draw one card's rows across the viewport."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.views.painting import LabelCache, label_font
from timelineview.views.timeline.view_context import ViewContext, qrect, qrectf
from timelineview.viewstate.card_view import CardView


class CardTrackItem(QtWidgets.QGraphicsObject):
    """Covers the whole viewport and paints in device pixels.

    Geometry is prepared only when ``frame_key()`` changes (window, layout, theme …),
    so cursor moves and hover repaints only redraw what was prepared.
    """

    def __init__(self, ctx: ViewContext, card: CardView, font_delta: float = -1.0) -> None:
        super().__init__()
        self.ctx = ctx
        self.card = card
        self.labels = LabelCache(label_font(font_delta))
        self._key: tuple | None = None

    def boundingRect(self) -> QtCore.QRectF:
        return qrectf(self.ctx.area)

    def frame_key(self) -> tuple:
        return self.ctx.view_key()

    def paint(self, p: QtGui.QPainter, *_args) -> None:
        key = self.frame_key()
        if key != self._key:
            self._prepare()
            self._key = key
        p.setClipRect(qrect(self.ctx.area))
        self._draw(p)

    def _prepare(self) -> None:
        raise NotImplementedError

    def _draw(self, p: QtGui.QPainter) -> None:
        raise NotImplementedError
