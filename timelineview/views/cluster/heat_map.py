"""HeatMapView: a rank × step heat map of any comparison metric (one pixel row or more per card).

Thousands of cards fit: the matrix is one image, scaled to the widget (several cards share a pixel
row when there are more cards than pixels). The axes are titled (rank, step) and numbered every row or
step, or every 2nd, 5th, 10th… where the numbers would not fit. "By node" averages the 8 cards of each
node; it is offered only when there is more than one node. Hover names the card, the step and the value
(the metric as the comparison table names it, in the colour bar's unit); double-clicking a cell asks to
show those cards at that step. A red frame marks the cells the verdicts single out (the steps of a card
flagged slow on the metric shown), nothing else.
"""

from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.cluster.comparison import (
    COLUMNS,
    FLOPS,
    KERNEL_COLUMNS,
    MEMORY_COLUMNS,
    OFFSET,
    PIPELINE_COLUMNS,
    TEXT,
    TIME,
    ClusterComparison,
    rank_runs,
)
from timelineview.analysis.vocabulary.flops_units import flops_unit
from timelineview.analysis.vocabulary.number_text import format_number
from timelineview.viewstate.tabs.heat_map import CARDS_PER_NODE, HeatMatrix, heat_matrix

LUT_SIZE = 256
NO_VALUE = (128, 128, 128)  # a card without that step
DEFAULT_METRIC = "step_time_us"
COLOUR_BAR_W = 16
LABEL_ROOM = 60  # right of the colour bar: its min and max
PAD = 6
TICK_GAP = 4  # between a tick number and the matrix, and between numbers along an axis
MAX_TICK_W = 120  # a row's tick text (a card's name when it has no rank) is elided past this
TICK_STRIDES = (1, 2, 5)  # × 10^k: numbered every 1st, 2nd, 5th, 10th, 20th… row or step
RANK_AXIS, NODE_AXIS, STEP_AXIS = "rank", "ranks of a node", "step"
MARK_COLOUR = QtGui.QColor(230, 40, 40)  # a framed cell: no colour of the viridis map is red
MARK_PEN_PX = 2
MIN_MARK_PX = 3  # a framed cell is drawn at least this tall and wide, however many cells share a pixel


def tick_stride(count: int, cell_px: float, label_px: float) -> int:
    """Every how many rows (or steps) a number fits: the smallest 1, 2, 5, 10, 20… whose cells span a label."""
    need = label_px + TICK_GAP
    scale = 1
    while True:
        for base in TICK_STRIDES:
            stride = base * scale
            if stride * cell_px >= need or stride >= count:
                return max(stride, 1)
        scale *= 10


METRIC_TITLES = {c.key: c.title for c in COLUMNS + PIPELINE_COLUMNS + KERNEL_COLUMNS}  # as the table's headers
METRIC_TITLES.update({c.key: f"{c.title} (MB)" for c in MEMORY_COLUMNS})
METRIC_KINDS = {c.key: c.kind for c in COLUMNS + PIPELINE_COLUMNS + KERNEL_COLUMNS + MEMORY_COLUMNS}



def row_ticks(comparison: ClusterComparison, matrix: HeatMatrix) -> list[str]:
    """Each row's number on the rank axis: the card's rank (its name when it has none), a node's ranks."""
    by_number = {c.number: c for c in comparison.cards}

    def name(number: int) -> str:
        c = by_number.get(number)
        if c is None:
            return "?"
        return str(c.rank) if c.rank is not None else c.card

    def node(numbers: list[int]) -> str:
        # the ranks it holds (a node missing a rank is not "0–8"); else its first and last card
        runs = rank_runs([by_number[k].rank if k in by_number else None for k in numbers])
        return runs if runs is not None else f"{name(numbers[0])}–{name(numbers[-1])}"

    return [name(n[0]) if len(n) == 1 else node(n) for n in matrix.row_cards]


