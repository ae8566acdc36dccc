"""The Compare tab's Framework page (metrics.md §13): a PyTorch run against another — an NPU run against
a GPU baseline — as msprof-analyze's ``compare`` shows it: the mean step broken down (computation,
communication, free, host launch overhead) in both runs, and the framework operators matched by name and
input shapes with the device time of what each launched. Every row is the ``RunDiff``'s."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from timelineview.analysis.diff.framework_diff import FrameworkOperatorDelta
from timelineview.analysis.diff.run_diff import RunDiff
from timelineview.analysis.diff.step_breakdown import BREAKDOWN_KEYS, StepBreakdownDiff
from timelineview.analysis.vocabulary import label, quantity
from timelineview.views.analysis_tabs.compare.delta_tables import DeltaTableModel
from timelineview.views.analysis_tabs.record_table import (
    COUNT,
    NUMBER,
    TEXT,
    TIME_US,
    RecordColumn,
    RefitOnResize,
    fit_columns,
)

TITLE = "Framework operators"
BREAKDOWN_TITLES = {"computation_us": "Computation", "communication_us": "Communication (not hidden)",
                    "free_us": "Free", "host_launch_overhead_us": "Host launch overhead"}
# px of the name and shapes columns: a framework operator's name can run to hundreds of characters and would push
# every figure off the page; a longer one elides (its tooltip holds it whole)
TEXT_WIDEST = 320
CHANGE_TIP = "new − base (red: the new run takes longer, green: less)"
BREAKDOWN_COLUMNS = (
    RecordColumn("name", "Mean step", TEXT, "the mean step of each run (over a card's steps, then its cards): "
                 "computation, communication no computation hides, free (neither runs), and the host launch "
                 "overhead: free time ended by device work launched after it began (part of Free)"),
    RecordColumn("delta_us", "Change", TIME_US, CHANGE_TIP),
    RecordColumn("base_us", "Base", TIME_US),
    RecordColumn("new_us", "New", TIME_US),
)
OPERATOR_COLUMNS = (
    RecordColumn("name", "Operator", TEXT),
    RecordColumn("input_shapes", "Input shapes", TEXT, "the shapes of its inputs: operators match by name and shapes; "
                 "those whose shapes find no partner (another batch size, or a run without shapes) by name, "
                 "'by name: base ≠ new'"),
    RecordColumn("delta_us", "Change", TIME_US, CHANGE_TIP + ", device time over the matched cards"),
    RecordColumn("base_us", "Base device time", TIME_US, "the work it launched in the base run"),
    RecordColumn("new_us", "New device time", TIME_US, "the work it launched in the new run"),
    RecordColumn("ratio", label("ratio"), NUMBER, quantity("ratio").tooltip),
    RecordColumn("base_count", label("base_count"), COUNT, "its calls in the base run"),
    RecordColumn("new_count", label("new_count"), COUNT, "its calls in the new run"),
)


def breakdown_records(breakdown: StepBreakdownDiff | None) -> list[dict]:
    """One record per part of the mean step, in the order computation, communication, free, host launch
    overhead."""
    if breakdown is None:
        return []
    delta = breakdown.delta
    return [{"name": BREAKDOWN_TITLES[k], "delta_us": delta[k], "base_us": getattr(breakdown.base, k),
             "new_us": getattr(breakdown.new, k)} for k in BREAKDOWN_KEYS]


def operator_records(rows: list[FrameworkOperatorDelta]) -> list[dict]:
    """One record per framework operator, in the diff's order (in both runs first, by |change|)."""
    return [{"name": r.name, "input_shapes": r.shapes_text(), "delta_us": r.delta_us, "base_us": r.base_device_us,
             "new_us": r.new_device_us, "ratio": r.ratio, "base_count": r.base_count, "new_count": r.new_count}
            for r in rows]


class FrameworkPage(QtWidgets.QWidget):
    """The mean step broken down over the framework operators' table."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.breakdown_model = DeltaTableModel(BREAKDOWN_COLUMNS, self)
        self.operators_model = DeltaTableModel(OPERATOR_COLUMNS, self)
        self.breakdown_table = self._table(self.breakdown_model)
        self.operators_table = self._table(self.operators_model)
        self.operators_table.setSortingEnabled(True)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.breakdown_table)
        lay.addWidget(self.operators_table, 1)
        RefitOnResize(self.operators_table, self._fit_operators)

    @staticmethod
    def _table(model: DeltaTableModel) -> QtWidgets.QTableView:
        table = QtWidgets.QTableView()
        table.setModel(model)
        table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        table.verticalHeader().hide()
        table.setAlternatingRowColors(True)
        return table

    def show_diff(self, diff: RunDiff | None) -> None:
        """The diff's breakdown and framework operators (empty tables without them)."""
        self.breakdown_model.set_rows(breakdown_records(diff.step_breakdown if diff else None))
        self.operators_model.set_rows(operator_records(diff.framework_operators if diff else []))
        for table in (self.breakdown_table, self.operators_table):
            table.horizontalHeader().setSortIndicator(-1, QtCore.Qt.SortOrder.DescendingOrder)  # as given
        self.breakdown_table.resizeColumnsToContents()
        self._fit_operators()
        # the breakdown's few rows whole, the operators below them take the rest
        rows = self.breakdown_table.verticalHeader().length() + self.breakdown_table.horizontalHeader().height()
        self.breakdown_table.setMaximumHeight(rows + 2 * self.breakdown_table.frameWidth())

    def _fit_operators(self) -> None:
        fit_columns(self.operators_table, widest=TEXT_WIDEST, name_column=0)
