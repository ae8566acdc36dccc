"""MatrixWidget: the rank × rank matrix painted in one pass (an image of the cells, scaled).

Row = sender, column = receiver; colour by bandwidth, bytes or time (``viewstate.comm_matrix``);
slow links outlined in red; ranks grouped by node of 8 when a cell would be smaller than
``MIN_CELL_PX`` (and the title says so). Hover shows the cell's text; a click emits its cell.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.communication import Links
from timelineview.viewstate.palette import text_on
from timelineview.viewstate.tabs.comm_matrix import (
    ALL_TRANSPORTS,
    BANDWIDTH,
    METRIC_TITLES,
    NODE_SIZE,
    CommMatrix,
    build_matrix,
    cell_text,
    colours,
    format_value,
    link_ranks,
    needs_nodes,
    scale_range,
)

LEFT, TOP, BOTTOM, RIGHT = 44, 36, 34, 12  # px around the cells: rank labels, title, colour scale
SLOW_PEN = QtGui.QColor(220, 30, 30)
GRID_MIN_CELL = 10  # cells at least this wide get a thin grid
VALUE_MIN_CELL = 64  # cells at least this wide show their value
LEGEND_STEPS = 64
LEGEND_BAR_PX = 240  # the colour scale's width where there is room
LEGEND_BAR_MIN_PX = 40  # narrower than this, its words go below it
SLOW_NOTE = "red frame: slow link"
LABEL_GAP_PX = 3  # between two column labels
SLOW_MIN_PX = 9  # the smallest frame around a slow cell


def rgb_image(rgb: np.ndarray) -> QtGui.QImage:
    """A QImage owning a copy of the (rows, columns, 3) uint8 pixels (Qt must not keep numpy's buffer)."""
    rows, cols = rgb.shape[:2]
    data = np.ascontiguousarray(rgb, dtype=np.uint8).tobytes()
    return QtGui.QImage(data, cols, rows, 3 * cols, QtGui.QImage.Format.Format_RGB888).copy()


def pixel_values(values: np.ndarray, pixels: int, metric: str) -> np.ndarray:
    """``values`` (n × n cells) as at most ``pixels`` × ``pixels``: each block of cells one pixel wide
    becomes its lowest bandwidth, or its largest bytes or time (the cell a user looks for); NaN where the
    block holds no link. ``values`` itself when every cell has a pixel."""
    n = len(values)
    step = int(np.ceil(n / max(pixels, 1)))
    if step <= 1:
        return values
    side = -(-n // step) * step
    padded = np.full((side, side), np.nan)
    padded[:n, :n] = values
    blocks = padded.reshape(side // step, step, side // step, step).transpose(0, 2, 1, 3).reshape(
        side // step, side // step, step * step)
    present = np.isfinite(blocks).any(axis=2)
    filled = np.where(np.isfinite(blocks), blocks, np.inf if metric == BANDWIDTH else -np.inf)
    worst = filled.min(axis=2) if metric == BANDWIDTH else filled.max(axis=2)
    return np.where(present, worst, np.nan)


def column_label_rects(m: CommMatrix, area: QtCore.QRectF, size: float,
                       metrics: QtGui.QFontMetrics) -> list[tuple[int, QtCore.QRectF]]:
    """(column, where its label goes) above the cells: every column while the labels fit side by side,
    else every k-th column, k columns being as wide as the longest label (the last: ranks ascend)."""
    if not len(m):
        return []
    widest = metrics.horizontalAdvance(m.label(len(m) - 1)) + LABEL_GAP_PX
    every = max(1, int(np.ceil(widest / size)))
    return [(k, QtCore.QRectF(area.left() + (k + 0.5) * size - widest / 2, area.top() - metrics.height() - 2,
                              widest, metrics.height())) for k in range(0, len(m), every)]


def legend_layout(metrics: QtGui.QFontMetrics, area: QtCore.QRectF, width: int, height: int,
                  scale: str) -> tuple[QtCore.QRectF, list[tuple[QtCore.QPointF, str]]]:
    """The colour scale's bar and its words (``scale``, then the slow-link note), each at its baseline:
    beside the bar where they fit in ``width``, else the note (then the scale too) on a line below it."""
    y = min(area.bottom() + 8, height - BOTTOM + 8)
    room = width - area.left() - 4  # from the bar's left to the widget's edge
    bar_w = min(area.width(), LEGEND_BAR_PX)
    gap = 6
    below = y + 10 + metrics.ascent() + 2  # the line under the bar
    whole = f"{scale}   {SLOW_NOTE}"
    if bar_w + gap + metrics.horizontalAdvance(whole) <= room:
        bar = QtCore.QRectF(area.left(), y, bar_w, 10)
        return bar, [(QtCore.QPointF(bar.right() + gap, bar.bottom()), whole)]
    narrower = min(bar_w, room - gap - metrics.horizontalAdvance(scale))
    if narrower >= LEGEND_BAR_MIN_PX:
        bar = QtCore.QRectF(area.left(), y, narrower, 10)
        return bar, [(QtCore.QPointF(bar.right() + gap, bar.bottom()), scale),
                     (QtCore.QPointF(area.left(), below), SLOW_NOTE)]
    bar = QtCore.QRectF(area.left(), y, max(min(bar_w, room), 1), 10)
    text = metrics.elidedText(whole, QtCore.Qt.TextElideMode.ElideRight, int(max(room, 1)))
    return bar, [(QtCore.QPointF(area.left(), below), text)]


class MatrixWidget(QtWidgets.QWidget):
    """The matrix of a set of links; ``cellClicked(row, column)`` on a click on a cell with links."""

    cellClicked = QtCore.Signal(int, int)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMouseTracking(True)
        self.setMinimumSize(200, 200)
        self.links = Links.empty()
        self.slow = np.zeros(0, dtype=bool)
        self.ranks = np.zeros(0, dtype=np.int64)
        self.transport = ALL_TRANSPORTS
        self.colour_metric = BANDWIDTH
        self.matrix: CommMatrix | None = None
        self._key: tuple | None = None

    # ------------------------------------------------------------------ data
    def set_links(self, links: Links, slow: np.ndarray, ranks: np.ndarray | None = None) -> None:
        """Show ``links`` (``slow``: bool per link) over ``ranks`` (default: the ranks of the links)."""
        self.links, self.slow = links, np.asarray(slow, dtype=bool)
        self.ranks = link_ranks(links) if ranks is None else np.unique(np.concatenate((ranks, link_ranks(links))))
        self._key = None
        self.update()

    def set_transport(self, transport: str) -> None:
        self.transport = transport
        self._key = None
        self.update()

    def set_metric(self, metric: str) -> None:
        self.colour_metric = metric
        self.update()

    def cells_area(self, width: int | None = None, height: int | None = None) -> QtCore.QRectF:
        """The square the cells fill, for a widget of that size (default: its own); below the title, which
        wraps onto more lines in a narrow widget."""
        w = self.width() if width is None else width
        h = self.height() if height is None else height
        top = TOP + self._title_extra(w, h)
        side = max(min(w - LEFT - RIGHT, h - top - BOTTOM), 1)
        return QtCore.QRectF(LEFT, top, side, side)

    def title_rect(self, width: int, height: int) -> QtCore.QRectF:
        """Where the title goes: the widget's width, as many lines as it takes."""
        return QtCore.QRectF(4, 2, max(width - 8, 1), TOP - 4 + self._title_extra(width, height))

    def shown_title(self, width: int, height: int) -> str:
        """The title as drawn at that size: on one line where it fits, else broken after what the rows and
        columns are (and wrapped further where it must)."""
        title = self.title(self.current(width, height))
        fits = self.fontMetrics().horizontalAdvance(title) <= width - 8
        return title if fits else title.replace(" — ", "\n", 1)

    def _title_extra(self, width: int, height: int) -> int:
        """The height the title takes beyond its one line (0 where it fits on one)."""
        fm = self.fontMetrics()
        title = self.shown_title(width, height)
        wrapped = fm.boundingRect(QtCore.QRect(0, 0, max(width - 8, 1), 10_000),
                                  int(QtCore.Qt.TextFlag.TextWordWrap), title).height()
        return max(wrapped - fm.height(), 0)

    def current(self, width: int | None = None, height: int | None = None) -> CommMatrix:
        """The matrix at this size: per rank, or per node when the ranks do not fit (judged on the cells'
        room under a one-line title, so that the title, which says which, does not decide it)."""
        w = self.width() if width is None else width
        h = self.height() if height is None else height
        by_node = needs_nodes(len(self.ranks), max(min(w - LEFT - RIGHT, h - TOP - BOTTOM), 1))
        key = (by_node, self.transport)
        if self.matrix is None or self._key != key:
            self.matrix = build_matrix(self.links, self.slow, self.transport, by_node, self.ranks)
            self._key = key
        return self.matrix

    def title(self, m: CommMatrix) -> str:
        what = f"{METRIC_TITLES[self.colour_metric]}, {self.transport or 'all transports'}"
        if m.by_node:
            return (f"{len(self.ranks)} ranks grouped by node of {NODE_SIZE} ({len(m)} nodes) to fit — {what}; "
                    "widen the window to see single ranks")
        return f"{len(m)} ranks, sender (row) → receiver (column) — {what}"

    # ------------------------------------------------------------------ geometry
    def cell_at(self, pos: QtCore.QPointF) -> tuple[int, int] | None:
        m = self.current()
        area = self.cells_area()
        if not len(m) or not area.contains(pos):
            return None
        size = area.width() / len(m)
        i, j = int((pos.y() - area.top()) / size), int((pos.x() - area.left()) / size)
        return (i, j) if 0 <= i < len(m) and 0 <= j < len(m) else None

    def cell_rect(self, i: int, j: int) -> QtCore.QRectF:
        area = self.cells_area()
        size = area.width() / max(len(self.current()), 1)
        return QtCore.QRectF(area.left() + j * size, area.top() + i * size, size, size)

    def tooltip_at(self, pos: QtCore.QPointF) -> str:
        cell = self.cell_at(pos)
        return "" if cell is None else cell_text(self.current(), *cell)

    # ------------------------------------------------------------------ painting
    def paintEvent(self, event: QtGui.QPaintEvent) -> None:
        p = QtGui.QPainter(self)
        self.paint(p, self.width(), self.height())
        p.end()

    def render_image(self, width: int | None = None, height: int | None = None) -> QtGui.QImage:
        """The matrix drawn on a white image (the PNG export)."""
        w, h = width or max(self.width(), 600), height or max(self.height(), 600)
        img = QtGui.QImage(w, h, QtGui.QImage.Format.Format_RGB32)
        img.fill(QtGui.QColor(255, 255, 255))
        p = QtGui.QPainter(img)
        self.paint(p, w, h)
        p.end()
        return img

    def paint(self, p: QtGui.QPainter, width: int, height: int) -> None:
        m = self.current(width, height)
        area = self.cells_area(width, height)
        text = self.palette().color(QtGui.QPalette.ColorRole.WindowText)
        p.setPen(text)
        p.drawText(self.title_rect(width, height), QtCore.Qt.AlignmentFlag.AlignLeft
                   | QtCore.Qt.TextFlag.TextWordWrap, self.shown_title(width, height))
        n = len(m)
        if not n:
            p.drawText(area, QtCore.Qt.AlignmentFlag.AlignCenter, "No transfers between ranks in this trace.")
            return
        values = m.values(self.colour_metric)
        low, high = scale_range(values)
        rgb = colours(values, low, high)
        # every cell at once: the image is n × n pixels, scaled; with more cells than pixels, each pixel
        # shows the worst of its cells (scaling would drop all but one of them)
        shown = pixel_values(values, int(area.width()), self.colour_metric)
        p.setRenderHint(QtGui.QPainter.RenderHint.SmoothPixmapTransform, False)
        if shown is values:
            p.drawImage(area, rgb_image(rgb))
        else:  # blocks of whole cells: the last block's padding falls outside the cells, clipped
            side = area.width() * len(shown) * int(np.ceil(n / len(shown))) / n
            p.save()
            p.setClipRect(area)
            p.drawImage(QtCore.QRectF(area.left(), area.top(), side, side), rgb_image(colours(shown, low, high)))
            p.restore()
        size = area.width() / n
        if size >= GRID_MIN_CELL:
            p.setPen(QtGui.QPen(QtGui.QColor(255, 255, 255), 1))
            for k in range(n + 1):
                off = k * size
                p.drawLine(QtCore.QPointF(area.left() + off, area.top()), QtCore.QPointF(area.left() + off,
                                                                                         area.bottom()))
                p.drawLine(QtCore.QPointF(area.left(), area.top() + off), QtCore.QPointF(area.right(),
                                                                                         area.top() + off))
        if size >= VALUE_MIN_CELL:
            self._paint_values(p, m, values, rgb, area, size)
        p.setPen(QtGui.QPen(SLOW_PEN, max(2.0, min(size / 5, 4.0))))
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        frame = max(size, SLOW_MIN_PX)  # a slow cell of a pixel or less still shows, framed around it
        for i, j in zip(*np.nonzero(m.slow), strict=True):
            x, y = area.left() + (j + 0.5) * size, area.top() + (i + 0.5) * size
            p.drawRect(QtCore.QRectF(x - frame / 2, y - frame / 2, frame, frame))
        self._paint_labels(p, m, area, size, text)
        self._paint_scale(p, area, low, high, width, height, text)

    def _paint_values(self, p: QtGui.QPainter, m: CommMatrix, values: np.ndarray, rgb: np.ndarray,
                      area: QtCore.QRectF, size: float) -> None:
        for i, j in zip(*np.nonzero(m.present), strict=True):
            p.setPen(QtGui.QColor(*text_on(tuple(int(c) for c in rgb[i, j]))))
            p.drawText(QtCore.QRectF(area.left() + j * size, area.top() + i * size, size, size),
                       QtCore.Qt.AlignmentFlag.AlignCenter, format_value(self.colour_metric, float(values[i, j])))

    def _paint_labels(self, p: QtGui.QPainter, m: CommMatrix, area: QtCore.QRectF, size: float,
                      text: QtGui.QColor) -> None:
        p.setPen(text)
        metrics = p.fontMetrics()
        every = max(1, int(np.ceil((metrics.height() + 2) / size)))  # rows: a label's height apart
        for k in range(0, len(m), every):
            y = area.top() + (k + 0.5) * size
            p.drawText(QtCore.QRectF(0, y - size / 2 - 8, LEFT - 4, size + 16),
                       QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter, m.label(k))
        for k, rect in column_label_rects(m, area, size, metrics):
            p.drawText(rect, QtCore.Qt.AlignmentFlag.AlignCenter, m.label(k))

    def _paint_scale(self, p: QtGui.QPainter, area: QtCore.QRectF, low: float, high: float, width: int, height: int,
                     text: QtGui.QColor) -> None:
        bar, words = legend_layout(p.fontMetrics(), area, width, height, self.scale_text(low, high))
        p.drawImage(bar, rgb_image(colours(np.linspace(low, high, LEGEND_STEPS)[None, :], low, high)))
        p.setPen(text)
        for at, line in words:
            p.drawText(at, line)

    def scale_text(self, low: float, high: float) -> str:
        return f"{format_value(self.colour_metric, low)} → {format_value(self.colour_metric, high)}"

    def legend(self, width: int, height: int) -> tuple[QtCore.QRectF, list[tuple[QtCore.QPointF, str]]]:
        """The colour scale's bar and words as :meth:`paint` lays them out at that size."""
        m = self.current(width, height)
        low, high = scale_range(m.values(self.colour_metric))
        return legend_layout(self.fontMetrics(), self.cells_area(width, height), width, height,
                             self.scale_text(low, high))

    # ------------------------------------------------------------------ interaction
    def mouseMoveEvent(self, event: QtGui.QMouseEvent) -> None:
        tip = self.tooltip_at(event.position())
        if tip:
            QtWidgets.QToolTip.showText(event.globalPosition().toPoint(), tip, self)
        else:
            QtWidgets.QToolTip.hideText()

    def mousePressEvent(self, event: QtGui.QMouseEvent) -> None:
        cell = self.cell_at(event.position())
        if cell is not None and event.button() == QtCore.Qt.MouseButton.LeftButton and \
                self.current().present[cell]:
            self.cellClicked.emit(*cell)
