"""ColumnChoice: which columns of an analysis table are shown, chosen from a menu that lists them all.

A wide table keeps its less used columns hidden until asked for, so that the rest reads without scrolling
sideways; the menu (the header's context menu, and a button beside the table) names every column by its
full title, so no figure is out of reach. Columns with nothing to show in the current rows (all dashes)
are hidden whatever was chosen and listed greyed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6 import QtCore, QtWidgets

from timelineview.views.analysis_tabs.record_table import RecordTableModel

COLUMNS_BUTTON = "Columns…"
EMPTY_NOTE = " (nothing to show here)"


class ColumnChoice(QtCore.QObject):
    """The shown columns of ``table`` (over ``model``), by column key: those in ``hidden_by_default`` start
    hidden; the user's choice holds across row and column changes (e.g. another scope of the same tab).
    ``refit`` runs after a column is shown, to size it."""

    def __init__(self, table: QtWidgets.QTableView, model: RecordTableModel,
                 hidden_by_default: Iterable[str] = (), refit: Callable[[], None] | None = None) -> None:
        super().__init__(table)
        self.table, self.model = table, model
        self.hidden_by_default = frozenset(hidden_by_default)
        self.refit = refit
        self.chosen: dict[str, bool] = {}  # column key -> shown, as the user chose
        self.empty: frozenset[str] = frozenset()
        header = table.horizontalHeader()
        header.setContextMenuPolicy(QtCore.Qt.ContextMenuPolicy.CustomContextMenu)
        header.customContextMenuRequested.connect(lambda pos: self._pop_up(header.mapToGlobal(pos)))

    def is_shown(self, key: str) -> bool:
        """Whether the column ``key`` is to be shown (as chosen, else by default), unless it is empty."""
        return key not in self.empty and self.chosen.get(key, key not in self.hidden_by_default)

    def apply(self, empty: Iterable[str] | None = None) -> None:
        """Show and hide the model's columns; ``empty`` (when given) names the columns with nothing to show."""
        if empty is not None:
            self.empty = frozenset(empty)
        for k, column in enumerate(self.model.columns):
            self.table.setColumnHidden(k, not self.is_shown(column.key))

    def set_shown(self, key: str, shown: bool) -> None:
        """The user's choice for column ``key``."""
        self.chosen[key] = shown
        self.apply()
        if shown and self.refit is not None:
            self.refit()

    def menu(self) -> QtWidgets.QMenu:
        """Every column of the model by its full title, checked when shown."""
        menu = QtWidgets.QMenu(self.table)
        menu.setToolTipsVisible(True)
        for column in self.model.columns:
            empty = column.key in self.empty
            action = menu.addAction(column.title + (EMPTY_NOTE if empty else ""))
            action.setCheckable(True)
            action.setChecked(self.is_shown(column.key))
            action.setEnabled(not empty)
            action.setToolTip(column.tooltip)
            action.setData(column.key)
            action.toggled.connect(lambda shown, key=column.key: self.set_shown(key, shown))
        return menu

    def button(self) -> QtWidgets.QPushButton:
        """A button that opens the menu (the header's right-click does too)."""
        button = QtWidgets.QPushButton(COLUMNS_BUTTON)
        button.setToolTip("show or hide the table's columns (also: right-click its header)")
        button.clicked.connect(lambda: self._pop_up(button.mapToGlobal(QtCore.QPoint(0, button.height()))))
        return button

    def _pop_up(self, at: QtCore.QPoint) -> None:
        menu = self.menu()
        menu.exec(at)
        menu.deleteLater()
