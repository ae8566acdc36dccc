"""HeatMapView: a rank × step heat map of any comparison metric (one pixel row or more per card).

Thousands of cards fit: the matrix is one image, scaled to the widget (several cards share a pixel
row when there are more cards than pixels). "By node" averages the 8 cards of each node. Hover names
the card, the step and the value; double-clicking a cell asks to show those cards at that step.
"""

from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.cluster.comparison import COLUMNS, OFFSET, PIPELINE_COLUMNS, TEXT, TIME, ClusterComparison
from timelineview.viewstate.tabs.heat_map import CARDS_PER_NODE, HeatMatrix, heat_matrix

LUT_SIZE = 256
NO_VALUE = (128, 128, 128)  # a card without that step
DEFAULT_METRIC = "step_time_us"
COLOUR_BAR_W = 16
LABEL_ROOM = 60  # right of the colour bar: its min and max
PAD = 6


def metric_choices(comparison: ClusterComparison | None) -> list[tuple[str, str]]:
    """(key, title) of the comparison columns a step has a value of (the clock offset is per card)."""
    columns = COLUMNS + (PIPELINE_COLUMNS if comparison is not None and comparison.pipeline else ())
    return [(c.key, c.title) for c in columns if c.kind not in (TEXT, OFFSET)]


def colour_image(matrix: HeatMatrix, lut: np.ndarray) -> QtGui.QImage:
    """RGB image (width = steps, height = rows) of the matrix through ``lut`` (uint8, (256, 3))."""
    lo, hi = matrix.value_range()
    values = matrix.values
    scaled = np.zeros(values.shape, np.int64)
    finite = np.isfinite(values)
    if hi > lo:
        scaled[finite] = np.clip((values[finite] - lo) / (hi - lo) * (LUT_SIZE - 1), 0, LUT_SIZE - 1)
    rgb = lut[scaled]
    rgb[~finite] = NO_VALUE
    rgb = np.ascontiguousarray(rgb.astype(np.uint8))
    h, w = values.shape
    image = QtGui.QImage(rgb.data, w, h, 3 * w, QtGui.QImage.Format.Format_RGB888)
    return image.copy()  # own the pixels: ``rgb`` goes away


class HeatCanvas(QtWidgets.QWidget):
    """The matrix image with a colour bar; maps mouse positions to cells."""

    cellActivated = QtCore.Signal(object, object)  # card numbers, step

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.matrix: HeatMatrix | None = None
        self.image: QtGui.QImage | None = None
        self.unit_div, self.unit = 1000.0, "ms"
        self.lut = pg.colormap.get("viridis").getLookupTable(nPts=LUT_SIZE, mode=pg.ColorMap.BYTE)[:, :3]
        self.setMouseTracking(True)
        self.setMinimumSize(200, 120)

    def set_matrix(self, matrix: HeatMatrix, time_metric: bool) -> None:
        self.matrix = matrix
        self.image = colour_image(matrix, self.lut) if matrix.values.size else None
        self.unit_div, self.unit = (1000.0, "ms") if time_metric else (1.0, "")
        self.update()

    def plot_rect(self) -> QtCore.QRectF:
        width = self.width() - 3 * PAD - COLOUR_BAR_W - LABEL_ROOM
        return QtCore.QRectF(PAD, PAD, max(width, 10), max(self.height() - 2 * PAD, 10))

    def cell_at(self, pos: QtCore.QPointF) -> tuple[int, int] | None:
        """(row, step column) under ``pos``, or None outside the matrix."""
        m, r = self.matrix, self.plot_rect()
        if m is None or not m.values.size or not r.contains(pos):
            return None
        rows, cols = m.values.shape
        row = min(int((pos.y() - r.top()) / r.height() * rows), rows - 1)
        col = min(int((pos.x() - r.left()) / r.width() * cols), cols - 1)
        return row, col

    def paintEvent(self, ev: QtGui.QPaintEvent) -> None:
        p = QtGui.QPainter(self)
        r = self.plot_rect()
        if self.image is None or self.matrix is None:
            p.drawText(self.rect(), QtCore.Qt.AlignmentFlag.AlignCenter, "No steps to show")
            return
        # many cards per pixel row: the smooth scale averages them rather than dropping rows
        many = self.image.height() > r.height()
        p.setRenderHint(QtGui.QPainter.RenderHint.SmoothPixmapTransform, many)
        p.drawImage(r, self.image)
        bar = QtCore.QRectF(r.right() + PAD, r.top(), COLOUR_BAR_W, r.height())
        for k in range(LUT_SIZE):
            y = bar.bottom() - (k + 1) * bar.height() / LUT_SIZE
            p.fillRect(QtCore.QRectF(bar.left(), y, bar.width(), bar.height() / LUT_SIZE + 1),
                       QtGui.QColor(*(int(c) for c in self.lut[k])))
        lo, hi = self.matrix.value_range()
        p.setPen(self.palette().color(QtGui.QPalette.ColorRole.WindowText))
        fm = p.fontMetrics()
        p.drawText(QtCore.QPointF(bar.right() + 4, bar.top() + fm.ascent()), self._fmt(hi))
        p.drawText(QtCore.QPointF(bar.right() + 4, bar.bottom()), self._fmt(lo))

    def _fmt(self, v: float) -> str:
        return f"{v / self.unit_div:.4g} {self.unit}".strip()

    def mouseMoveEvent(self, ev: QtGui.QMouseEvent) -> None:
        cell = self.cell_at(ev.position())
        if cell is None:
            self.setToolTip("")
            return
        row, col = cell
        m = self.matrix
        v = m.values[row, col]
        value = "no value" if not np.isfinite(v) else self._fmt(float(v))
        self.setToolTip(f"{m.row_labels[row]} · step {m.steps[col]}\n{m.metric}: {value}")

    def mouseDoubleClickEvent(self, ev: QtGui.QMouseEvent) -> None:
        cell = self.cell_at(ev.position())
        if cell is not None:
            self.cellActivated.emit(list(self.matrix.row_cards[cell[0]]), int(self.matrix.steps[cell[1]]))


