"""AreaStats: overlap statistics and the per-name table of an area selection."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.views.card_data import CardView
from timelineview.views.name_table_model import NameTableModel
from timelineview.views.time_format import format_duration, format_exact
from timelineview.views.view_context import AreaSelection

METRIC_ROWS = (
    ("compute_us", "Computing"), ("communication_us", "Communication"), ("overlapped_us", "Overlapped"),
    ("pure_communication_us", "Pure communication"), ("free_us", "Free"),
    ("idle_gap_count", "Idle AI Core gaps"), ("idle_gap_total_us", "  gap time"),
    ("idle_gap_max_us", "  longest gap"), ("idle_gap_communication_us", "  waiting on communication"),
    ("idle_gap_free_us", "  nothing running"), ("overlap_ratio", "Overlap ratio"),
)


def window_statistics(card: CardView, t0_abs: int, t1_abs: int) -> dict | None:
    """Analysis metrics of [t0, t1) on one card, or None when the analysis is unavailable."""
    if card.derived is None:
        return None
    from timelineview.analysis.window import window_metrics

    return window_metrics(card.derived, t0_abs, t1_abs)


def name_statistics(card: CardView, t0_abs: int, t1_abs: int, lanes: list[int] | None):
    from timelineview.analysis.names import name_table

    return name_table(card.store, t0_abs, t1_abs, lanes=lanes)


def metric_text(key: str, value, span_us: float) -> str:
    if value is None:
        return "—"
    if key == "idle_gap_count":
        return f"{int(value):,}".replace(",", " ")
    if key == "overlap_ratio":
        return f"{value * 100:.1f} %"
    pct = f"  ({value / span_us * 100:.1f} %)" if span_us > 0 and key != "idle_gap_max_us" else ""
    return format_duration(value * 1000.0) + pct


class AreaStats(QtWidgets.QWidget):
    """Metrics per card of the selected window, and the sortable per-name table."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QtWidgets.QLabel()
        self.title.setWordWrap(True)
        self.title.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.metrics = QtWidgets.QTableWidget(len(METRIC_ROWS), 1)
        self.metrics.setVerticalHeaderLabels([label for _, label in METRIC_ROWS])
        self.metrics.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.metrics.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.metrics.verticalHeader().setDefaultSectionSize(20)
        self.card_combo = QtWidgets.QComboBox()
        self.card_combo.currentIndexChanged.connect(self._show_names)
        self.model = NameTableModel(self)
        self.names = QtWidgets.QTableView()
        self.names.setModel(self.model)
        self.names.setSortingEnabled(True)
        self.names.sortByColumn(2, QtCore.Qt.SortOrder.DescendingOrder)
        self.names.verticalHeader().setVisible(False)
        self.names.verticalHeader().setDefaultSectionSize(20)
        self.names.horizontalHeader().setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.names.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.names.setAlternatingRowColors(True)
        copy = QtWidgets.QPushButton("Copy CSV")
        copy.setToolTip("Copy the per-name table as CSV")
        copy.clicked.connect(self.copy_csv)
        export = QtWidgets.QPushButton("Export CSV…")
        export.clicked.connect(self.export_csv)
        bar = QtWidgets.QHBoxLayout()
        bar.addWidget(QtWidgets.QLabel("Names on"))
        bar.addWidget(self.card_combo, 1)
        bar.addWidget(copy)
        bar.addWidget(export)
        right = QtWidgets.QWidget()
        rl = QtWidgets.QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addLayout(bar)
        rl.addWidget(self.names, 1)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(self.metrics)
        split.addWidget(right)
        split.setSizes([380, 620])
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.addWidget(self.title)
        lay.addWidget(split, 1)
        self.results: list[tuple[CardView, dict | None, object]] = []

    def show_area(self, sel: AreaSelection, cards: list[CardView], shift_of) -> None:
        """Compute and show the statistics of ``sel``; ``shift_of(card)`` maps relative to absolute ns."""
        self.results = []
        for card in cards:
            if card.number not in sel.cards:
                continue
            shift = shift_of(card)
            t0, t1 = sel.t0 + shift, sel.t1 + shift
            lanes = sel.lanes.get(card.number)
            self.results.append((card, window_statistics(card, t0, t1), name_statistics(card, t0, t1, lanes)))
        span_us = (sel.t1 - sel.t0) / 1000.0
        names = ", ".join(c.title for c, _, _ in self.results)
        self.title.setText(f"<b>Area</b> {format_exact(sel.t0)} → {format_exact(sel.t1)} "
                           f"(<b>{format_exact(sel.t1 - sel.t0)}</b>) on {names}")
        self.metrics.setColumnCount(len(self.results))
        self.metrics.setHorizontalHeaderLabels([c.title for c, _, _ in self.results])
        for col, (_, m, _) in enumerate(self.results):
            for row, (key, _) in enumerate(METRIC_ROWS):
                text = metric_text(key, m.get(key) if m else None, span_us)
                item = QtWidgets.QTableWidgetItem(text)
                item.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
                self.metrics.setItem(row, col, item)
        self.card_combo.blockSignals(True)
        self.card_combo.clear()
        self.card_combo.addItems([c.title for c, _, _ in self.results])
        self.card_combo.blockSignals(False)
        self.card_combo.setEnabled(len(self.results) > 1)
        self._show_names(0)

    def _show_names(self, i: int) -> None:
        table = self.results[i][2] if 0 <= i < len(self.results) else None
        self.model.set_table(table)

    @property
    def table(self):
        return self.model.table

    def copy_csv(self) -> None:
        if self.table is not None:
            QtGui.QGuiApplication.clipboard().setText(self.table.to_csv())

    def export_csv(self) -> None:
        if self.table is None:
            return
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export per-name table", "names.csv", "CSV (*.csv)")
        if path:
            Path(path).write_text(self.table.to_csv(), encoding="utf-8")
