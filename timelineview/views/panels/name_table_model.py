"""NameTableModel: the per-name table of an area selection, sortable by any column."""

from __future__ import annotations

from PySide6 import QtCore

from timelineview.viewstate.time_format import format_duration

HEADERS = ("Name", "Count", "Total", "Self", "Average", "Min", "Max")
KEYS = ("name", "count", "total_us", "self_us", "avg_us", "min_us", "max_us")


class NameTableModel(QtCore.QAbstractTableModel):
    """Rows of an analysis ``NameTable``; sorting re-orders the table itself (numpy)."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.table = None
        self.sort_key = "total_us"
        self.descending = True

    def set_table(self, table) -> None:
        self.beginResetModel()
        self.table = table.sorted_by(self.sort_key, self.descending) if table is not None else None
        self.endResetModel()

    def rowCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if self.table is None or parent.isValid() else len(self.table)

    def columnCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:  # noqa: B008
        return len(HEADERS)

    def headerData(self, section: int, orientation: QtCore.Qt.Orientation, role: int = 0):
        if role == QtCore.Qt.ItemDataRole.DisplayRole and orientation == QtCore.Qt.Orientation.Horizontal:
            return HEADERS[section]
        if role == QtCore.Qt.ItemDataRole.ToolTipRole and orientation == QtCore.Qt.Orientation.Horizontal:
            return ("Operator name", "Slices in the window", "Time inside the window",
                    "Total minus direct children", "Total / count", "Shortest", "Longest")[section]
        return None

    def data(self, index: QtCore.QModelIndex, role: int = 0):
        if self.table is None or not index.isValid():
            return None
        key = KEYS[index.column()]
        value = self.table.column(key)[index.row()]
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            if key == "name":
                return value
            if key == "count":
                return f"{int(value):,}".replace(",", " ")
            return format_duration(float(value) * 1000.0)
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            return value if key == "name" else (f"{float(value):.3f} µs" if key != "count" else None)
        if role == QtCore.Qt.ItemDataRole.TextAlignmentRole and key != "name":
            return int(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        if role == QtCore.Qt.ItemDataRole.UserRole:
            return value
        return None

    def sort(self, column: int, order: QtCore.Qt.SortOrder = QtCore.Qt.SortOrder.AscendingOrder) -> None:
        self.sort_key = KEYS[column]
        self.descending = order == QtCore.Qt.SortOrder.DescendingOrder
        if self.table is not None:
            self.layoutAboutToBeChanged.emit()
            self.table = self.table.sorted_by(self.sort_key, self.descending)
            self.layoutChanged.emit()
