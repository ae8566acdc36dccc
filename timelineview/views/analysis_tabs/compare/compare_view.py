"""CompareView: what changed between the run on screen (base) and a second run (new), metrics.md §9.

The per-step phases of each card as paired bars and the per-card deltas (the card whose step time
changed most first, or by rank), the operators (by op type or by op type and input shapes, and by node name as a
detail), the collectives and the links whose time changed most
(sortable; red slower, green faster), and differences in shape in words. Everything shown is the
``RunDiff`` of ``analysis.diff.run_diff``, the one ``timelineview diff`` prints. A step selector puts both
runs on the timeline aligned at that step; double-clicking an operator shows its slices in both runs.
Opened by File ▸ Compare with… or ``--compare NEW``.
"""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtWidgets

from timelineview.analysis.diff.run_diff import CardDelta, RunDiff
from timelineview.analysis.findings.marks import diff_marks
from timelineview.views.analysis_tabs.compare.both_runs import highlight_in_both, show_both_runs
from timelineview.views.analysis_tabs.compare.delta_tables import (
    CARD_COLUMNS,
    LINK_COLUMNS,
    NAME_COLUMNS,
    DeltaTableModel,
    card_columns,
    card_label,
    card_records,
    link_records,
    name_records,
)
from timelineview.views.analysis_tabs.compare.framework_page import TITLE as FRAMEWORK_TITLE
from timelineview.views.analysis_tabs.compare.framework_page import FrameworkPage
from timelineview.views.analysis_tabs.compare.operators_page import OperatorsPage
from timelineview.views.analysis_tabs.compare.phase_bars import PhaseBars
from timelineview.views.jobs.compare_job import ComparedRun, compare_job
from timelineview.views.jobs.job import Failure, Progress
from timelineview.views.jobs.runner import JobHandle, JobRunner
from timelineview.views.sort_arrows import conventional_sort_arrows
from timelineview.viewstate.tabs.paired_bars import PhaseValues
from timelineview.viewstate.tabs.run_alignment import CardPair, RunCardView, as_new_run_card, step_count, step_label

NOTE_STYLE = "color: #b9770e"
ROW_PAD = 6  # px around a table row's text
BARS_SHARE, TABLE_SHARE = 3, 1  # of the Step phases page's height
HINT = ("Compare the run on screen with another: File ▸ Compare with… (or start with "
        "timelineview BASE --compare NEW).")
COMPARE = "compare"  # the lane of the comparison's load
BY_CHANGE, BY_RANK = "change", "rank"  # orders of the cards in the bars and the card table
# short words: the controls' row sets the window's least width (its tooltip says what the change is)
CARD_ORDERS = ((BY_CHANGE, "largest own change first"), (BY_RANK, "rank"))
PART_TITLES = ("Step phases and cards", "Operators", "Communication", "Links")  # a comparison adds its counts


