"""The Compare tab's Operators page: the compute operators base → new by op type, or by (op type, input shapes),
above the same by node name, kept as a detail (a node's name can change between graph builds; its op type does
not, metrics.md §7.1, §9)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore, QtWidgets

from timelineview.analysis.diff.run_diff import RunDiff
from timelineview.views.analysis_tabs.compare.delta_tables import (
    OP_SHAPE_COLUMNS,
    OP_TYPE_COLUMNS,
    DeltaTableModel,
    name_records,
)

BY_OP_TYPE, BY_SHAPE = "op_type", "shape"
GROUPINGS = ((BY_OP_TYPE, "op type"), (BY_SHAPE, "op type and input shapes"))
NAMES_TITLE = "By node name (a detail: node names can change between graph builds)"
TYPES_SHARE, NAMES_SHARE = 3, 2  # of the page's height


class OperatorsPage(QtWidgets.QWidget):
    """A grouping choice, the op-type table and, under it, ``names_table`` (the diff's ``operators``)."""

    def __init__(self, names_table: QtWidgets.QTableView,
                 make_table: Callable[[DeltaTableModel], QtWidgets.QTableView],
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.diff: RunDiff | None = None
        self.grouping = QtWidgets.QComboBox()
        for key, text in GROUPINGS:
            self.grouping.addItem(text, key)
        self.grouping.setToolTip("Group the compute tasks of the matched cards by op type, or by op type and "
                                 "input shapes (as kernel_details.csv and the database describe them)")
        self.grouping.currentIndexChanged.connect(lambda *_: self._show())
        self.types_model = DeltaTableModel(OP_TYPE_COLUMNS, self)
        self.types_table = make_table(self.types_model)
        bar = QtWidgets.QHBoxLayout()
        bar.addWidget(QtWidgets.QLabel("By"))
        bar.addWidget(self.grouping)
        bar.addStretch(1)
        names = QtWidgets.QWidget()
        names_lay = QtWidgets.QVBoxLayout(names)
        names_lay.setContentsMargins(0, 0, 0, 0)
        names_lay.addWidget(QtWidgets.QLabel(NAMES_TITLE))
        names_lay.addWidget(names_table, 1)
        split = QtWidgets.QSplitter(QtCore.Qt.Orientation.Vertical)
        split.addWidget(self.types_table)
        split.addWidget(names)
        split.setStretchFactor(0, TYPES_SHARE)
        split.setStretchFactor(1, NAMES_SHARE)
        lay = QtWidgets.QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(bar)
        lay.addWidget(split, 1)

    def set_diff(self, diff: RunDiff | None) -> None:
        """Show the op types of ``diff`` (None: nothing)."""
        self.diff = diff
        self._show()

    def _show(self) -> None:
        if self.diff is None:
            self.types_model.set_rows([])
            return
        by_shape = self.grouping.currentData() == BY_SHAPE
        rows = self.diff.op_shapes if by_shape else self.diff.op_types
        self.types_model.set_rows(name_records(rows), OP_SHAPE_COLUMNS if by_shape else OP_TYPE_COLUMNS)
        self.types_table.horizontalHeader().setSortIndicator(-1, QtCore.Qt.SortOrder.DescendingOrder)  # as given
        self.types_table.resizeColumnsToContents()
