"""The Memory tab: a card's memory curves, its peak, and the allocations alive at a clicked instant.

Each component's allocated memory is drawn as a solid line and its reserved memory dashed, over ms from
the card's trace start (the timeline's clock, in the unit of the table below); the allocated peak is
marked. The legend stands beside the plot, never over a curve. Clicking the plot lists the allocations
alive then (the session's interval index answers), sortable, and says what part of their components'
allocated memory they are; double-clicking one shows its life on the timeline. Every number comes from
the session's memory analysis (metrics.md §11).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from timelineview.analysis.memory.card import CardMemory, mb
from timelineview.analysis.vocabulary.number_text import format_number
from timelineview.model.memory.records import NEVER
from timelineview.views.analysis_tabs.record_table import (
    TEXT,
    RecordColumn,
    RecordTableModel,
    ask_and_export_csv,
    fit_columns,
    refill,
    sortable_table,
)
from timelineview.views.analysis_tabs.tab_inputs import TabCard
from timelineview.views.timeline.tracks.memory_track import COLOURS, OTHER_COLOUR
from timelineview.viewstate.jump_target import JumpTarget
from timelineview.viewstate.tabs.memory_alive import NS_PER_MS, alive_at, alive_text
from timelineview.viewstate.time_format import format_duration

NS_PER_US = 1000.0

NO_TRACE = "No trace open."
NO_RECORDS_IN_SUMMARY = ("A summary keeps each card's memory peaks (the Cluster comparison's Peak allocated and Peak "
                         "reserved), not its memory records over time: open the cards' traces (File ▸ Open folder) "
                         "to see them here.")

MB_KIND = "mb"
SINCE_START = "since_start"  # an instant on the card's clock (ns), shown as the time after the card's start
SMALL_MB = 0.01
LISTED = 5000  # alive allocations listed at once (all are counted)
# The legend's place in the plot's grid: right of the view box (row 2: view box, column 3: past the right axis).
LEGEND_ROW, LEGEND_COLUMN = 2, 3
LEGEND_GAP = 8  # px between the plot's frame and the legend
LEGEND_ENTRY_PX = 20  # px an entry of the legend is tall (pyqtgraph's line sample)
LEGEND_TEXT = (30, 30, 30)  # dark on the plot's white background
LEGEND_FRAME = (200, 200, 200)
COLUMNS = (
    RecordColumn("size_mb", "Size (MB)", MB_KIND, "Size of the allocation, MB = 2^20 bytes"),
    RecordColumn("name", "Operator", TEXT, "The operator that allocated it"),
    RecordColumn("component", "Component", TEXT, "PTA: the framework's caching allocator; GE: CANN's graph engine"),
    RecordColumn("allocated_at_ns", "Allocated at", SINCE_START, "From the card's trace start"),
    RecordColumn("released_at_ns", "Released at", SINCE_START, "From the card's trace start; — when never released"),
)

COUNTERS_ONLY_NOTE = ("Reserved memory from the trace's NPU MEM counters; no allocation records to list (torch_npu "
                      "writes them beside trace_view.json when profile_memory=True).")


class _MemoryTableModel(RecordTableModel):
    """Sizes shown in MB with three decimals, instants as the time after the card's start ``origin_ns``; the
    rest as every analysis table shows it."""

    origin_ns = 0

    def data(self, index: QtCore.QModelIndex, role: int = 0):
        if (role in (QtCore.Qt.ItemDataRole.DisplayRole, QtCore.Qt.ItemDataRole.ToolTipRole) and index.isValid()
                and self.columns[index.column()].kind == SINCE_START):
            value = self.rows[index.row()].get(self.columns[index.column()].key)
            if value is None:
                return super().data(index, role)
            since_ns = value - self.origin_ns
            if role == QtCore.Qt.ItemDataRole.DisplayRole:
                return format_duration(since_ns)
            return f"{since_ns / NS_PER_US:.3f} µs after the card's start"
        if (role == QtCore.Qt.ItemDataRole.DisplayRole and index.isValid()
                and self.columns[index.column()].kind == MB_KIND):
            value = self.rows[index.row()].get(self.columns[index.column()].key)
            if value is None:
                return "—"
            if value < SMALL_MB:  # a block of a few KB would read 0.000
                return f"{format_number(value * 1024)} KB"
            return format_number(value)
        if (role == QtCore.Qt.ItemDataRole.TextAlignmentRole and index.isValid()
                and self.columns[index.column()].kind == MB_KIND):
            return int(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        return super().data(index, role)


def _steps(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A value holds until the next record: each point repeated at the next one's time."""
    if len(x) < 2:
        return x, y
    xs = np.repeat(x, 2)[1:]
    ys = np.repeat(y, 2)[:-1]
    return xs, ys


