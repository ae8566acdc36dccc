"""Headless rendering: load, lay out at a given size, grab the window, save a PNG."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore, QtWidgets

from timelineview.views.main_window import MainWindow


def settle(app: QtWidgets.QApplication, rounds: int = 5) -> None:
    """Let layouts, resizes and posted paints run."""
    for _ in range(rounds):
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 50)


def has_content(win: MainWindow) -> bool:
    """Whether the window shows a trace or a summary folder (a screenshot of neither is a failure)."""
    return bool(win.timeline.cards) or win.cluster.shown is not None


def render_window(win: MainWindow, out: Path, size: tuple[int, int],
                  range_us: tuple[float, float] | None = None) -> bool:
    """Save a screenshot of ``win`` at ``size`` (optionally showing ``range_us``); True on success."""
    app = QtWidgets.QApplication.instance()
    win.resize(*size)
    win.show()
    settle(app)
    if range_us is not None and win.timeline.cards:
        win.timeline.set_range_us(*range_us)
    settle(app)
    image = win.grab()
    out.parent.mkdir(parents=True, exist_ok=True)
    return image.save(str(out))