def metric_choices(comparison: ClusterComparison | None) -> list[tuple[str, str]]:
    """(key, title) of the comparison columns a step has a value of (the clock offset is per card); the memory
    peaks when some card has memory, each step's own."""
    columns = comparison.columns if comparison is not None else COLUMNS
    return [(c.key, METRIC_TITLES.get(c.key, c.title)) for c in columns if c.kind not in (TEXT, OFFSET)]


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
        self.title = ""  # the metric's display name
        self.row_ticks: list[str] = []  # each row's number on the rank axis
        self.row_axis = RANK_AXIS
        self.lut = pg.colormap.get("viridis").getLookupTable(nPts=LUT_SIZE, mode=pg.ColorMap.BYTE)[:, :3]
        self.setMouseTracking(True)
        self.setMinimumSize(200, 120)

    def set_matrix(self, matrix: HeatMatrix, time_metric: bool, title: str = "", ticks: list[str] | None = None,
                   row_axis: str = RANK_AXIS, flops_metric: bool = False) -> None:
        """Show ``matrix``; ``title``: the metric's display name, ``ticks``: each row's number (else its label);
        a time metric is shown in ms, FLOPs with the prefix that suits their size (GFLOP, TFLOP, …)."""
        self.matrix = matrix
        self.image = colour_image(matrix, self.lut) if matrix.values.size else None
        if time_metric:
            self.unit_div, self.unit = 1000.0, "ms"
        elif flops_metric:
            self.unit_div, self.unit = flops_unit(np.abs(matrix.values[np.isfinite(matrix.values)]).tolist())
        else:
            self.unit_div, self.unit = 1.0, ""
        self.title = title or matrix.metric
        self.row_ticks = list(ticks) if ticks is not None else list(matrix.row_labels)
        self.row_axis = row_axis
        self.update()

    def _tick_width(self) -> int:
        # the fractional advance, rounded up: the integer advance rounds "10" (15.25 px) down to 15 px, where
        # eliding to 15 px leaves only "…"
        fm = QtGui.QFontMetricsF(self.font())
        return min(max((math.ceil(fm.horizontalAdvance(t)) for t in self.row_ticks), default=0), MAX_TICK_W)

    def row_tick_texts(self, fm: QtGui.QFontMetrics) -> dict[int, str]:
        """The rank axis' text of each numbered row (by row), elided to the tick width as ``fm`` draws it."""
        width = self._tick_width()
        return {k: fm.elidedText(self.row_ticks[k], QtCore.Qt.TextElideMode.ElideMiddle, width)
                for k in range(0, len(self.row_ticks), self.row_tick_stride())}

    def plot_rect(self) -> QtCore.QRectF:
        """The matrix: right of the rank axis (its title and numbers), above the step axis."""
        line = self.fontMetrics().height()
        left = PAD + line + TICK_GAP + self._tick_width() + TICK_GAP
        width = self.width() - left - 2 * PAD - COLOUR_BAR_W - self._label_room()
        height = self.height() - 2 * PAD - 2 * line - TICK_GAP
        return QtCore.QRectF(left, PAD, max(width, 10), max(height, 10))

    def _label_room(self) -> int:
        """Room right of the colour bar for its min and max: their text (a unit such as "GFLOP" is long)."""
        if self.matrix is None:
            return LABEL_ROOM
        fm = self.fontMetrics()
        widest = max(fm.horizontalAdvance(self._fmt(v)) for v in self.matrix.value_range())
        return max(LABEL_ROOM, widest + 2 * TICK_GAP)

    def row_tick_stride(self) -> int:
        """Every how many rows the rank axis is numbered at the current size."""
        rows = len(self.row_ticks)
        return tick_stride(rows, self.plot_rect().height() / max(rows, 1), self.fontMetrics().height())

    def step_tick_stride(self) -> int:
        """Every how many steps the step axis is numbered at the current size."""
        steps = self.matrix.steps if self.matrix is not None else []
        fm = self.fontMetrics()
        widest = max((fm.horizontalAdvance(str(s)) for s in steps), default=0)
        return tick_stride(len(steps), self.plot_rect().width() / max(len(steps), 1), widest)

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
        self._paint_marks(p, r)
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
        self._paint_axes(p, r)

    def _paint_marks(self, p: QtGui.QPainter, r: QtCore.QRectF) -> None:
        """A red frame around each marked cell."""
        m = self.matrix
        if m.marked is None:
            return
        rows, cols = m.values.shape
        cell_w, cell_h = r.width() / max(cols, 1), r.height() / max(rows, 1)
        p.save()
        p.setPen(QtGui.QPen(MARK_COLOUR, MARK_PEN_PX))
        p.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        for row, col in zip(*np.nonzero(m.marked), strict=True):
            w, h = max(cell_w, MIN_MARK_PX), max(cell_h, MIN_MARK_PX)
            x = r.left() + (col + 0.5) * cell_w - w / 2
            y = r.top() + (row + 0.5) * cell_h - h / 2
            p.drawRect(QtCore.QRectF(x, y, w, h).adjusted(1, 1, -1, -1))
        p.restore()

    def _paint_axes(self, p: QtGui.QPainter, r: QtCore.QRectF) -> None:
        """The rank axis (title turned upright, numbers right-aligned) and the step axis (numbers, title)."""
        fm = p.fontMetrics()
        line = fm.height()
        rows, steps = len(self.row_ticks), self.matrix.steps
        width = self._tick_width()
        right = QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter
        cell_h = r.height() / max(rows, 1)
        for k, text in self.row_tick_texts(fm).items():
            y = r.top() + (k + 0.5) * cell_h
            p.drawText(QtCore.QRectF(r.left() - TICK_GAP - width, y - line / 2, width, line), right, text)
        cell_w = r.width() / max(len(steps), 1)
        centre = QtCore.Qt.AlignmentFlag.AlignCenter
        for k in range(0, len(steps), self.step_tick_stride()):
            x = r.left() + (k + 0.5) * cell_w
            label = str(steps[k])
            w = fm.horizontalAdvance(label) + TICK_GAP
            p.drawText(QtCore.QRectF(x - w / 2, r.bottom() + TICK_GAP / 2, w, line), centre, label)
        p.drawText(QtCore.QRectF(r.left(), r.bottom() + TICK_GAP / 2 + line, r.width(), line), centre, STEP_AXIS)
        p.save()
        p.translate(PAD, r.center().y())
        p.rotate(-90)
        p.drawText(QtCore.QRectF(-r.height() / 2, 0, r.height(), line), centre, self.row_axis)
        p.restore()

    def _fmt(self, v: float) -> str:
        return f"{format_number(v / self.unit_div)} {self.unit}".strip()  # never an exponent: 12 345.000

    def mouseMoveEvent(self, ev: QtGui.QMouseEvent) -> None:
        cell = self.cell_at(ev.position())
        if cell is None:
            self.setToolTip("")
            return
        row, col = cell
        m = self.matrix
        v = m.values[row, col]
        value = "no value" if not np.isfinite(v) else self._fmt(float(v))
        framed = "\nframed: a step of a card flagged slow on this metric" if m.is_marked(row, col) else ""
        self.setToolTip(f"{m.row_labels[row]} · step {m.steps[col]}\n{self.title}: {value}{framed}")

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
        self.node_box.hide()  # offered only when the cards make more than one node
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
        nodes = comparison is not None and len(comparison.cards) > CARDS_PER_NODE
        self.node_box.blockSignals(True)
        if not nodes:
            self.node_box.setChecked(False)  # one node: "by node" would be one row of every card
        self.node_box.setVisible(nodes)
        self.node_box.blockSignals(False)
        self.refresh()

    def set_metric(self, key: str) -> None:
        self.metric_box.setCurrentIndex(max(self.metric_box.findData(key), 0))

    def refresh(self) -> None:
        if self.comparison is None:
            return
        key = self.metric_box.currentData() or DEFAULT_METRIC
        node = CARDS_PER_NODE if self.node_box.isChecked() else 1
        matrix = heat_matrix(self.comparison, key, node)
        kind = METRIC_KINDS.get(key)
        grouped = any(len(n) > 1 for n in matrix.row_cards)
        self.canvas.set_matrix(matrix, kind == TIME or key.endswith("_us"), METRIC_TITLES.get(key, key),
                               row_ticks(self.comparison, matrix), NODE_AXIS if grouped else RANK_AXIS,
                               flops_metric=kind == FLOPS)
        framed = int(matrix.marked.sum()) if matrix.marked is not None else 0
        self.note.setText(f"{len(matrix.row_labels)} rows × {len(matrix.steps)} steps"
                          + (f", {framed} framed in red (a card flagged slow on it)" if framed else ""))
