"""CardOverview: one summarised card at overview zoom, drawn from its level-of-detail pyramid.

Each row (the derived sets, then every lane that holds slices) is one strip whose opacity is the
share of each time bucket its intervals cover; the pyramid level is the coarsest with at least one
bucket per pixel. Zooming in past the pyramid needs the card's trace (not done here: the summary
names it, ``sources`` in its manifest, and the viewer opens it with File ▸ Open).
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.summaries.card_summary import DERIVED_TITLES, SummaryCard
from timelineview.analysis.summaries.pyramid import Pyramid
from timelineview.viewstate.palette import DERIVED_COLOURS

ROW_H = 14
LABEL_W = 260
PAD = 6
LANE_COLOUR = (91, 143, 249)
TITLE_COLOUR = {title: DERIVED_COLOURS[name] for name, title in DERIVED_TITLES.items() if name in DERIVED_COLOURS}
TITLE_COLOUR["Idle AI Core gaps"] = DERIVED_COLOURS["idle_gap_free"]


def row_image(pyramid: Pyramid, width_px: int) -> QtGui.QImage:
    """ARGB image (buckets × rows): each row in its colour, alpha = occupancy."""
    level = np.asarray(pyramid.level_for(width_px))
    rows, buckets = level.shape
    argb = np.zeros((rows, buckets, 4), np.uint8)
    for r, title in enumerate(pyramid.rows):
        red, green, blue = TITLE_COLOUR.get(title, LANE_COLOUR)
        argb[r, :, 0], argb[r, :, 1], argb[r, :, 2] = blue, green, red  # QImage ARGB32 is BGRA in memory
    argb[:, :, 3] = level
    argb = np.ascontiguousarray(argb)
    image = QtGui.QImage(argb.data, buckets, rows, 4 * buckets, QtGui.QImage.Format.Format_ARGB32)
    return image.copy()


class CardOverview(QtWidgets.QWidget):
    """The pyramid of one card, with its row titles and a time axis in ms from the card's start."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.card: SummaryCard | None = None
        self.pyramid: Pyramid | None = None
        self._image: QtGui.QImage | None = None
        self._image_w = 0

    def set_card(self, card: SummaryCard) -> None:
        self.card, self.pyramid = card, card.pyramid()
        self._image = None
        self.setMinimumHeight(2 * PAD + ROW_H * (len(self.pyramid.rows) + 2))
        self.update()

    def sizeHint(self) -> QtCore.QSize:
        rows = len(self.pyramid.rows) if self.pyramid else 10
        return QtCore.QSize(900, 2 * PAD + ROW_H * (rows + 2))

    def paintEvent(self, ev: QtGui.QPaintEvent) -> None:
        p = QtGui.QPainter(self)
        text = self.palette().color(QtGui.QPalette.ColorRole.WindowText)
        p.setPen(text)
        if self.pyramid is None:
            p.drawText(self.rect(), QtCore.Qt.AlignmentFlag.AlignCenter, "Double-click a card to see its overview")
            return
        pyr = self.pyramid
        plot_w = max(self.width() - LABEL_W - 2 * PAD, 10)
        if self._image is None or self._image_w != plot_w:
            self._image, self._image_w = row_image(pyr, plot_w), plot_w
        top = PAD + ROW_H
        p.drawText(QtCore.QPointF(PAD, PAD + ROW_H - 3),
                   f"{self.card.card} — made by {self.card.worker or '?'} (overview from the summary)")
        for r, title in enumerate(pyr.rows):
            rect = QtCore.QRectF(PAD, top + r * ROW_H, LABEL_W - PAD, ROW_H)
            p.drawText(rect, QtCore.Qt.AlignmentFlag.AlignVCenter, p.fontMetrics().elidedText(
                title, QtCore.Qt.TextElideMode.ElideLeft, LABEL_W - 2 * PAD))
        target = QtCore.QRectF(LABEL_W, top, plot_w, ROW_H * len(pyr.rows))
        p.setRenderHint(QtGui.QPainter.RenderHint.SmoothPixmapTransform, True)
        p.drawImage(target, self._image)
        span_ms = (pyr.t1 - pyr.t0) / 1e6
        y = target.bottom() + ROW_H - 3
        p.drawText(QtCore.QPointF(LABEL_W, y), "0 ms")
        end = f"{span_ms:.4g} ms"
        p.drawText(QtCore.QPointF(target.right() - p.fontMetrics().horizontalAdvance(end), y), end)

