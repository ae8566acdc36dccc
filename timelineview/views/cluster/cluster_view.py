"""ClusterView: the comparison tab — per-card progress while loading, then the table and the chart.

The table (one row per card, mean over steps or one step) and the stacked bars share one
order (the table's sort) and one selection. Double-clicking a row or a bar, or "Show in
timeline" for several selected rows, asks the window to drill into those cards at the step.
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtWidgets

from timelineview.analysis.cluster.comparison import ClusterComparison, group_rows, to_csv
from timelineview.views.cluster.card_progress import CardProgressList
from timelineview.views.cluster.comparison_table import ComparisonTable
from timelineview.views.cluster.memory_bars import MemoryBars
from timelineview.views.cluster.stacked_bars import StackedBars
from timelineview.viewstate.load_progress import BYTES

GROUPED_BAR_H = 16  # bar height aimed at when cards are grouped to fit
TIME_CHART, MEMORY_CHART = "time", "memory"

EMPTY_HINT = ("No cluster open.\nOpen a folder with one trace per rank (File ▸ Open folder, Ctrl+Shift+O) "
              "to compare its cards side by side.")


class ClusterView(QtWidgets.QStackedWidget):
    """Pages: a hint, the loading progress of every card, the comparison."""

    drillRequested = QtCore.Signal(object, object)  # card numbers, step (None: the row's drill step)

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.comparison: ClusterComparison | None = None
        self.step: int | None = None
        self._user_split = False  # once the user drags the splitter, resizing keeps their split
        self.hint = QtWidgets.QLabel(EMPTY_HINT)
        self.hint.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.hint.setEnabled(False)
        self.addWidget(self.hint)
        self.addWidget(self._build_loading_page())
        self.addWidget(self._build_comparison_page())

    # ------------------------------------------------------------------ building
    def _build_loading_page(self) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        self.loading_title = QtWidgets.QLabel()
        self.loading_title.setStyleSheet("font-weight: bold")
        self.progress_list = CardProgressList()
        scroll = QtWidgets.QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QtWidgets.QFrame.Shape.NoFrame)
        scroll.setWidget(self.progress_list)
        lay.addWidget(self.loading_title)
        lay.addWidget(scroll, 1)
        self.loading_page = page
        return page

    def _build_comparison_page(self) -> QtWidgets.QWidget:
        page = QtWidgets.QWidget()
        lay = QtWidgets.QVBoxLayout(page)
        lay.setContentsMargins(6, 6, 6, 4)
        bar = QtWidgets.QHBoxLayout()
        bar.addWidget(QtWidgets.QLabel("Step:"))
        self.step_box = QtWidgets.QComboBox()
        self.step_box.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.step_box.currentIndexChanged.connect(self._on_step_chosen)
        bar.addWidget(self.step_box)
        bar.addStretch(1)
        self.show_button = QtWidgets.QPushButton("Show in timeline")
        self.show_button.setToolTip("The selected cards' timelines at this step, time-aligned (or double-click a "
                                    "row); nothing selected: the slow card, else the first card")
        self.show_button.clicked.connect(self.show_in_timeline)
        self.csv_button = QtWidgets.QPushButton("Export CSV…")
        self.csv_button.clicked.connect(self._export_csv_dialog)
        self.png_button = QtWidgets.QPushButton("Export chart PNG…")
        self.png_button.clicked.connect(self._export_png_dialog)
        for b in (self.show_button, self.csv_button, self.png_button):
            bar.addWidget(b)
        lay.addLayout(bar)
        self.summary = QtWidgets.QLabel()
        self.summary.setTextFormat(QtCore.Qt.TextFormat.RichText)
        self.summary.setWordWrap(True)
        lay.addWidget(self.summary)
        self.table = ComparisonTable()
        self.table.cardActivated.connect(lambda n: self.drill([n]))
        self.table.model_.modelReset.connect(self._sync_chart)
        self.table.model_.layoutChanged.connect(self._sync_chart)
        self.table.selectionModel().selectionChanged.connect(
            lambda *_: self.chart.set_selected(self.table.selected_cards()))
        self.chart = StackedBars()
        self.chart.barActivated.connect(self.drill)
        self.chart.barClicked.connect(self.table.select_cards)
        self.chart_scroll = QtWidgets.QScrollArea()
        self.chart_scroll.setWidgetResizable(True)
        self.chart_scroll.setWidget(self.chart)
        self.chart_scroll.viewport().installEventFilter(self)
        self.chart_note = QtWidgets.QLabel()
        self.chart_note.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Preferred)
        self.group_box = QtWidgets.QCheckBox("Group cards to fit")
        self.group_box.setChecked(True)
        self.group_box.setToolTip("More cards than fit: slow cards keep their own bar, the others are "
                                  "grouped (off: one bar per card, scroll the chart)")
        self.group_box.toggled.connect(lambda *_: self._sync_chart())
        self.memory_bars = MemoryBars()
        self.memory_scroll = QtWidgets.QScrollArea()
        self.memory_scroll.setWidgetResizable(True)
        self.memory_scroll.setWidget(self.memory_bars)
        self.memory_scroll.hide()
        self.chart_box = QtWidgets.QComboBox()
        self.chart_box.addItem("Time phases", TIME_CHART)
        self.chart_box.addItem("Memory peaks (MB)", MEMORY_CHART)
        self.chart_box.setToolTip("Chart: each card's step time in phases, or its peak reserved memory with "
                                  "its allocated peak (when the cards have memory records)")
        self.chart_box.currentIndexChanged.connect(lambda *_: self._show_chart())
        chart_box = QtWidgets.QWidget()
        cl = QtWidgets.QVBoxLayout(chart_box)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.setSpacing(2)
        head = QtWidgets.QHBoxLayout()
        head.addWidget(self.chart_note, 1)
        head.addWidget(self.group_box)
        head.addWidget(self.chart_box)
        cl.addLayout(head)
        cl.addWidget(self.chart_scroll, 1)
        cl.addWidget(self.memory_scroll, 1)
        self.splitter = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(chart_box)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 0)  # a taller window gives its height to the chart
        self.splitter.setStretchFactor(1, 1)
        self.splitter.splitterMoved.connect(lambda *_: setattr(self, "_user_split", True))
        lay.addWidget(self.splitter, 1)
        self.comparison_page = page
        return page

    # ------------------------------------------------------------------ loading
    def start_loading(self, labels: list[str]) -> None:
        self.progress_list.set_cards(labels)
        self.loading_title.setText(f"Loading {len(labels)} cards in parallel…")
        self.setCurrentWidget(self.loading_page)

    def card_progress(self, i: int, done: int, total: int, unit: str = BYTES) -> None:
        self.progress_list.set_progress(i, done, total, unit)
        self.loading_title.setText(f"Loading {self.progress_list.summary()}")

    def load_ended(self, failed: dict[int, str]) -> None:
        """The load finished, failed or was cancelled: show the (new or previous) comparison."""
        self.progress_list.finish(failed)
        self.setCurrentWidget(self.comparison_page if self.comparison is not None else self.hint)

    # ------------------------------------------------------------------ comparison
    def set_comparison(self, comparison: ClusterComparison | None) -> None:
        self.comparison = comparison
        if comparison is None:
            self.setCurrentWidget(self.hint)
            return
        steps = comparison.step_numbers()
        self.step_box.blockSignals(True)
        self.step_box.clear()
        whole = comparison.whole_trace_only
        self.step_box.addItem("Whole trace (no step markers)" if whole else
                              f"Mean over {len(steps)} steps" if len(steps) != 1 else "Mean (1 step)", None)
        for s in [] if whole else steps:
            self.step_box.addItem(f"Step {s}", s)
        self.step_box.setCurrentIndex(0)
        self.step_box.blockSignals(False)
        self.step = None
        self.chart_box.setVisible(comparison.memory)
        self._refresh()
        self._show_chart()
        self.setCurrentWidget(self.comparison_page)
        self._user_split = False
        self._fit_splitter()

    def _fit_splitter(self) -> None:
        """Table as tall as its rows (at most ~half the page), the chart below takes the rest."""
        total = self.splitter.height()
        if self._user_split or self.comparison is None or total < 100:
            return
        table_h = min(self._table_height(len(self.comparison.cards)), max(total // 2, 160))
        self.splitter.blockSignals(True)
        self.splitter.setSizes([table_h, total - table_h])
        self.splitter.blockSignals(False)

    def _table_height(self, rows: int) -> int:
        """The table's height with ``rows`` rows whole: its frame, header, rows and, when its columns are
        wider than it (a narrow window), the horizontal scroll bar that then takes a row's place."""
        t = self.table
        row_h = t.verticalHeader().defaultSectionSize()
        bar = t.horizontalScrollBar().sizeHint().height() if t.horizontalHeader().length() > t.viewport().width() \
            else 0
        return 2 * t.frameWidth() + t.horizontalHeader().sizeHint().height() + rows * row_h + bar + 2

    def set_step(self, step: int | None) -> None:
        """Show the mean over steps (None) or one step."""
        i = self.step_box.findData(step)
        self.step_box.setCurrentIndex(max(i, 0))

    def _on_step_chosen(self, index: int) -> None:
        self.step = self.step_box.itemData(index)
        self._refresh()

    def _refresh(self) -> None:
        cmp = self.comparison
        if cmp is None:
            return
        rows = cmp.rows(self.step)
        self.table.set_rows(rows, cmp.columns)
        self.summary.setText(summary_html(cmp, rows))

    def _show_chart(self) -> None:
        memory = self.chart_box.currentData() == MEMORY_CHART and self.comparison is not None \
            and self.comparison.memory
        self.chart_scroll.setVisible(not memory)
        self.memory_scroll.setVisible(bool(memory))
        self._sync_chart()

    def _sync_chart(self) -> None:
        """Bars in the table's order: one per card, or grouped when more cards than fit (and so said)."""
        m = self.table.model_
        self.memory_bars.set_rows(m.rows)
        view_h = self.chart_scroll.viewport().height()
        fits = max(StackedBars.bars_fitting(view_h, GROUPED_BAR_H), 8)
        grouped = self.group_box.isChecked() and len(m.rows) > fits
        bars = group_rows(m.rows, fits) if grouped else group_rows(m.rows, len(m.rows))
        self.chart.set_rows(bars, m.div, m.unit)
        self.group_box.setVisible(len(m.rows) > fits and not self.memory_scroll.isVisibleTo(self))
        n = len(m.rows)
        if grouped:
            self.chart_note.setText(f"{n} cards in {len(bars)} bars (table order): slow cards alone, the others "
                                    "grouped — mean bar, whisker: shortest to longest step")
            self.chart_note.setToolTip("Double-click a group to open its cards' timelines. "
                                       "The PNG export has one bar per card.")
        elif n > StackedBars.bars_fitting(view_h):
            self.chart_note.setText(f"{n} cards, ordered like the table — "
                                    f"{StackedBars.bars_fitting(view_h)} fit here: scroll for the rest")
        else:
            self.chart_note.setText(f"{plural(n, 'card')}, ordered like the table — hover a bar for its values")

    def resizeEvent(self, ev) -> None:
        super().resizeEvent(ev)
        self._fit_splitter()

    def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
        if obj is self.chart_scroll.viewport() and ev.type() == QtCore.QEvent.Type.Resize:
            self._sync_chart()  # how many bars fit changed
        return False

    def showEvent(self, ev) -> None:
        super().showEvent(ev)
        self._fit_splitter()

    def current_rows(self) -> list[dict]:
        """Rows in the table's (sorted) order."""
        return list(self.table.model_.rows)

    def show_in_timeline(self) -> None:
        """"Show in timeline": the selected cards; without a selection the first slow card (table
        order), else the first card of the table."""
        numbers = self.table.selected_cards()
        if not numbers:
            rows = [r for r in self.current_rows() if r["bar"] is not None] or self.current_rows()
            chosen = next((r for r in rows if r["slow"]), rows[0] if rows else None)
            numbers = [chosen["number"]] if chosen is not None else []
        self.drill(numbers)

    def drill(self, numbers: list[int]) -> None:
        if numbers:
            self.drillRequested.emit(list(numbers), self.step)

    # ------------------------------------------------------------------ export
    def export_csv(self, path: Path) -> None:
        Path(path).write_text(to_csv(self.current_rows(), self.table.model_.columns), encoding="utf-8")

    def export_png(self, path: Path) -> bool:
        """The chart shown (time phases or memory peaks) with one bar per card, whatever fits on screen."""
        if self.memory_scroll.isVisibleTo(self):
            return self.memory_bars.grab().save(str(path))
        rows = self.current_rows()
        return self.chart.render_image(group_rows(rows, len(rows)), title=self.chart_title(rows)).save(str(path))

    def chart_title(self, rows: list[dict]) -> str:
        """'Step time per card, mean over 3 steps — 8 cards (ms)': what the exported chart shows."""
        whole = self.comparison is not None and self.comparison.whole_trace_only
        steps = len(self.comparison.step_numbers()) if self.comparison is not None else 0
        where = ("whole trace (no step markers)" if whole else f"step {self.step}" if self.step is not None
                 else f"mean over {plural(steps, 'step')}")
        unit = self.table.model_.unit
        return f"Step time per card, {where} — {plural(len(rows), 'card')} ({unit})"

    def _export_csv_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export the comparison table", "cluster.csv",
                                                        "CSV (*.csv)")
        if path:
            self.export_csv(Path(path))

    def _export_png_dialog(self) -> None:
        path, _ = QtWidgets.QFileDialog.getSaveFileName(self, "Export the chart", "cluster.png", "PNG (*.png)")
        if path:
            self.export_png(Path(path))


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def short_flag(flag: dict) -> str:
    """'compute +56 %' (over the median of all cards)."""
    name = flag["metric"].removesuffix("_us").replace("_", " ")
    if flag["median"] > 0:
        return f"{name} +{(flag['value'] / flag['median'] - 1) * 100:.0f} %"
    return name