class CompareView(QtWidgets.QWidget):
    """The Compare tab (analysis-tab protocol, plus :meth:`compare_with` and :meth:`show_comparison`)."""

    jumpRequested = QtCore.Signal(object)  # JumpTarget (unused: this tab drives the timeline itself)
    comparisonReady = QtCore.Signal(bool)  # after a comparison load: True when it could be compared

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.cluster_tab = None  # set by attach(): the window's tabs and timeline
        self.base_session = None
        self.base_cards: list = []
        self.diff: RunDiff | None = None
        self.pairs: list[CardPair] = []
        self.unmatched: list[RunCardView] = []
        self.new_paths: list[Path] = []
        self.pending: list[Path] = []  # a comparison asked for before the base run finished loading
        self.base_name = "the run on screen"  # how the header names the data set compared with
        self.not_comparable = ""  # why the data set on screen cannot be compared ("" when it can)
        self.jobs = JobRunner(self)  # the comparison's load, in its own lane
        self.jobs.progressed.connect(self._on_progress)
        self.jobs.finished.connect(self._on_compared)
        self.jobs.failed.connect(self._on_failed)
        self.jobs.ended.connect(self._on_ended)
        self._build()

    def _build(self) -> None:
        self.header = QtWidgets.QLabel(HINT)  # what is compared with what, or why nothing is
        self.header.setWordWrap(True)
        self.notes = QtWidgets.QLabel()
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet(NOTE_STYLE)
        self.notes.hide()
        self.step = QtWidgets.QComboBox()
        self.step.setToolTip("The step at whose start both runs are aligned on the timeline")
        self.show_button = QtWidgets.QPushButton("Show both runs on the timeline")
        self.show_button.setToolTip("Each base card with the new run's card under it, aligned at the chosen step")
        self.show_button.clicked.connect(lambda: self.show_on_timeline())
        self.lane_by_lane = QtWidgets.QCheckBox("Lane by lane")
        self.lane_by_lane.setChecked(True)
        self.lane_by_lane.setToolTip("Each lane of the base run followed by the same lane of the new run "
                                     "(off: each base card followed by its new card)")
        self.card_order = QtWidgets.QComboBox()
        for key, text in CARD_ORDERS:
            self.card_order.addItem(text, key)
        self.card_order.setToolTip("The order of the cards in the bars and the card table: the card whose own "
                                   "compute or step interval changed most first, or by rank")
        self.card_order.currentIndexChanged.connect(lambda *_: self._show_cards())
        controls = QtWidgets.QHBoxLayout()
        for w in (QtWidgets.QLabel("Cards:"), self.card_order, QtWidgets.QLabel("Align at"), self.step,
                  self.lane_by_lane, self.show_button):
            controls.addWidget(w)
        controls.addStretch(1)
        self.bars = PhaseBars()
        bars_scroll = QtWidgets.QScrollArea()
        bars_scroll.setWidgetResizable(True)
        bars_scroll.setWidget(self.bars)
        self.cards_model = DeltaTableModel(CARD_COLUMNS, self)
        self.cards_table = self._table(self.cards_model)
        phases = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        phases.addWidget(bars_scroll)
        phases.addWidget(self.cards_table)
        phases.setStretchFactor(0, 3)  # the bars are the picture; the table is a few rows
        phases.setStretchFactor(1, 1)
        phases.setSizes([BARS_SHARE, TABLE_SHARE])
        self.operators_model = DeltaTableModel(NAME_COLUMNS, self)
        self.operators_table = self._table(self.operators_model)
        self.operators_table.doubleClicked.connect(lambda index: self.open_operator(index.row()))
        self.operators_table.setToolTip("Double-click an operator to see its slices in both runs")
        self.operators_page = OperatorsPage(self.operators_table, self._table)
        self.communication_model = DeltaTableModel(NAME_COLUMNS, self)
        self.communication_table = self._table(self.communication_model)
        self.links_model = DeltaTableModel(LINK_COLUMNS, self)
        self.links_table = self._table(self.links_model)
        self.links_table.setToolTip("Per link (src-dst ranks, the cluster's links of §6): bytes, transit and "
                                    "bandwidth in both runs, the link whose bandwidth change costs most first")
        self.framework = FrameworkPage()  # a page of the comparison of two PyTorch runs only (NPU vs GPU)
        self.parts = QtWidgets.QTabWidget()
        for page, title in zip((phases, self.operators_page, self.communication_table, self.links_table),
                               PART_TITLES, strict=True):
            self.parts.addTab(page, title)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(self.header)
        lay.addWidget(self.notes)
        lay.addLayout(controls)
        lay.addWidget(self.parts, 1)
        lay.addStretch(0)  # takes the room while the pages are hidden: the hint and controls stay at the top
        self._set_enabled(False)

    @staticmethod
    def _table(model: DeltaTableModel) -> QtWidgets.QTableView:
        table = QtWidgets.QTableView()
        table.setModel(model)
        table.setSortingEnabled(True)
        conventional_sort_arrows(table)
        table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        table.verticalHeader().hide()
        table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + ROW_PAD)
        table.setAlternatingRowColors(True)
        return table

    def _set_enabled(self, on: bool) -> None:
        """The controls and pages work only on a comparison; without one the pages (empty tables whose headers
        the width cuts) are hidden and the header says how to start one."""
        for w in (self.card_order, self.step, self.lane_by_lane, self.show_button, self.parts):
            w.setEnabled(on)
        self.parts.setVisible(on)

    def attach(self, cluster_tab) -> None:
        """The window's cluster tab (its timeline, tabs and cards): where both runs are shown."""
        self.cluster_tab = cluster_tab
        cluster_tab.window.installEventFilter(self)

    # ------------------------------------------------------------------ the analysis tab protocol
    def show_data(self, data) -> None:
        """A new data set on screen: the previous comparison no longer applies; a pending one starts now
        (or the header says why this data set cannot be compared)."""
        self._drop_comparison()
        self.base_session, self.base_cards = data.compare_base, list(data.views)
        self.base_name, self.not_comparable = data.name, data.not_comparable
        if self.not_comparable:
            self.pending = []
            self.header.setText(self.not_comparable)
        elif self.pending:
            paths, self.pending = self.pending, []
            self.compare_with(paths)

    def clear(self) -> None:
        self._drop_comparison()
        self.base_session, self.base_cards = None, []
        self.not_comparable = ""

    def status_text(self) -> str:
        if self.diff is None or not self.diff.cards:
            return ""
        deltas = [c.delta.get("step_time_us") for c in self.diff.cards]
        deltas = [d for d in deltas if d is not None]
        if not deltas:
            return "Compared"
        worst = max(deltas, key=abs)
        return f"Compared: step time {'+' if worst >= 0 else '−'}{abs(worst) / 1000:.3g} ms"

    # ------------------------------------------------------------------ loading the comparison
    def compare_with(self, paths: list[Path]) -> None:
        """Load ``paths`` as the new run and compare it with the run on screen (in the background).
        Before the base run has loaded, the comparison waits for it."""
        paths = [Path(p) for p in paths]
        if self.not_comparable:
            self.header.setText(self.not_comparable)
            if self.cluster_tab is not None:
                self.cluster_tab.tabs.setCurrentWidget(self)
            return
        if self.base_session is None:
            self.pending = paths
            self.header.setText(f"Waiting for the base run to load before comparing with "
                                f"{', '.join(p.name for p in paths)}…")
            return
        self.new_paths = paths
        self.header.setText(f"Loading {self._new_names()} to compare…")
        self.jobs.start(compare_job(paths, self.base_session), COMPARE)
        if self.cluster_tab is not None:
            self.cluster_tab.tabs.setCurrentWidget(self)

    def _new_names(self) -> str:
        return ", ".join(p.name for p in self.new_paths)

    @QtCore.Slot(object, object)
    def _on_progress(self, job: JobHandle, progress: Progress) -> None:
        self.header.setText(f"{progress.text} ({self._new_names()})…")

    @QtCore.Slot(object, object)
    def _on_compared(self, job: JobHandle, compared: ComparedRun) -> None:
        if compared.diff is None:
            self._show_failure(f"Could not compare with {self._new_names()}: {compared.error or 'no result'}.")
            return
        self.show_comparison(compared.diff, compared.cards)

    @QtCore.Slot(object, object)
    def _on_failed(self, job: JobHandle, failure: Failure) -> None:
        self._show_failure(f"Loading {self._new_names()} failed: {failure.details or failure.text}")

    @QtCore.Slot(object)
    def _on_ended(self, job: JobHandle) -> None:
        if self.cluster_tab is not None:  # asked for: shown when ready, even if a load opened another tab since
            self.cluster_tab.tabs.setCurrentWidget(self)
        self.comparisonReady.emit(self.diff is not None)

    def _show_failure(self, text: str) -> None:
        self._drop_comparison(keep_job=True)
        self.header.setText(text)

    def eventFilter(self, obj: QtCore.QObject, ev: QtCore.QEvent) -> bool:
        if ev.type() == QtCore.QEvent.Type.Close and self.cluster_tab is not None and obj is self.cluster_tab.window:
            self.jobs.shutdown()  # a closing window waits for its comparison load to stop
        return False

    # ------------------------------------------------------------------ content
    def show_comparison(self, diff: RunDiff, new_cards) -> None:
        """Show ``diff`` (base = the run on screen) and keep the new run's cards for the timeline."""
        self.diff = diff
        renumbered = {c.number: as_new_run_card(c) for c in new_cards}
        base_by_number = {c.number: c for c in self.base_cards}
        self.pairs = [CardPair(base_by_number[c.base_number], renumbered[c.new_number]) for c in diff.cards
                      if c.base_number in base_by_number and c.new_number in renumbered]
        paired = {p.new.number for p in self.pairs}
        self.unmatched = [c for c in renumbered.values() if c.number not in paired]
        names = self._new_names() or "the new run"
        self.header.setText(f"Base: {self.base_name} ({len(self.base_cards)} card(s)) · New: {names} "
                            f"({len(renumbered)} card(s)). Change = new − base; red: the new run takes "
                            "longer, green: less. Bars: grey base, blue new."
                            + "".join(f"\n{m.item} changed on its own: {m.reason}." for m in diff_marks(diff)))
        notes = list(diff.notes)
        if not diff.cards:
            notes.insert(0, "no card of the new run matches a card of the base run: nothing to compare card "
                         "by card")
        self.notes.setText("Differences in shape: " + "; ".join(notes) if notes else "")
        self.notes.setVisible(bool(notes))
        self._show_cards()
        self.operators_model.set_rows(name_records(diff.operators))
        self.operators_page.set_diff(diff)
        self.communication_model.set_rows(name_records(diff.communication))
        self.links_model.set_rows(link_records(diff.links))
        for table in (self.operators_table, self.communication_table, self.links_table):
            table.horizontalHeader().setSortIndicator(-1, QtCore.Qt.SortOrder.DescendingOrder)  # as given
            table.resizeColumnsToContents()
        self.step.clear()
        for position in range(step_count(self.pairs)):
            self.step.addItem(step_label(self.pairs, position), position)
        self._set_enabled(True)
        self.show_button.setEnabled(bool(self.pairs or self.unmatched))
        self.parts.setTabText(1, f"Operators ({sum(1 for o in diff.operators if o.changed)} changed)")
        self.parts.setTabText(2, f"Communication ({sum(1 for o in diff.communication if o.changed)} changed)")
        self.parts.setTabText(3, f"Links ({sum(1 for x in diff.links if x.changed)} changed)")
        self._show_framework(diff)

    def _show_framework(self, diff: RunDiff | None) -> None:
        """The Framework operators page, there only when the runs have framework operators (PyTorch's)."""
        shown = self.parts.indexOf(self.framework)
        if diff is None or not diff.framework_operators:
            if shown >= 0:
                self.parts.removeTab(shown)
            self.framework.show_diff(None)
            return
        self.framework.show_diff(diff)
        title = f"{FRAMEWORK_TITLE} ({len(diff.framework_operators)})"
        if shown < 0:
            self.parts.addTab(self.framework, title)
        else:
            self.parts.setTabText(shown, title)

    def ordered_cards(self) -> list[CardDelta]:
        """The matched cards in the chosen order: the diff's (the card whose own compute or step
        interval changed most first) or by rank."""
        if self.diff is None:
            return []
        cards = list(self.diff.cards)
        if self.card_order.currentData() == BY_RANK and self.base_session is not None:
            position = {number: i for i, number in enumerate(self.base_session.order)}
            cards.sort(key=lambda c: position.get(c.base_number, len(position)))
        return cards

    def _show_cards(self) -> None:
        """The paired bars and the card table, cards in the chosen order."""
        if self.diff is None:
            return
        cards, phases = self.ordered_cards(), self.diff.phase_keys
        self.bars.set_rows([PhaseValues(card_label(c), k, c.base.get(k), c.new.get(k)) for c in cards for k in phases])
        self.cards_model.set_rows(card_records(cards, phases), card_columns(phases))
        self.cards_table.horizontalHeader().setSortIndicator(-1, QtCore.Qt.SortOrder.DescendingOrder)  # as given
        self.cards_table.resizeColumnsToContents()

    def _drop_comparison(self, keep_job: bool = False) -> None:
        if not keep_job:
            self.jobs.supersede(COMPARE)  # its late results are of the data set before
        self.diff = None
        self.pairs, self.unmatched = [], []
        self.header.setText(HINT)
        self.notes.hide()
        self.bars.set_rows([])
        for model in (self.cards_model, self.operators_model, self.communication_model, self.links_model):
            model.set_rows([])
        self.operators_page.set_diff(None)
        for k, title in enumerate(PART_TITLES):  # the counts were the dropped comparison's
            self.parts.setTabText(k, title)
        self._show_framework(None)
        self.step.clear()
        self._set_enabled(False)

    # ------------------------------------------------------------------ to the timeline
    def chosen_step(self) -> int:
        data = self.step.currentData()
        return int(data) if data is not None else 0

    def show_on_timeline(self, position: int | None = None) -> bool:
        """Both runs on the timeline, aligned at step ``position`` (default: the selector's)."""
        if self.cluster_tab is None or self.diff is None:
            return False
        if position is None:
            position = self.chosen_step()
        elif self.step.findData(position) >= 0:
            self.step.setCurrentIndex(self.step.findData(position))
        return show_both_runs(self.cluster_tab, self.pairs, self.unmatched, position, self.lane_by_lane.isChecked())

    def open_operator(self, row: int) -> int:
        """Both runs at the chosen step with operator ``row``'s slices highlighted in each; how many."""
        if not 0 <= row < len(self.operators_model.rows) or not self.show_on_timeline():
            return 0
        return highlight_in_both(self.cluster_tab.timeline, self.operators_model.rows[row]["name"],
                                 self.chosen_step())
