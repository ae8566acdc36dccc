"""ShortcutSheet: the `?` overview of keys and mouse gestures."""

from __future__ import annotations

import re

from PySide6 import QtCore, QtWidgets

SHORTCUTS = (
    ("W / S", "zoom in / out at the mouse (view centre when it is outside); hold to go faster"),
    ("A / D", "pan left / right; hold to go faster (by key position: AZERTY works too)"),
    ("Wheel, Ctrl+Wheel", "zoom around the mouse"),
    ("Shift+Wheel", "scroll lanes up / down"),
    ("Drag on the ruler, right or middle drag", "pan"),
    ("Click", "select a slice (Steps / derived lanes: select that window)"),
    ("Double-click", "select a slice and fit it"),
    ("Drag across lanes", "select an area: overlap statistics and per-name table"),
    ("← / →", "previous / next slice on the selected slice's row"),
    ("↑ / ↓", "slice on the row above / below"),
    ("F", "fit the selection"),
    ("0", "show everything"),
    ("Backspace", "undo the last zoom / pan"),
    ("M", "mark the selection's time span (again to remove)"),
    ("Esc", "clear the selection"),
    ("Ctrl+F", "search slice names; Enter / Shift+Enter: next / previous match"),
    ("Enter / Shift+Enter", "next / previous highlighted slice (search matches, or a per-name row's slices)"),
    ("Double-click a per-name row", "highlight that name's slices in the area and select the first"),
    ("Ctrl+L", "the lane filter of a cluster: one kind of lane across all cards (All lanes: every lane)"),
    ("Ctrl+O / Ctrl+Shift+O", "open a trace file / folder (or drop it on the window)"),
    ("Ctrl+Q", "quit (a running load is cancelled)"),
    ("?", "this sheet"),
)


_TAB_KEY = re.compile(r"(?:^|\()(Ctrl\+\d)\)?$")


def tab_shortcuts(tabs: QtWidgets.QTabWidget | None) -> list[tuple[str, str]]:
    """(key, action) of each tab whose tooltip names its key ("… (Ctrl+3)" or just "Ctrl+1")."""
    rows = []
    for i in range(tabs.count() if tabs is not None else 0):
        m = _TAB_KEY.search(tabs.tabToolTip(i).strip())
        if m:
            rows.append((m.group(1), f"the {tabs.tabText(i)} tab"))
    return rows


class ShortcutSheet(QtWidgets.QDialog):
    """A small non-modal table of every shortcut (those of ``tabs`` read from their tooltips)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None, tabs: QtWidgets.QTabWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard and mouse")
        self.rows = list(SHORTCUTS) + tab_shortcuts(tabs)
        table = QtWidgets.QTableWidget(len(self.rows), 2)
        table.setHorizontalHeaderLabels(["Keys", "Action"])
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.NoSelection)
        table.setWordWrap(False)
        table.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
        for r, (keys, action) in enumerate(self.rows):
            k = QtWidgets.QTableWidgetItem(keys)
            f = k.font()
            f.setBold(True)
            k.setFont(f)
            table.setItem(r, 0, k)
            table.setItem(r, 1, QtWidgets.QTableWidgetItem(action))
        table.resizeColumnsToContents()
        table.resizeRowsToContents()
        table.horizontalHeader().setStretchLastSection(True)
        width = sum(table.columnWidth(c) for c in range(2)) + 40
        height = sum(table.rowHeight(r) for r in range(len(self.rows))) + table.horizontalHeader().height() + 70
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(table)
        lay.addWidget(buttons)
        self.resize(max(width, 600), height)
        self.setWindowModality(QtCore.Qt.WindowModality.NonModal)
