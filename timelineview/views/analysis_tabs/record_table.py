"""RecordTableModel: rows of plain records (dicts) under named columns, sortable by any column; and the
small widget helpers the analysis tabs share."""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from PySide6 import QtCore, QtGui, QtWidgets

from timelineview.views.sort_arrows import conventional_sort_arrows
from timelineview.viewstate.time_format import format_duration

TEXT, COUNT, TIME_US, SHARE, RATIO = "text", "count", "time_us", "share", "ratio"
NUMBER = "number"  # a plain quantity shown with two decimals (TFLOPS)
FIT_ROWS = 50  # rows a column's width is fitted to (every row of thousands costs the GUI seconds)
HEADER_PADDING = 14  # px around a header's text (the style's margins)
ARROW_ROOM = 16  # px a header's sort arrow takes beside its text
RIGHT = int(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
MARKED = "marked"  # a record's optional set of column keys whose cells stand out (bold, tinted)
MARK_REASON = "mark_reason"  # a record's optional words for why its cells are marked: their tooltip
MARKED_CELL = QtGui.QColor(225, 85, 70, 80)  # the comparison table's slow-cell tint: readable on light and dark


@dataclass(frozen=True)
class RecordColumn:
    """One column: the record key, its title, how to show the value, the header's tooltip, and optionally a
    shorter header (a line break splits it in two) whose tooltip then leads with the full title."""

    key: str
    title: str
    kind: str
    tooltip: str = ""
    header: str = ""

    @property
    def header_text(self) -> str:
        """What the header shows: the short header if any, else the title."""
        return self.header or self.title

    @property
    def header_tooltip(self) -> str:
        """The header's tooltip: with a short header, the full title first (bold, the text below it; rich text,
        so a long one wraps), so no title is lost to shortening."""
        if not self.header:
            return self.tooltip
        title = f"<b>{html.escape(self.title)}</b>"
        return f"{title}<br>{html.escape(self.tooltip)}" if self.tooltip else title


def _display(value, kind: str) -> str:
    if value is None:
        return "—"
    if kind == COUNT:
        return f"{int(value):,}".replace(",", " ")
    if kind == TIME_US:
        return format_duration(float(value) * 1000.0)
    if kind == SHARE:
        return f"{100 * float(value):.1f} %"
    if kind == RATIO:
        return f"{float(value):.2f}×"
    if kind == NUMBER:
        return f"{float(value):,.2f}".replace(",", " ")
    return str(value)


class RecordTableModel(QtCore.QAbstractTableModel):
    """The rows are kept in the order shown; sorting reorders them (numbers numerically, None last)."""

    def __init__(self, columns: tuple[RecordColumn, ...], parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.columns = columns
        self.rows: list[dict] = []

    def set_rows(self, rows: list[dict], columns: tuple[RecordColumn, ...] | None = None) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        if columns is not None:
            self.columns = columns
        self.endResetModel()

    def rowCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QtCore.QModelIndex = QtCore.QModelIndex()) -> int:  # noqa: B008
        return len(self.columns)

    def headerData(self, section: int, orientation: QtCore.Qt.Orientation, role: int = 0):
        if orientation != QtCore.Qt.Orientation.Horizontal:
            return None
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            return self.columns[section].header_text
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            return self.columns[section].header_tooltip or None
        return None

    def data(self, index: QtCore.QModelIndex, role: int = 0):
        if not index.isValid():
            return None
        col = self.columns[index.column()]
        value = self.rows[index.row()].get(col.key)
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            return _display(value, col.kind)
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            text = f"{value:.3f} µs" if col.kind == TIME_US and value is not None else str(value)
            row = self.rows[index.row()]
            marked = col.key in row.get(MARKED, ()) and row.get(MARK_REASON)
            return f"{text}\nmarked: {row[MARK_REASON]}" if marked else text
        if role == QtCore.Qt.ItemDataRole.TextAlignmentRole and col.kind != TEXT:
            return RIGHT
        if role in (QtCore.Qt.ItemDataRole.FontRole, QtCore.Qt.ItemDataRole.BackgroundRole):
            if col.key not in self.rows[index.row()].get(MARKED, ()):
                return None
            if role == QtCore.Qt.ItemDataRole.BackgroundRole:
                return QtGui.QBrush(MARKED_CELL)
            font = QtGui.QFont()
            font.setBold(True)
            return font
        if role == QtCore.Qt.ItemDataRole.UserRole:  # what sorting compares: plain Python numbers
            return value.item() if hasattr(value, "item") else value
        return None

    def sort(self, column: int, order: QtCore.Qt.SortOrder = QtCore.Qt.SortOrder.AscendingOrder) -> None:
        key = self.columns[column].key
        descending = order == QtCore.Qt.SortOrder.DescendingOrder
        present = [r for r in self.rows if r.get(key) is not None]
        missing = [r for r in self.rows if r.get(key) is None]
        self.layoutAboutToBeChanged.emit()
        self.rows = sorted(present, key=lambda r: r[key], reverse=descending) + missing
        self.layoutChanged.emit()

    def to_csv(self) -> str:
        """The rows in their shown order, raw values (µs, shares as fractions)."""
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow([c.key for c in self.columns])
        for r in self.rows:
            writer.writerow(["" if r.get(c.key) is None else r.get(c.key) for c in self.columns])
        return out.getvalue()


def sortable_table(model: RecordTableModel, parent: QtCore.QObject
                   ) -> tuple[QtCore.QSortFilterProxyModel, QtWidgets.QTableView]:
    """A proxy that sorts ``model``'s rows by their raw values (not their text) and filters on the first
    column, case-insensitively, and a row-selecting table view on it."""
    proxy = QtCore.QSortFilterProxyModel(parent)
    proxy.setSourceModel(model)
    proxy.setSortRole(QtCore.Qt.ItemDataRole.UserRole)
    proxy.setFilterCaseSensitivity(QtCore.Qt.CaseSensitivity.CaseInsensitive)
    proxy.setFilterKeyColumn(0)
    table = QtWidgets.QTableView()
    table.setModel(proxy)
    table.setSortingEnabled(True)
    conventional_sort_arrows(table)
    table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
    table.setAlternatingRowColors(True)
    table.verticalHeader().hide()
    header = table.horizontalHeader()
    header.setResizeContentsPrecision(FIT_ROWS)
    header.sortIndicatorChanged.connect(lambda section, _order: _make_room_for_arrow(table, section))
    return proxy, table


def fitted_width(table: QtWidgets.QTableView, column: int, widest: int | None = None) -> int:
    """The width column ``column`` needs for its header and first rows, at most ``widest`` (its cells then
    elide; their tooltips hold the whole text). Only the sorted column keeps room for the sort arrow: the
    style's own hint reserves it on every column, which makes a wide table scroll for arrows never drawn."""
    header = table.horizontalHeader()
    title = str(table.model().headerData(column, QtCore.Qt.Orientation.Horizontal) or "")
    label = max(header.fontMetrics().horizontalAdvance(line) for line in title.split("\n")) + HEADER_PADDING
    arrow = ARROW_ROOM if header.isSortIndicatorShown() and header.sortIndicatorSection() == column else 0
    width = max(table.sizeHintForColumn(column), label + arrow)
    return width if widest is None else min(width, max(widest, label + arrow))


def _make_room_for_arrow(table: QtWidgets.QTableView, section: int) -> None:
    """Widen a newly sorted column whose header would otherwise elide beside its arrow."""
    header = table.horizontalHeader()
    if 0 <= section < header.count():
        header.resizeSection(section, max(header.sectionSize(section), fitted_width(table, section)))


def fit_columns(table: QtWidgets.QTableView, alike_from: int | None = None, widest: int | None = None,
                spread: int = 0, name_column: int | None = None) -> None:
    """Fit the columns to their header and first rows (at most ``widest`` px each); columns from ``alike_from``
    on (many columns of one kind, e.g. one per card) all take the width fitted for the first of them. Up to
    ``spread`` px more each where the view has width to spare: room between the figures. Width to spare goes
    first to ``name_column`` (the names a user reads), up to what its whole names need."""
    header = table.horizontalHeader()
    count = header.count()
    last = count if alike_from is None else min(alike_from + 1, count)
    for c in range(last):
        header.resizeSection(c, fitted_width(table, c, widest))
    if alike_from is not None and alike_from < count:
        width = header.sectionSize(alike_from)
        for c in range(alike_from + 1, count):
            header.resizeSection(c, width)
    shown = [c for c in range(count) if not header.isSectionHidden(c)]
    if name_column is not None and name_column in shown:
        _widen_names(table, shown, name_column)
    spare = table.viewport().width() - sum(header.sectionSize(c) for c in shown)
    if spread > 0 and shown and spare > 0:
        more = min(spread, spare // len(shown))
        for c in shown:
            header.resizeSection(c, header.sectionSize(c) + more)


def _widen_names(table: QtWidgets.QTableView, shown: list[int], column: int) -> None:
    """Give ``column`` the width the view has to spare, up to its whole names' (a stretched last section counts
    at its fitted width: the width it stretches over is the spare)."""
    header = table.horizontalHeader()
    last = shown[-1]
    stretched = header.stretchLastSection() and last != column
    used = sum(fitted_width(table, c) if stretched and c == last else header.sectionSize(c) for c in shown)
    spare = table.viewport().width() - used
    if spare > 0:
        whole = fitted_width(table, column)
        header.resizeSection(column, max(header.sectionSize(column), min(whole, header.sectionSize(column) + spare)))


class RefitOnResize(QtCore.QObject):
    """Runs ``fit`` when the table's viewport changes width (the window resized, a splitter moved)."""

    def __init__(self, table: QtWidgets.QTableView, fit: Callable[[], None]) -> None:
        super().__init__(table)
        self.fit, self.width = fit, table.viewport().width()
        table.viewport().installEventFilter(self)

    def eventFilter(self, watched: QtCore.QObject, event: QtCore.QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QtCore.QEvent.Type.Resize and watched.width() != self.width:
            self.width = watched.width()
            self.fit()
        return False


def refill(box: QtWidgets.QComboBox, items: Iterable[tuple[str, object]]) -> None:
    """Replace a combo box's (label, data) items without emitting a change for each."""
    box.blockSignals(True)
    box.clear()
    for label, data in items:
        box.addItem(label, data)
    box.blockSignals(False)


def ask_and_export_csv(parent: QtWidgets.QWidget, title: str, default_name: str,
                       export: Callable[[Path], None]) -> None:
    """Ask where to save a table as CSV and, unless the user cancels, write it there with ``export``."""
    path, _ = QtWidgets.QFileDialog.getSaveFileName(parent, title, default_name, "CSV (*.csv)")
    if path:
        export(Path(path))