class HeatMapView(QtWidgets.QWidget):
    """Metric chooser, "by node" switch and the canvas."""

    cardsActivated = QtCore.Signal(object, object)  # card numbers, step

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.comparison: ClusterComparison | None = None
        lay = QtWidgets.QVBoxLayout(self)
        bar = QtWidgets.QHBoxLayout()
        bar.addWidget(QtWidgets.QLabel("Metric:"))
        self.metric_box = QtWidgets.QComboBox()
        self.metric_box.currentIndexChanged.connect(lambda *_: self.refresh())
        bar.addWidget(self.metric_box)
        self.node_box = QtWidgets.QCheckBox(f"By node ({CARDS_PER_NODE} cards)")
        self.node_box.setToolTip("Mean of the cards of each node: one row per node")
        self.node_box.toggled.connect(lambda *_: self.refresh())
        bar.addWidget(self.node_box)
        bar.addStretch(1)
        self.note = QtWidgets.QLabel()
        bar.addWidget(self.note)
        lay.addLayout(bar)
        self.canvas = HeatCanvas()
        self.canvas.cellActivated.connect(self.cardsActivated)
        lay.addWidget(self.canvas, 1)

    def set_comparison(self, comparison: ClusterComparison | None) -> None:
        self.comparison = comparison
        current = self.metric_box.currentData() or DEFAULT_METRIC
        self.metric_box.blockSignals(True)
        self.metric_box.clear()
        for key, title in metric_choices(comparison):
            self.metric_box.addItem(title, key)
        self.metric_box.setCurrentIndex(max(self.metric_box.findData(current), 0))
        self.metric_box.blockSignals(False)
        self.refresh()

    def set_metric(self, key: str) -> None:
        self.metric_box.setCurrentIndex(max(self.metric_box.findData(key), 0))

    def refresh(self) -> None:
        if self.comparison is None:
            return
        key = self.metric_box.currentData() or DEFAULT_METRIC
        node = CARDS_PER_NODE if self.node_box.isChecked() else 1
        matrix = heat_matrix(self.comparison, key, node)
        kind = {c.key: c.kind for c in COLUMNS + PIPELINE_COLUMNS}.get(key)
        self.canvas.set_matrix(matrix, kind == TIME or key.endswith("_us"))
        self.note.setText(f"{len(matrix.row_labels)} rows × {len(matrix.steps)} steps")
