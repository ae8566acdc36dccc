"""WhatIfStrip: one step as measured and as a change predicts it, two lanes per card on one time axis.

Each card gets a measured lane and, under it, the replayed lane of the chosen what-if: its data wait, compute
blocks (a block's dispatch gaps, where the card computed nothing, in the grey of the waits to launch: it
waited for the host to launch work) and waits for a launch in the upper half, its time in each collective
in the lower half, and a line where each step ends. Every interval comes from the session's replay
(``CriticalPathResult.step_lanes``).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.critical_path.step_lanes import (
    COMPUTE,
    DATA_WAIT,
    DISPATCH_GAP,
    IN_COLLECTIVE,
    LAUNCH_WAIT,
    StepLanes,
)

MAX_CARDS = 6  # card pairs drawn: the change's card and the path's first, then by rank
LANE_H = 16  # the least height of a lane; lanes grow to fill the strip's height
PAIR_GAP = 6
HEADER_H = 18  # a line of the legend (the two step ends, then the colours), above the axis
AXIS_H = HEADER_H + 18  # the axis under a one-line legend (a narrow strip wraps the legend onto more lines)
LEGEND_PAD = 4  # px left of the legend and kept free at its right
LABEL_W = 190
RIGHT_PAD = 80  # room for the step end's label
COLOURS = {DATA_WAIT: QtGui.QColor(236, 178, 46), COMPUTE: QtGui.QColor(66, 120, 200),
           LAUNCH_WAIT: QtGui.QColor(170, 170, 178), IN_COLLECTIVE: QtGui.QColor(222, 110, 60)}
# a dispatch gap is the card waiting for the host to launch its next task: one colour, one word for both
COLOURS[DISPATCH_GAP] = COLOURS[LAUNCH_WAIT]
LEGEND = ((COMPUTE, "compute"), (IN_COLLECTIVE, "communicating"), (LAUNCH_WAIT, "waits to launch"),
          (DATA_WAIT, "data wait"))
PREDICTED_END = QtGui.QColor(30, 150, 80)
MEASURED_END = QtGui.QColor(200, 40, 40)


@dataclass(frozen=True)
class LegendItem:
    """One entry of the legend: its swatch colour and width, its words, and where it is drawn."""

    colour: QtGui.QColor
    swatch_w: int
    text: str
    box: QtCore.QRectF  # swatch and words


@dataclass(frozen=True)
class StripRow:
    """One drawn lane: its label, the card column and which replay it shows."""

    label: str
    card: int
    predicted: bool


class WhatIfStrip(QtWidgets.QWidget):
    """The measured step and the predicted one, lane pairs per card."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.measured: StepLanes | None = None
        self.predicted: StepLanes | None = None
        self.cards: list[str] = []
        self.change = ""
        self.rows: list[StripRow] = []
        self.note = "Pick a what-if above: the chosen step as measured and as it predicts, card by card."
        self.setMinimumHeight(AXIS_H + 2 * LANE_H + 40)

    def set_lanes(self, cards: list[str], measured: StepLanes | None, predicted: StepLanes | None, change: str,
                  first: list[int]) -> None:
        """Show ``measured`` and ``predicted`` (None: only a note) for the card columns ``first`` first, then
        the others in order, up to ``MAX_CARDS``."""
        self.cards, self.measured, self.predicted, self.change = cards, measured, predicted, change
        order = list(dict.fromkeys([c for c in first if 0 <= c < len(cards)] + list(range(len(cards)))))
        shown = order[:MAX_CARDS] if measured is not None and predicted is not None else []
        self.rows = [r for c in shown for r in (StripRow(f"{cards[c]} measured", c, False),
                                                 StripRow(f"{cards[c]} predicted", c, True))]
        more = len(cards) - len(shown)
        self.note = "" if shown else self.note
        if shown and more > 0:
            self.note = f"{more} more card(s) not drawn"
        self.setMinimumHeight(self._height())
        self.updateGeometry()
        self.update()

    def legend(self) -> list[LegendItem]:
        """The legend laid out in lines that fit the strip's width (one line when it is wide enough)."""
        if not self.rows:
            return []
        fm = QtGui.QFontMetrics(self.font())
        entries = [(MEASURED_END, 3, f"measured {self.measured.step_ns / 1e6:.3f} ms"),
                   (PREDICTED_END, 3, f"predicted {self.predicted.step_ns / 1e6:.3f} ms if {self.change}")]
        entries += [(COLOURS[kind], 10, word) for kind, word in LEGEND]
        if self.note:
            entries.append((QtGui.QColor(0, 0, 0, 0), 0, self.note))
        out, x, line = [], float(LEGEND_PAD), 0
        for colour, swatch, text in entries:
            w = swatch + 4 + fm.horizontalAdvance(text)
            if x > LEGEND_PAD and x + w > self.width() - LEGEND_PAD:
                x, line = float(LEGEND_PAD), line + 1
            out.append(LegendItem(colour, swatch, text, QtCore.QRectF(x, line * HEADER_H, w, HEADER_H)))
            x += w + 14
        return out

    def axis_h(self) -> int:
        """y of the time axis: under the legend's lines."""
        lines = int(max((item.box.bottom() for item in self.legend()), default=HEADER_H)) // HEADER_H
        return AXIS_H + (max(lines, 1) - 1) * HEADER_H

    def _height(self) -> int:
        """The height the lanes need at their least height."""
        pairs = len(self.rows) // 2
        return self.axis_h() + pairs * (2 * LANE_H + PAIR_GAP) + 4

    def lane_h(self) -> float:
        """Height of each lane: the strip's height shared by its lanes (a taller window draws taller lanes
        instead of leaving the space under them empty), never under ``LANE_H``."""
        pairs = len(self.rows) // 2
        if not pairs:
            return float(LANE_H)
        room = self.height() - self.axis_h() - 4 - pairs * PAIR_GAP
        return max(float(LANE_H), room / (2 * pairs))

    def sizeHint(self) -> QtCore.QSize:
        return QtCore.QSize(600, self._height())

    def span_ns(self) -> float:
        """The time axis: up to the later of the two step ends."""
        ends = [x.step_ns for x in (self.measured, self.predicted) if x is not None]
        return max(ends + [1.0])

    def x_of(self, t: float) -> float:
        width = max(self.width() - LABEL_W - RIGHT_PAD, 10)
        return LABEL_W + width * t / self.span_ns()

    def lane_top(self, j: int) -> float:
        """y of drawn row ``j``."""
        return _row_top(j, self.axis_h(), self.lane_h())

    def paintEvent(self, _ev: QtGui.QPaintEvent) -> None:
        p = QtGui.QPainter(self)
        pal = self.palette()
        p.fillRect(self.rect(), pal.color(QtGui.QPalette.ColorRole.Base))
        p.setPen(pal.color(QtGui.QPalette.ColorRole.Text))
        if not self.rows:
            p.drawText(self.rect().adjusted(8, 0, -8, 0), QtCore.Qt.AlignmentFlag.AlignVCenter, self.note)
            return
        # the legend's layout decides the axis height: measured once a paint, not once a row
        axis_h, lane_h = self.axis_h(), self.lane_h()
        self._paint_axis(p, axis_h)
        for j, row in enumerate(self.rows):
            lanes = self.predicted if row.predicted else self.measured
            y = _row_top(j, axis_h, lane_h)
            if row.predicted:
                p.fillRect(QtCore.QRectF(0, y, self.width(), lane_h), pal.color(QtGui.QPalette.ColorRole.AlternateBase))
            p.setPen(pal.color(QtGui.QPalette.ColorRole.Text))
            p.drawText(QtCore.QRectF(4, y, LABEL_W - 8, lane_h), QtCore.Qt.AlignmentFlag.AlignVCenter, row.label)
            for i in lanes.of_card(row.card).tolist():
                kind = lanes.kind[i]
                x0, x1 = self.x_of(lanes.start[i]), self.x_of(lanes.end[i])
                half = lane_h / 2 - 1
                top = y + 1 + (half if kind == IN_COLLECTIVE else 0)
                p.fillRect(QtCore.QRectF(x0, top, max(x1 - x0, 1.0), half), COLOURS[kind])
        bottom = _row_top(len(self.rows), axis_h, lane_h)
        for lanes, colour in ((self.measured, MEASURED_END), (self.predicted, PREDICTED_END)):
            x = self.x_of(lanes.step_ns)
            p.setPen(QtGui.QPen(colour, 2))
            p.drawLine(QtCore.QPointF(x, axis_h - 4), QtCore.QPointF(x, bottom))
        self._paint_legend(p)
        p.end()

    def _paint_axis(self, p: QtGui.QPainter, axis: float) -> None:
        p.setPen(self.palette().color(QtGui.QPalette.ColorRole.Text))
        p.drawText(QtCore.QRectF(4, axis - (AXIS_H - HEADER_H), LABEL_W, AXIS_H - HEADER_H),
                   QtCore.Qt.AlignmentFlag.AlignVCenter, f"step {self.measured.step}")
        span = self.span_ns()
        for f in (0.0, 0.25, 0.5, 0.75, 1.0):
            x = self.x_of(span * f)
            p.drawLine(QtCore.QPointF(x, axis - 4), QtCore.QPointF(x, axis))
            p.drawText(QtCore.QPointF(x + 2, axis - 6), f"{span * f / 1e6:.2f} ms")

    def _paint_legend(self, p: QtGui.QPainter) -> None:
        """The step's two ends (in their lines' colours), then what each colour of the lanes means, in as many
        lines as the width needs."""
        text = self.palette().color(QtGui.QPalette.ColorRole.Text)
        for item in self.legend():
            box = item.box
            base = box.top() + HEADER_H - 5
            if item.swatch_w:
                p.fillRect(QtCore.QRectF(box.left(), base - 9, item.swatch_w, 10 if item.swatch_w > 3 else 12),
                           item.colour)
            p.setPen(text)
            p.drawText(QtCore.QPointF(box.left() + item.swatch_w + 4, base), item.text)


def _row_top(j: int, axis_h: float, lane_h: float) -> float:
    """y of drawn row ``j`` below an axis ``axis_h`` tall: rows in pairs (measured, predicted), a gap between pairs."""
    return axis_h + (j // 2) * (2 * lane_h + PAIR_GAP) + (j % 2) * lane_h
