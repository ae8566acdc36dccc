"""The window's menu bar: File, View and Help, their texts and shortcuts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6 import QtGui, QtWidgets

from timelineview.views.analysis_tabs.compare.open_menu import add_compare_menu
from timelineview.views.window.menu_focus import MenuFocus


@dataclass(frozen=True)
class WindowMenus:
    """The actions and menus the window reads or changes later."""

    recent: QtWidgets.QMenu
    align: QtGui.QAction
    plane_colours: QtGui.QAction


def add_action(owner: QtWidgets.QWidget, menu: QtWidgets.QMenu, text: str, shortcut: str | None,
               slot: Callable[[], object]) -> QtGui.QAction:
    """An action of ``menu`` that calls ``slot()`` (with no argument, whatever the signal carries)."""
    a = QtGui.QAction(text, owner)
    if shortcut:
        a.setShortcut(QtGui.QKeySequence(shortcut))
    a.triggered.connect(lambda *_: slot())
    menu.addAction(a)
    return a


def build_menus(window) -> WindowMenus:
    """File (open, recent, compare, sample, load report, quit), View (find, zoom, collapse, clocks, colours,
    the Details dock) and Help, on ``window`` (a ``MainWindow``)."""
    bar = window.menuBar()
    m = bar.addMenu("&File")
    add_action(window, m, "&Open file…", "Ctrl+O", window.open_file_dialog)
    add_action(window, m, "Open &folder…", "Ctrl+Shift+O", window.open_folder_dialog)
    recent = m.addMenu("Open &recent")
    add_compare_menu(window, m)  # a second run compared with this one
    m.addSeparator()
    add_action(window, m, "Open &sample cluster", None, window.open_sample)
    add_action(window, m, "Load &report…", None, window.show_load_report)
    m.addSeparator()
    add_action(window, m, "&Quit", "Ctrl+Q", window.close)
    v = bar.addMenu("&View")
    timeline = window.timeline
    add_action(window, v, "&Find…", "Ctrl+F", window.search.open_search)
    add_action(window, v, "Show &all  (0)", None, timeline.show_all)
    add_action(window, v, "&Fit selection  (F)", None, timeline.fit_selection)
    add_action(window, v, "&Undo zoom/pan  (Backspace)", None, timeline.undo_view)
    v.addSeparator()
    add_action(window, v, "&Collapse all processes", None, lambda: window._set_all_collapsed(True))
    add_action(window, v, "&Expand all", None, lambda: window._set_all_collapsed(False))
    align = add_action(window, v, "Align card &clocks", None, window._toggle_alignment)
    align.setCheckable(True)
    align.setChecked(True)
    align.setToolTip("Shift each card by its clock offset estimated from collective ends")
    colours = add_action(window, v, "Colour HCCL plane tasks by &transport / link type", None,
                         window._toggle_plane_colours)
    colours.setCheckable(True)
    v.addSeparator()
    v.addAction(window.dock.toggleViewAction())
    h = bar.addMenu("&Help")
    add_action(window, h, "&Keyboard and mouse  (?)", None, window.show_shortcuts)
    MenuFocus(bar, window.timeline)  # Esc out of a menu: the keys back to the timeline, not along the bar
    return WindowMenus(recent, align, colours)
