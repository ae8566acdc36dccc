"""The window's menus keep their texts, order and shortcuts; the recent paths list what was opened, newest
first, and open it again."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtGui

from tests.views.main_window_fixture import LOAD_TIMEOUT_MS

SEPARATOR = "---"
MENUS = {
    "&File": [("&Open file…", "Ctrl+O"), ("Open &folder…", "Ctrl+Shift+O"), ("Open &recent", ""),
              ("&Compare with", ""), SEPARATOR, ("Open &sample cluster", ""), ("Load &report…", ""), SEPARATOR,
              ("&Quit", "Ctrl+Q")],
    "&View": [("&Find…", "Ctrl+F"), ("Show &all  (0)", ""), ("&Fit selection  (F)", ""),
              ("&Undo zoom/pan  (Backspace)", ""), SEPARATOR, ("&Collapse all processes", ""), ("&Expand all", ""),
              ("Align card &clocks", ""), ("Colour HCCL plane tasks by &transport / link type", ""), SEPARATOR,
              ("Details", "")],
    "&Help": [("&Keyboard and mouse  (?)", "")],
}


def _entries(menu) -> list:
    return [SEPARATOR if a.isSeparator() else
            (a.text(), a.shortcut().toString(QtGui.QKeySequence.SequenceFormat.PortableText))
            for a in menu.actions()]


def test_the_menus_keep_their_texts_and_shortcuts(window):
    menus = {a.text(): a.menu() for a in window.menuBar().actions()}
    assert list(menus) == list(MENUS)
    for title, entries in MENUS.items():
        assert _entries(menus[title]) == entries, title
    compare = next(a.menu() for a in menus["&File"].actions() if a.text() == "&Compare with")
    assert [a.text() for a in compare.actions()] == ["&File…", "F&older…"]
    assert window.align_action.isCheckable() and window.align_action.isChecked()
    assert window.plane_colour_action.isCheckable() and not window.plane_colour_action.isChecked()


def test_recent_paths_are_listed_newest_first_and_open_again(qtbot, window, tmp_path):
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    for path in (first, second):
        path.write_text("[]")
        with qtbot.waitSignal(window.loadFinished, timeout=LOAD_TIMEOUT_MS):
            window.open_paths([path])
    menu = window.recent.menu
    assert [a.text() for a in menu.actions()] == [str(second.resolve()), str(first.resolve())]
    assert window.recent_paths() == [str(second.resolve()), str(first.resolve())]
    assert window.recent.last_dir() == str(tmp_path.resolve())
    with qtbot.waitSignal(window.loadFinished, timeout=LOAD_TIMEOUT_MS):
        menu.actions()[1].trigger()
    assert window.paths == [Path(str(first.resolve()))]
    assert [a.text() for a in menu.actions()] == [str(first.resolve()), str(second.resolve())]
