"""Low-level drawing helpers: zero-copy rect batches and cached static labels."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import shiboken6
from PySide6 import QtCore, QtGui

LABEL_MIN_PX = 40  # narrower rects get no label: Qt text is the expensive part of a frame
LABEL_CACHE_SIZE = 20_000


def rect_array(x0: np.ndarray, y0: np.ndarray, x1: np.ndarray, y1: np.ndarray) -> np.ndarray:
    """(n, 4) int32 QRect memory (x1, y1, x2, y2 inclusive) from half-open pixel bounds."""
    n = len(x0)
    arr = np.empty((n, 4), dtype=np.int32)
    arr[:, 0] = x0
    arr[:, 1] = y0
    arr[:, 2] = np.asarray(x1) - 1
    arr[:, 3] = np.asarray(y1) - 1
    return arr


def draw_rects(p: QtGui.QPainter, arr: np.ndarray) -> None:
    """One native ``drawRects`` over an int32 (n, 4) array, no Python object per rect."""
    n = len(arr)
    if n == 0:
        return
    arr = np.ascontiguousarray(arr, dtype=np.int32)
    p.drawRects(shiboken6.wrapInstance(arr.ctypes.data, QtCore.QRect), n)


def fill_grouped(p: QtGui.QPainter, rects: np.ndarray, colour_ids: np.ndarray,
                 colours: list[QtGui.QColor]) -> None:
    """Fill rects grouped by colour: one brush change and one ``drawRects`` per colour."""
    if len(rects) == 0:
        return
    order = np.argsort(colour_ids, kind="stable")
    ids = colour_ids[order]
    rects = rects[order]
    cuts = np.flatnonzero(np.diff(ids)) + 1
    bounds = np.concatenate([[0], cuts, [len(ids)]])
    p.setPen(QtCore.Qt.PenStyle.NoPen)
    for a, b in zip(bounds[:-1], bounds[1:]):
        p.setBrush(colours[int(ids[a])])
        draw_rects(p, rects[a:b])


class LabelCache:
    """``QStaticText`` per (text, width bucket), elided to fit; bounded LRU."""

    def __init__(self, font: QtGui.QFont) -> None:
        self.font = font
        self.metrics = QtGui.QFontMetrics(font)
        self._cache: OrderedDict[tuple[str, int], QtGui.QStaticText | None] = OrderedDict()

    def get(self, text: str, width_px: int) -> QtGui.QStaticText | None:
        """A label no wider than ``width_px`` (bucketed by 16 px), or None when nothing fits."""
        bucket = int(width_px) // 16
        key = (text, bucket)
        hit = self._cache.get(key, False)
        if hit is not False:
            self._cache.move_to_end(key)
            return hit
        avail = bucket * 16
        elided = self.metrics.elidedText(text, QtCore.Qt.TextElideMode.ElideRight, avail)
        st = None
        if elided and elided != "…" and self.metrics.horizontalAdvance(elided) <= avail:
            st = QtGui.QStaticText(elided)
            st.setTextFormat(QtCore.Qt.TextFormat.PlainText)
            st.prepare(QtGui.QTransform(), self.font)
        self._cache[key] = st
        if len(self._cache) > LABEL_CACHE_SIZE:
            self._cache.popitem(last=False)
        return st

    @property
    def height(self) -> int:
        return self.metrics.height()


def label_font(point_delta: float = -1.0) -> QtGui.QFont:
    """The application font, a little smaller, for labels inside slices."""
    f = QtGui.QFont(QtGui.QGuiApplication.font())
    size = f.pointSizeF()
    if size > 0:
        f.setPointSizeF(max(size + point_delta, 7.0))
    return f
