"""ShortcutSheet: the `?` overview of keys and mouse gestures."""

from __future__ import annotations

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
    ("Ctrl+O / Ctrl+Shift+O", "open a trace file / folder (or drop it on the window)"),
    ("?", "this sheet"),
)


class ShortcutSheet(QtWidgets.QDialog):
    """A small non-modal table of every shortcut."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard and mouse")
        table = QtWidgets.QTableWidget(len(SHORTCUTS), 2)
        table.setHorizontalHeaderLabels(["Keys", "Action"])
        table.verticalHeader().setVisible(False)
        table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.NoSelection)
        table.setWordWrap(False)
        table.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
        for r, (keys, action) in enumerate(SHORTCUTS):
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
        height = sum(table.rowHeight(r) for r in range(len(SHORTCUTS))) + table.horizontalHeader().height() + 70
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        lay = QtWidgets.QVBoxLayout(self)
        lay.addWidget(table)
        lay.addWidget(buttons)
        self.resize(max(width, 600), height)
        self.setWindowModality(QtCore.Qt.WindowModality.NonModal)
