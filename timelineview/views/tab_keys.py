"""The window's tab keys: Ctrl+1 … Ctrl+9, then Ctrl+0, open the first ten tabs in the order the tab bar shows
them (Ctrl+0 the tenth, as the digit row reads)."""

from __future__ import annotations

from PySide6 import QtGui, QtWidgets

KEYED_TABS = 10  # Ctrl+1 … Ctrl+9, Ctrl+0


def tab_key(index: int) -> str:
    """The key of the tab at ``index`` of the tab bar ('' past the keyed ones)."""
    return f"Ctrl+{(index + 1) % 10}" if 0 <= index < KEYED_TABS else ""


def bind_tab_keys(window: QtWidgets.QWidget, tabs: QtWidgets.QTabWidget) -> list[QtGui.QShortcut]:
    """One shortcut per shown tab, by its position (so a tab added between others moves the keys after it
    rather than leaving one out); each tab's tooltip names its key, where the shortcut sheet reads it."""
    shortcuts = []
    for index in range(min(tabs.count(), KEYED_TABS)):
        key = tab_key(index)
        shortcut = QtGui.QShortcut(QtGui.QKeySequence(key), window)
        shortcut.activated.connect(lambda i=index: tabs.setCurrentIndex(i))
        shortcuts.append(shortcut)
        tip = tabs.tabToolTip(index).strip()
        tabs.setTabToolTip(index, f"{tip} ({key})" if tip else key)
    return shortcuts
