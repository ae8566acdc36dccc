"""A main window shown on the offscreen screen, for the tests that drive the whole window."""

from __future__ import annotations

from pathlib import Path

SIZE = (1280, 800)
LOAD_TIMEOUT_MS = 60_000  # a generated cluster loads in seconds; a slow shared machine needs the margin


def shown_main_window(qtbot, settings, interactive: bool = False):
    """A ``MainWindow`` with ``settings``, sized, shown and exposed. ``interactive`` windows show
    their dialogs; the others print them."""
    from timelineview.views.main_window import MainWindow

    win = MainWindow(settings=settings, interactive=interactive)
    qtbot.addWidget(win)
    win.resize(*SIZE)
    win.show()
    qtbot.waitExposed(win)
    return win


def open_and_wait(qtbot, window, path: Path) -> None:
    """Opens ``path`` in ``window`` (not remembered among the recent files) and waits until its load ends."""
    with qtbot.waitSignal(window.loadFinished, timeout=LOAD_TIMEOUT_MS):
        window.open_paths([path], remember=False)
