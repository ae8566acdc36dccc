"""File ▸ Compare with: choose a second run (a trace file or a profiler folder) to compare with the one on
screen."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtGui, QtWidgets

TRACE_FILTER = "Traces (*.json *.json.gz *.db);;All files (*)"


def compare_view(window):
    """The window's Compare tab, or None."""
    cluster = getattr(window, "cluster", None)
    analysis = getattr(cluster, "analysis", None)
    return None if analysis is None else analysis.widgets.get("compare")


def add_compare_menu(window: QtWidgets.QMainWindow, menu: QtWidgets.QMenu) -> QtWidgets.QMenu:
    """A "Compare with" submenu of ``menu``: a trace file… or a folder…; the chosen run loads as the
    comparison of the run on screen."""
    sub = menu.addMenu("&Compare with")
    sub.setToolTipsVisible(True)
    start = lambda: str(window.paths[0].parent) if getattr(window, "paths", None) else str(Path.home())  # noqa: E731

    def choose_file() -> None:
        paths, _ = QtWidgets.QFileDialog.getOpenFileNames(window, "Compare with trace files", start(), TRACE_FILTER)
        if paths:
            open_comparison(window, [Path(p) for p in paths])

    def choose_folder() -> None:
        path = QtWidgets.QFileDialog.getExistingDirectory(window, "Compare with a profiler folder", start())
        if path:
            open_comparison(window, [Path(path)])

    for text, slot in (("&File…", choose_file), ("F&older…", choose_folder)):
        action = QtGui.QAction(text, window)
        action.triggered.connect(lambda *_, s=slot: s())
        sub.addAction(action)
    return sub


def open_comparison(window, paths: list[Path]) -> bool:
    """Compare the run on screen with ``paths`` (after the running load, if any); False without a tab."""
    view = compare_view(window)
    if view is None:
        return False
    view.compare_with(paths)
    return True