class MemoryView(QtWidgets.QWidget):
    """Card choice, the curves of its components with the peak marked, and the allocations alive at an instant."""

    jumpRequested = QtCore.Signal(object)  # JumpTarget

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = None
        self.summarised = False  # the data shown is a summary folder (no memory records kept)
        self.cards: list[TabCard] = []
        self.memory: CardMemory | None = None
        self.instant_ns: int | None = None
        self.card_box = QtWidgets.QComboBox()
        self.card_box.currentIndexChanged.connect(self.refresh)
        self.note = QtWidgets.QLabel("No trace open.")
        self.note.setWordWrap(True)
        self.plot = pg.PlotWidget()
        self.plot.setBackground("w")
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.plot.setLabel("bottom", "time from the trace start (ms)")
        self.plot.setLabel("left", "MB")
        self.legend, self.legend_slot = self._legend_beside_the_plot()
        self.plot.scene().sigMouseClicked.connect(self._plot_clicked)
        self.cursor = pg.InfiniteLine(angle=90, pen=pg.mkPen((200, 40, 40), width=1))
        self.alive_label = QtWidgets.QLabel("")
        self.alive_label.setWordWrap(True)
        self.model = _MemoryTableModel(COLUMNS, self)
        self.proxy, self.table = sortable_table(self.model, self)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.doubleClicked.connect(lambda index: self.open_row(self.proxy.mapToSource(index).row()))
        bar = QtWidgets.QHBoxLayout()
        bar.addWidget(QtWidgets.QLabel("Memory of"))
        bar.addWidget(self.card_box)
        bar.addStretch(1)
        export = QtWidgets.QPushButton("Export CSV…")
        export.setToolTip("the allocations alive at the chosen instant, as listed")
        export.clicked.connect(self._export_dialog)
        bar.addWidget(export)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(self.plot)
        lower = QtWidgets.QWidget()
        ll = QtWidgets.QVBoxLayout(lower)
        ll.setContentsMargins(0, 0, 0, 0)
        ll.addWidget(self.alive_label)
        ll.addWidget(self.table, 1)
        split.addWidget(lower)
        split.setSizes([400, 300])
        lay = QtWidgets.QVBoxLayout(self)
        lay.addLayout(bar)
        lay.addWidget(self.note)
        lay.addWidget(split, 1)

    def _legend_beside_the_plot(self) -> tuple[pg.LegendItem, QtWidgets.QGraphicsWidget]:
        """A legend in a column of its own right of the view box: inside it, it covered the highest curves.
        The plot item fills it (its named curves join it) and clears it with the curves."""
        plot_item = self.plot.getPlotItem()
        slot = QtWidgets.QGraphicsWidget()
        slot.setMaximumWidth(0)
        plot_item.layout.addItem(slot, LEGEND_ROW, LEGEND_COLUMN)
        legend = pg.LegendItem(labelTextColor=LEGEND_TEXT, pen=LEGEND_FRAME)
        legend.setParentItem(slot)
        legend.anchor(itemPos=(0, 0), parentPos=(0, 0), offset=(LEGEND_GAP, 0))
        plot_item.legend = legend
        plot_item.vb.sigResized.connect(lambda _vb: self._fit_legend())
        return legend, slot

    def _fit_legend(self) -> None:
        """As many legend columns as its entries need to fit the plot's height; its column as wide as it."""
        entries = len(self.legend.items)
        if entries:
            fit = max(1, int(self.plot.getPlotItem().vb.height()) // LEGEND_ENTRY_PX)
            columns = math.ceil(entries / fit)
            if columns != self.legend.columnCount:
                self.legend.setColumnCount(columns)
            self.legend.updateSize()
        width = self.legend.width() + 2 * LEGEND_GAP if entries else 0  # a gap either side
        self.legend_slot.setMinimumWidth(width)
        self.legend_slot.setMaximumWidth(width)

    def export_csv(self, path: Path) -> None:
        """The allocations alive at the chosen instant, one row each (sizes in MB, times in µs)."""
        Path(path).write_text(self.model.to_csv(), encoding="utf-8")

    def _export_dialog(self) -> None:
        ask_and_export_csv(self, "Export the allocations alive", "allocations.csv", self.export_csv)

    # ------------------------------------------------------------------ the analysis tab protocol
    def show_data(self, data) -> None:
        """The memory of the cards whose traces are loaded (none of a summary folder's)."""
        self.session, self.cards = data.session, data.traced_cards
        self.summarised = not data.has_slices  # a summary folder: its cards' records were not kept
        refill(self.card_box, [(c.card, c.number) for c in self.cards])
        self.refresh()

    def show_note(self, text: str) -> None:
        self.note.setText(text)

    def clear(self) -> None:
        self.session, self.cards, self.memory = None, [], None
        self.card_box.clear()
        self.plot.clear()
        self.model.set_rows([])
        self.alive_label.setText("")
        self.note.setText(NO_TRACE)

    # ------------------------------------------------------------------ content
    def refresh(self) -> None:
        self.plot.clear()
        self.model.set_rows([])
        self.alive_label.setText("")
        self.memory = None
        if self.session is None or self.card_box.count() == 0:
            self.note.setText(NO_RECORDS_IN_SUMMARY if self.session is not None and self.summarised else NO_TRACE)
            return
        number = self.card_box.currentData()
        self.memory = self.session.analyse(number, ("memory",)).memory
        if self.memory is None:
            self.note.setText(f"{self.card_box.currentText()} has no memory records (torch_npu writes them beside "
                              "trace_view.json when profile_memory=True).")
            return
        problems = self.memory.records.report.headline()
        if not len(self.memory.records.allocations):
            self.note.setText((problems + "; " if problems else "") + COUNTERS_ONLY_NOTE)
        else:
            self.note.setText(problems or "Click the plot to list the allocations alive at that instant; "
                                          "double-click one to see its life on the timeline.")
        self._draw_curves()
        peak = self.memory.peak_component
        if peak is not None:
            self.show_alive(peak.peak_allocated_ns)

    def _draw_curves(self) -> None:
        m = self.memory
        for curve in m.curves:
            x = (curve.time_ns - m.t_origin_ns) / NS_PER_MS
            colour = COLOURS.get(curve.name, OTHER_COLOUR)
            for values, style, label in ((curve.allocated_mb, QtCore.Qt.PenStyle.SolidLine, "allocated"),
                                         (curve.reserved_mb, QtCore.Qt.PenStyle.DashLine, "reserved")):
                known = np.isfinite(values)
                if not known.any():
                    continue
                xs, ys = _steps(x[known], values[known])
                item = pg.PlotDataItem(xs, ys, pen=pg.mkPen(colour, width=1.5, style=style),
                                       name=f"{curve.name} {label}")
                self.plot.getPlotItem().addItem(item)
                item.setDownsampling(auto=True, method="peak")  # millions of records draw as their peaks
                item.setClipToView(True)
        peak, reserved = m.peak_component, m.card_reserved
        if peak is not None:  # the allocated peak, else (memory counters only) the card's reserved peak
            self._mark(self._ms(peak.peak_allocated_ns), mb(peak.peak_allocated), f"{peak.name} peak")
        elif reserved is not None:
            self._mark(self._ms(reserved.peak_reserved_ns), mb(reserved.peak_reserved),
                       f"{reserved.name} reserved peak")
        self.plot.addItem(self.cursor)
        self._fit_legend()

    def _mark(self, x: float, y: float, label: str) -> None:
        self.plot.addItem(pg.ScatterPlotItem([x], [y], symbol="o", size=10, brush=pg.mkBrush(200, 40, 40)))
        text = pg.TextItem(f"{label} {format_number(y)} MB", color=(200, 40, 40), anchor=(0, 1))
        text.setPos(x, y)
        self.plot.addItem(text)

    def _ms(self, t_ns: int) -> float:
        """A card's instant as the plot's x: ms from its trace start."""
        return (t_ns - self.memory.t_origin_ns) / NS_PER_MS

    def _plot_clicked(self, event) -> None:
        if self.memory is None:
            return
        vb = self.plot.getPlotItem().vb
        if not vb.sceneBoundingRect().contains(event.scenePos()):
            return
        x_ms = vb.mapSceneToView(event.scenePos()).x()
        self.show_alive(self.memory.t_origin_ns + int(round(x_ms * NS_PER_MS)))

    def show_alive(self, t_ns: int) -> None:
        """List the allocations alive at ``t_ns`` (the card's own clock), largest first."""
        m = self.memory
        if m is None or not len(m.records.allocations):  # memory counters only: no block is known
            return
        self.instant_ns = t_ns
        rows = m.alive_at(t_ns)
        listed = "" if len(rows) <= LISTED else f" (the {LISTED} largest listed)"
        self.alive_label.setText(alive_text(alive_at(m, t_ns, rows), m.t_origin_ns, listed))
        self.cursor.setValue(self._ms(t_ns))
        self.model.origin_ns = m.t_origin_ns
        self.model.set_rows([dict(m.allocation_row(int(k)), row=int(k)) for k in rows[:LISTED]])
        fit_columns(self.table)

    def open_row(self, row: int) -> JumpTarget | None:
        """Show the life of the allocation of model row ``row`` on the timeline; returns the target sent."""
        if self.memory is None or not 0 <= row < len(self.model.rows):
            return None
        k = self.model.rows[row]["row"]
        a = self.memory.records.allocations
        card = next((c for c in self.cards if c.number == self.card_box.currentData()), None)
        if card is None:
            return None
        released = int(a.released_ns[k])
        end = card.t_end if released == NEVER else released
        target = JumpTarget(card.number, int(a.allocated_ns[k]), max(end, int(a.allocated_ns[k]) + 1))
        self.jumpRequested.emit(target)
        return target
