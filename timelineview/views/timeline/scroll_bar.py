"""LaneScrollBar: a vertical scroll bar painted flat (the styled one costs ~6 ms per frame)."""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets


class LaneScrollBar(QtWidgets.QScrollBar):
    """Same behaviour as QScrollBar (the style still does hit testing); only painting is simpler."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(QtCore.Qt.Orientation.Vertical, parent)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(12, 100)

    def paintEvent(self, _ev: QtGui.QPaintEvent) -> None:
        opt = QtWidgets.QStyleOptionSlider()
        self.initStyleOption(opt)
        handle = self.style().subControlRect(QtWidgets.QStyle.ComplexControl.CC_ScrollBar, opt,
                                             QtWidgets.QStyle.SubControl.SC_ScrollBarSlider, self)
        pal = self.palette()
        p = QtGui.QPainter(self)
        p.fillRect(self.rect(), pal.color(QtGui.QPalette.ColorRole.Window))
        if self.maximum() > self.minimum():
            colour = pal.color(QtGui.QPalette.ColorRole.Mid)
            if self.isSliderDown():
                colour = pal.color(QtGui.QPalette.ColorRole.Dark)
            p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
            p.setPen(QtCore.Qt.PenStyle.NoPen)
            p.setBrush(colour)
            p.drawRoundedRect(QtCore.QRectF(handle).adjusted(2, 1, -2, -1), 3, 3)
        p.end()
