"""Esc out of a menu gives the keys back to the timeline: the arrow keys then move on the timeline, not
along the menu bar."""

from __future__ import annotations

from PySide6 import QtCore, QtWidgets


def _open_menu(qtbot, window, title: str) -> QtWidgets.QMenu:
    bar = window.menuBar()
    action = next(a for a in bar.actions() if a.text() == title)
    qtbot.mouseClick(bar, QtCore.Qt.MouseButton.LeftButton, pos=bar.actionGeometry(action).center())
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activePopupWidget() is action.menu())
    return action.menu()


def test_esc_out_of_a_menu_gives_the_arrow_keys_back_to_the_timeline(qtbot, window):
    window.cluster.tabs.setCurrentIndex(0)
    window.activateWindow()
    window.timeline.setFocus()
    qtbot.waitUntil(lambda: QtWidgets.QApplication.focusWidget() is window.timeline)
    menu = _open_menu(qtbot, window, "&View")
    qtbot.keyClick(menu, QtCore.Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activePopupWidget() is None)
    QtWidgets.QApplication.processEvents()  # what the closing menu left queued
    window.activateWindow()  # as a desktop does when a popup closes (the offscreen platform does not)
    qtbot.waitUntil(lambda: QtWidgets.QApplication.activeWindow() is window)
    bar = window.menuBar()
    assert bar.activeAction() is None  # no menu title is left highlighted for the arrows to walk
    focus = QtWidgets.QApplication.focusWidget()
    assert focus is window.timeline or window.timeline.isAncestorOf(focus), focus
    qtbot.keyClick(focus, QtCore.Qt.Key.Key_Right)
    qtbot.keyClick(focus, QtCore.Qt.Key.Key_Down)
    assert QtWidgets.QApplication.activePopupWidget() is None and bar.activeAction() is None
