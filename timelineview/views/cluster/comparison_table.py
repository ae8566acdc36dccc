"""ComparisonTableModel: one row per card of an analysis ``ClusterComparison``, sortable by any column.

Slow cards are marked where the user looks: the card name turns red and bold, the cell of the
metric that flagged it is tinted, and both tooltips say by how much it exceeds the median.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.analysis.cluster.comparison import (
    COUNT,
    FLOPS,
    MB,
    OFFSET,
    RATIO,
    TEXT,
    TIME,
    Column,
    memory_flag_text,
    slow_text,
    sort_rows,
)
from timelineview.analysis.vocabulary.flops_units import flops_unit
from timelineview.analysis.vocabulary.number_text import format_number
from timelineview.views.sort_arrows import conventional_sort_arrows

SLOW_TEXT = QtGui.QColor(200, 45, 40)
SLOW_TEXT_DARK = QtGui.QColor(245, 110, 95)  # the same red, readable on a dark base
SLOW_CELL = QtGui.QColor(225, 85, 70, 80)  # translucent: readable on light and dark bases
SLOW_ROW = QtGui.QColor(225, 85, 70, 22)
ROLE = QtCore.Qt.ItemDataRole


def slow_text_colour(palette: QtGui.QPalette | None = None) -> QtGui.QColor:
    base = (palette or QtWidgets.QApplication.palette()).color(QtGui.QPalette.ColorRole.Base)
    return SLOW_TEXT_DARK if base.lightness() < 128 else SLOW_TEXT


def time_unit(rows: list[dict]) -> tuple[float, str]:
    """µs per display unit: ms when steps last a millisecond or more, else µs."""
    steps = sorted(r["step_time_us"] for r in rows if r.get("step_time_us") is not None)
    return (1000.0, "ms") if steps and steps[len(steps) // 2] >= 1000.0 else (1.0, "µs")


def cell_text(col: Column, value, div: float, per_step: bool, flops_div: float = 1e12) -> str:
    if value is None:
        return "—"
    if col.kind == TIME:  # the window's one number format (grouped digits, three decimals), in ms or µs
        return format_number(value / div)
    if col.kind == OFFSET:
        return format_number(value, sign=True)
    if col.kind == RATIO:
        return f"{value * 100:.1f} %"
    if col.kind == COUNT:
        return format_number(int(round(value))) if per_step else format_number(value)
    if col.kind == MB:
        return format_number(value)
    if col.kind == FLOPS:
        return format_number(value / flops_div)
    return str(value)


def header_text(col: Column, unit: str) -> str:
    """Two lines, the unit on the second; long titles break before their last word to keep columns narrow."""
    if col.kind == TEXT:
        return col.title
    head, _, last = col.title.rpartition(" ")
    if unit and head and len(col.title) > 9:
        return f"{head}\n{last} {unit}"
    return f"{col.title}\n{unit}"


class ComparisonTableModel(QtCore.QAbstractTableModel):
    """Rows of ``ClusterComparison.rows(step)``; ``sort`` re-orders the rows themselves."""

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.rows: list[dict] = []
        self.columns: tuple[Column, ...] = ()
        self.div, self.unit = 1000.0, "ms"
        self.flops_div, self.flops_unit = flops_unit(())
        self.sort_key = "card"
        self.descending = False

    def set_rows(self, rows: list[dict], columns: tuple[Column, ...]) -> None:
        self.beginResetModel()
        self.columns = columns
        self.div, self.unit = time_unit(rows)
        self.flops_div, self.flops_unit = flops_unit(r.get("flops") for r in rows)
        self.rows = sort_rows(rows, self.sort_key, self.descending)
        self.endResetModel()

    def row_dict(self, row: int) -> dict:
        return self.rows[row]

    def row_of_card(self, number: int) -> int:
        return next((i for i, r in enumerate(self.rows) if r["number"] == number), -1)

    # ------------------------------------------------------------------ Qt model
    def rowCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns)

    def headerData(self, section: int, orientation: QtCore.Qt.Orientation, role: int = 0):
        if orientation != QtCore.Qt.Orientation.Horizontal or section >= len(self.columns):
            return None
        col = self.columns[section]
        if role == ROLE.DisplayRole:
            return header_text(col, {TIME: self.unit, OFFSET: "µs", COUNT: "per step", MB: "MB",
                                      FLOPS: self.flops_unit}.get(col.kind, ""))
        if role == ROLE.ToolTipRole:
            return col.tooltip
        if role == ROLE.TextAlignmentRole:
            side = QtCore.Qt.AlignmentFlag.AlignLeft if col.kind == TEXT else QtCore.Qt.AlignmentFlag.AlignRight
            return int(side | QtCore.Qt.AlignmentFlag.AlignVCenter)
        return None

    def data(self, index: QtCore.QModelIndex, role: int = 0):
        if not index.isValid():
            return None
        r = self.rows[index.row()]
        col = self.columns[index.column()]
        flagged = [f for f in r["slow"] + r.get("memory_flags", []) if f["metric"] == col.key]
        if role == ROLE.DisplayRole:
            if col.key == "card":
                return r["card"] + ("  ▲" if r["slow"] else "") + ("  (no data)" if r["error"] else "")
            return cell_text(col, r.get(col.key), self.div, r["step"] is not None or bool(r.get("window")),
                             self.flops_div)
        if role == ROLE.ToolTipRole:
            return self._tooltip(r, col)
        if role == ROLE.ForegroundRole:
            if col.key == "card" and r["slow"]:
                return slow_text_colour()
            if r["error"]:
                return QtWidgets.QApplication.palette().color(QtGui.QPalette.ColorRole.PlaceholderText)
            return None
        if role == ROLE.BackgroundRole:
            return SLOW_CELL if flagged else (SLOW_ROW if r["slow"] else None)
        if role == ROLE.FontRole and (flagged or (col.key == "card" and r["slow"])):
            font = QtGui.QFont()
            font.setBold(True)
            return font
        if role == ROLE.TextAlignmentRole and col.kind != TEXT:
            return int(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        if role == ROLE.UserRole:
            return r.get(col.key)
        return None

    def _tooltip(self, r: dict, col: Column) -> str:
        if r["error"]:
            return f"{r['card']}: {r['error']}"
        if col.key == "card":
            shown = (f"{r['window']} (no step markers)" if r.get("window") else
                     f"mean over {r['steps']} steps" if r["step"] is None else f"step {r['step']}")
            lines = [f"{r['card']}: {shown}"]
            lines += [f"slow — {slow_text(f)}" for f in r["slow"]]
            lines += [f"memory — {memory_flag_text(f)}" for f in r.get("memory_flags", [])]
            lines.append("double-click: its timeline at step " + str(r["drill_step"]))
            return "\n".join(lines)
        value = r.get(col.key)
        text = f"{col.title}: " + ("—" if value is None else
                                   f"{value:.3f} µs" if col.kind in (TIME, OFFSET) else
                                   f"{value:.3f} MB" if col.kind == MB else
                                   f"{value / self.flops_div:.6g} {self.flops_unit}" if col.kind == FLOPS else
                                   f"{value:.4g}")
        flags = [f"slow — {slow_text(f)}" for f in r["slow"] if f["metric"] == col.key]
        flags += [f"memory — {memory_flag_text(f)}" for f in r.get("memory_flags", []) if f["metric"] == col.key]
        return "\n".join([text, *flags])

    def sort(self, column: int, order: QtCore.Qt.SortOrder = QtCore.Qt.SortOrder.AscendingOrder) -> None:
        if column >= len(self.columns):
            return
        self.sort_key = self.columns[column].key
        self.descending = order == QtCore.Qt.SortOrder.DescendingOrder
        self.layoutAboutToBeChanged.emit()
        self.rows = sort_rows(self.rows, self.sort_key, self.descending)
        self.layoutChanged.emit()


FIT_ROWS = 100  # rows a column's width is fitted to (Qt's default, 1000, made 4096 cards open in seconds)


class ComparisonTable(QtWidgets.QTableView):
    """The table view: whole-row selection, sortable headers, double-click to drill down."""

    cardActivated = QtCore.Signal(int)  # card number

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.model_ = ComparisonTableModel(self)
        self.setModel(self.model_)
        self.setSortingEnabled(True)
        conventional_sort_arrows(self)
        self.sortByColumn(0, QtCore.Qt.SortOrder.AscendingOrder)
        self.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setAlternatingRowColors(True)
        self.setWordWrap(False)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        header = self.horizontalHeader()
        header.setDefaultAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        header.setHighlightSections(False)
        header.setResizeContentsPrecision(FIT_ROWS)  # column widths from the first rows: thousands of cards
        header.sortIndicatorChanged.connect(lambda *_: self.fit_columns())
        self.doubleClicked.connect(lambda ix: self.cardActivated.emit(self.model_.row_dict(ix.row())["number"]))

    def set_rows(self, rows: list[dict], columns: tuple[Column, ...]) -> None:
        self.model_.set_rows(rows, columns)
        self.fit_columns()

    def fit_columns(self) -> None:
        """Columns as wide as their content, spare width shared out so the table spans the view."""
        header = self.horizontalHeader()
        n = len(self.model_.columns)
        if not n:
            return
        header.setStretchLastSection(False)
        fm = header.fontMetrics()
        titles = [str(self.model_.headerData(i, QtCore.Qt.Orientation.Horizontal)).split("\n") for i in range(n)]
        # the style's own hint reserves room for a sort arrow on every column; only one shows it
        widths = [max(self.sizeHintForColumn(i), max(fm.horizontalAdvance(t) for t in titles[i]) + 14) + 10
                  for i in range(n)]
        sorted_col = header.sortIndicatorSection()
        if 0 <= sorted_col < n:
            widths[sorted_col] += 16
        spare = self.viewport().width() - sum(widths)
        for i, w in enumerate(widths):
            header.setSectionResizeMode(i, QtWidgets.QHeaderView.ResizeMode.Interactive)
            header.resizeSection(i, w + max(spare, 0) // n)

    def resizeEvent(self, ev: QtGui.QResizeEvent) -> None:
        super().resizeEvent(ev)
        self.fit_columns()

    def selected_cards(self) -> list[int]:
        """Card numbers of the selected rows, in table order."""
        rows = sorted({ix.row() for ix in self.selectionModel().selectedRows()})
        return [self.model_.row_dict(r)["number"] for r in rows]

    def select_card(self, number: int) -> None:
        self.select_cards([number])

    def select_cards(self, numbers: list[int]) -> None:
        """Select the rows of these cards (only them) and scroll to the first."""
        rows = [r for r in (self.model_.row_of_card(n) for n in numbers) if r >= 0]
        selection = QtCore.QItemSelection()
        for r in rows:
            selection.select(self.model_.index(r, 0), self.model_.index(r, self.model_.columnCount() - 1))
        flags = QtCore.QItemSelectionModel.SelectionFlag
        self.selectionModel().select(selection, flags.ClearAndSelect | flags.Rows)
        if rows:
            self.scrollTo(self.model_.index(rows[0], 0))