def summary_html(cmp: ClusterComparison, rows: list[dict]) -> str:
    """One line: cards and steps, the slow cards and why, failed cards, pipeline note."""
    where = ("whole trace (no step markers)" if cmp.whole_trace_only else
             "mean over steps" if not rows or rows[0]["step"] is None else f"step {rows[0]['step']}")
    parts = [f"<b>{plural(len(rows), 'card')}</b>, {where}"]
    usable = [r for r in rows if r["bar"] is not None]
    slow = [r for r in rows if r["slow"]]
    if len(usable) < 3:
        parts.append("slow-card detection needs ≥ 3 cards")
    elif slow:
        flags = ", ".join(f"{r['card']} ({'; '.join(short_flag(f) for f in r['slow'])})" for r in slow)
        parts.append(f"<span style='color:#c82d28'><b>▲ slow:</b> {flags}</span> (over the median of all cards)")
    else:
        parts.append("no slow card")
    heavy = [r["card"] for r in rows if r.get("memory_flags")]
    if heavy:
        parts.append(f"<span style='color:#c82d28'><b>▲ memory:</b> {', '.join(heavy)} (peak reserved above the "
                     "median of all cards)</span>")
    failed = [r["card"] for r in rows if r["error"] and r["bar"] is None]
    if failed:
        parts.append(f"<span style='color:#c82d28'>no data: {', '.join(failed)}</span>")
    if cmp.pipeline:
        parts.append("pipeline parallelism: stage time = step time − receive-only communication")
    return " · ".join(parts)
