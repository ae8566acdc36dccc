"""AreaStats: overlap statistics and the per-name table of an area selection."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.cluster.comparison import FREE_STEP_WINDOW
from timelineview.analysis.vocabulary import label, quantity
from timelineview.views.background import BackgroundCall
from timelineview.views.panels.name_table_model import NameTableModel
from timelineview.views.sort_arrows import conventional_sort_arrows
from timelineview.viewstate.card_view import CardView
from timelineview.viewstate.time_format import format_duration, format_exact
from timelineview.viewstate.timeline.view_state import AreaSelection

SYNC_NAME_TABLE_SLICES = 200_000  # bigger windows get their per-name table from a worker thread
OVERVIEW_HINT = ("<b>Whole trace</b> — click a slice for its details, drag across lanes (or click a step) "
                 "for the statistics of a window. <b>?</b> lists every shortcut.")

FREE_SELECTION = f"{FREE_STEP_WINDOW} (selection)"  # the window-free row's name when an area is selected
FREE_CARD_SPAN = f"{FREE_STEP_WINDOW} (card span)"  # ... and on the whole-card overview
SUB_ROW = "  "  # a row that details the one above it
# the rows: the vocabulary's labels (a sub-row indented); the window-free row's name says which window it is of
METRIC_ROWS = (
    *((k, label(k)) for k in ("compute_us", "communication_us", "overlapped_us", "pure_communication_us",
                              "window_free_us")),
    ("free_outside_idle_gaps_us", SUB_ROW + label("free_outside_idle_gaps_us")),
    ("free_us", label("free_us")), ("uncaptured_us", label("uncaptured_us")),
    ("idle_gap_count", label("idle_gap_count")),
    *((k, SUB_ROW + label(k)) for k in ("idle_gap_total_us", "idle_gap_max_us", "idle_gap_communication_us",
                                        "idle_gap_free_us")),
    ("overlap_ratio", label("overlap_ratio")),
)

# what each row means: the vocabulary's definitions, but for the window-free row, which says which window it is of
METRIC_TIPS = {
    **{k: quantity(k).tooltip for k, _ in METRIC_ROWS if k != "window_free_us"},
    "window_free_us": f"window_free_us: the card runs neither compute nor communication in this window (a step's "
                      f"window includes its step interval, like the cluster table's {FREE_STEP_WINDOW}) = "
                      f"'{label('free_outside_idle_gaps_us')}' + '{label('idle_gap_free_us')}'",
}


def window_statistics(card: CardView, t0_abs: int, t1_abs: int) -> dict | None:
    """Analysis metrics of [t0, t1) on one card, or None when the analysis is unavailable."""
    if card.derived is None:
        return None
    from timelineview.analysis.window import area_metrics

    return area_metrics(card.derived, t0_abs, t1_abs)


def name_statistics(card: CardView, t0_abs: int, t1_abs: int, lanes: list[int] | None):
    from timelineview.analysis.names import name_table

    return name_table(card.store, t0_abs, t1_abs, lanes=lanes)


def _slices_in(card: CardView, t0: int, t1: int) -> int:
    """Slices intersecting [t0, t1) (an O(n) count: cheap next to the table itself)."""
    s = card.store.slices
    return int(np.count_nonzero((s.start < t1) & (s.start + s.dur > t0)))


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

    namesReady = QtCore.Signal()
    # a per-name row double-clicked: card number, name, window [t0, t1) in the card's absolute ns, lanes or None
    nameActivated = QtCore.Signal(int, str, object, object, object)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QtWidgets.QLabel()
        self.title.setWordWrap(True)
        self.title.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.metrics = QtWidgets.QTableWidget(len(METRIC_ROWS), 1)
        self.metrics.setVerticalHeaderLabels([label for _, label in METRIC_ROWS])
        for row, (key, _) in enumerate(METRIC_ROWS):
            self.metrics.verticalHeaderItem(row).setToolTip(METRIC_TIPS.get(key, ""))
        self.metrics.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        # fixed-width card columns: values stay next to their labels, many cards scroll sideways
        self.metrics.horizontalHeader().setDefaultSectionSize(132)
        self.metrics.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Interactive)
        self.metrics.horizontalHeader().setTextElideMode(QtCore.Qt.TextElideMode.ElideRight)
        self.metrics.verticalHeader().setDefaultSectionSize(18)
        self.card_combo = QtWidgets.QComboBox()
        self.card_combo.currentIndexChanged.connect(self._show_names)
        self.model = NameTableModel(self)
        self.names = QtWidgets.QTableView()
        self.names.setModel(self.model)
        self.names.setSortingEnabled(True)
        conventional_sort_arrows(self.names)
        self.names.sortByColumn(2, QtCore.Qt.SortOrder.DescendingOrder)
        self.names.verticalHeader().setVisible(False)
        self.names.verticalHeader().setDefaultSectionSize(18)
        header = self.names.horizontalHeader()
        header.setDefaultSectionSize(86)
        header.setMinimumSectionSize(60)
        header.setSectionResizeMode(0, QtWidgets.QHeaderView.ResizeMode.Stretch)
        header.setMinimumSectionSize(60)
        self.names.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.names.setAlternatingRowColors(True)
        self.names.setToolTip("Double-click a name: highlight its slices in the timeline (Enter: next one)")
        self.names.doubleClicked.connect(self._name_activated)
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
        self.busy = QtWidgets.QLabel()
        self.busy.hide()
        right = QtWidgets.QWidget()
        rl = QtWidgets.QVBoxLayout(right)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.addLayout(bar)
        rl.addWidget(self.busy)
        rl.addWidget(self.names, 1)
        self.right = right
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Horizontal)
        split.addWidget(self.metrics)
        split.addWidget(right)
        split.setSizes([380, 620])
        self.split = split
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(6, 4, 6, 4)
        lay.addWidget(self.title)
        lay.addWidget(split, 1)
        self.cards: list[CardView] = []
        self.jobs: list[tuple] = []  # (card, t0, t1, lanes) of each card of the area
        self.tables: list = []
        self.background = BackgroundCall(self)
        self.background.ready.connect(self._names_ready)

    def show_area(self, sel: AreaSelection, cards: list[CardView], shift_of) -> None:
        """Show the statistics of ``sel``; ``shift_of(card)`` maps relative to absolute ns.

        Window metrics are immediate (prefix sums); per-name tables of big windows are computed
        on the thread pool so the window never freezes.
        """
        chosen = [c for c in cards if c.number in sel.cards]
        jobs = []
        metrics = []
        for card in chosen:
            shift = shift_of(card)
            t0, t1 = sel.t0 + shift, sel.t1 + shift
            jobs.append((card, t0, t1, sel.lanes.get(card.number)))
            metrics.append(window_statistics(card, t0, t1))
        names = ", ".join(c.title for c in chosen)
        self._set_title(f"<b>Area</b> {format_exact(sel.t0)} → {format_exact(sel.t1)} "
                        f"(<b>{format_exact(sel.t1 - sel.t0)}</b>) on {names}")
        self._fill_metrics([c.title for c in chosen], metrics, (sel.t1 - sel.t0) / 1000.0, FREE_SELECTION)
        self.right.show()
        self.cards = chosen
        self.jobs = jobs
        self.tables = [None] * len(chosen)
        self.card_combo.blockSignals(True)
        self.card_combo.clear()
        self.card_combo.addItems([c.title for c in chosen])
        self.card_combo.blockSignals(False)
        self.card_combo.setEnabled(len(chosen) > 1)
        inside = sum(_slices_in(card, t0, t1) for card, t0, t1, _ in jobs)
        if inside <= SYNC_NAME_TABLE_SLICES:
            self._names_ready([name_statistics(*job) for job in jobs])
        else:
            self.model.set_table(None)
            self.busy.setText(f"computing the per-name table of {inside:,} slices…".replace(",", " "))
            self.busy.show()
            self.background.start(lambda: [name_statistics(*job) for job in jobs])

    def show_overview(self, cards: list[CardView]) -> None:
        """Nothing selected: whole-card metrics side by side, and how to select something."""
        self.background.cancel()
        self._set_title(OVERVIEW_HINT)
        metrics, spans = [], []
        for card in cards:
            m = window_statistics(card, *card.derived.span) if card.derived is not None else None
            metrics.append(m)
            spans.append(m["span_us"] if m else 0.0)
        self._fill_metrics([c.title for c in cards], metrics, spans, FREE_CARD_SPAN)
        self.right.hide()
        self.cards, self.tables, self.jobs = [], [], []
        self.model.set_table(None)

    def _set_title(self, html: str) -> None:
        self.title.setText(html)

    def _fill_metrics(self, titles: list[str], metrics: list[dict | None], span_us, free_label: str) -> None:
        spans = span_us if isinstance(span_us, list) else [span_us] * len(titles)
        free_row = [key for key, _ in METRIC_ROWS].index("window_free_us")
        self.metrics.verticalHeaderItem(free_row).setText(free_label)
        # room for every card column when possible; the name table keeps at least half
        total = max(sum(self.split.sizes()), 1)
        want = self.metrics.verticalHeader().width() + 132 * len(titles) + 24
        left = min(max(want, 300), int(total * 0.5))
        self.split.setSizes([left, total - left])
        self.metrics.setColumnCount(len(titles))
        self.metrics.setHorizontalHeaderLabels(titles)
        for col, title in enumerate(titles):
            self.metrics.horizontalHeaderItem(col).setToolTip(title)
        for col, m in enumerate(metrics):
            for row, (key, _) in enumerate(METRIC_ROWS):
                item = QtWidgets.QTableWidgetItem(metric_text(key, m.get(key) if m else None, spans[col]))
                item.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
                self.metrics.setItem(row, col, item)

    @QtCore.Slot(object)
    def _names_ready(self, tables) -> None:
        self.busy.hide()
        if isinstance(tables, Exception):
            self.busy.setText(f"per-name table failed: {tables}")
            self.busy.show()
            return
        self.tables = list(tables)
        self._show_names(max(self.card_combo.currentIndex(), 0))
        self.namesReady.emit()

    def _name_activated(self, index: QtCore.QModelIndex) -> None:
        i = self.card_combo.currentIndex()
        if self.table is None or not index.isValid() or not 0 <= i < len(self.jobs):
            return
        card, t0, t1, lanes = self.jobs[i]
        name = str(self.table.column("name")[index.row()])
        self.nameActivated.emit(card.number, name, t0, t1, lanes)

    def _show_names(self, i: int) -> None:
        table = self.tables[i] if 0 <= i < len(self.tables) else None
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
