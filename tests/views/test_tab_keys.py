"""Ctrl+1 … Ctrl+9 and Ctrl+0 open the tabs in the order the tab bar shows them, and each tab's tooltip names
its key."""

from __future__ import annotations

from PySide6 import QtCore


def test_each_ctrl_digit_opens_the_tab_at_that_place(qtbot, window):
    tabs = window.cluster.tabs
    titles = [tabs.tabText(i) for i in range(tabs.count())]
    assert titles[:3] == ["Timeline", "Cluster comparison", "Heat map"]
    assert len(titles) <= 10  # every tab has a key (the tenth: Ctrl+0)
    window.activateWindow()
    for index in reversed(range(tabs.count())):  # from the last, so no key lands on the tab already shown
        digit = (index + 1) % 10
        qtbot.keyClick(window, QtCore.Qt.Key(QtCore.Qt.Key.Key_0 + digit), QtCore.Qt.KeyboardModifier.ControlModifier)
        assert tabs.currentIndex() == index, f"Ctrl+{digit} opened {tabs.tabText(tabs.currentIndex())}"
        assert tabs.tabToolTip(index).endswith(f"Ctrl+{digit}") or tabs.tabToolTip(index).endswith(f"(Ctrl+{digit})")


def test_the_shortcut_sheet_names_the_heat_maps_key(qtbot, window):
    window.show_shortcuts()
    assert ("Ctrl+3", "the Heat map tab") in window.sheet.rows
