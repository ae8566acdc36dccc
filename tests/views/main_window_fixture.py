"""A main window shown on the offscreen screen, for the tests that drive the whole window."""

from __future__ import annotations

SIZE = (1280, 800)


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
